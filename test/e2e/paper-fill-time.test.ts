/**
 * The user's path of an audit finding: `mizan run` in paper mode on `mizan sim`; in its journal,
 * fills were dated before their orders were created (queue times went negative). The exchange
 * stamps public prints and instant fills in whole seconds, and paper dated its fills with those
 * stamps. Here a paper bot (a child process) rests a limit buy on the simulator's seeded book and
 * buys on the instant desk every two seconds; the test prints a trade under the resting order,
 * stamped (as the exchange does) with the second the order was created in. Every fill in the
 * journal must be dated at or after its order's creation, and the print's fill no earlier than
 * the print was sent.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSim, type RunningSim } from '../../src/sim/run-sim.js';
import { Journal } from '../../src/store/journal.js';
import type { FillRow, OrderRow } from '../../src/store/types.js';
import { waitFor, waitForValue } from '../support/wait-for.js';
import { REPO, startRun, tempDir, type Running } from './cli.js';

const tmp = tempDir('mizan-fill-time-');
let sim: RunningSim;
let bot: Running | undefined;
beforeAll(async () => {
  sim = await runSim({ port: 0, replay: false });
});
afterAll(async () => {
  bot?.kill();
  await sim.stop();
  tmp.remove();
});

/** The journal's orders and fills (none before the bot created the file). */
function readJournal(file: string): { orders: OrderRow[]; fills: FillRow[] } {
  if (!existsSync(file)) return { orders: [], fills: [] };
  const j = Journal.open(file, { readonly: true });
  try {
    return { orders: j.orders(), fills: j.fills() };
  } finally {
    j.close();
  }
}

describe('paper fills in the journal are never dated before their orders', { timeout: 120_000 }, () => {
  it('a resting order printed through in the second it was created in, and instant buys', async () => {
    const journal = join(tmp.dir, 'paper.sqlite');
    const config = tmp.file(
      'paper.yaml',
      [
        'mode: paper',
        `exchange: { baseUrl: ${JSON.stringify(sim.server.url)}, simulator: false, stream: { transport: ws } }`,
        'strategies:',
        `  - { name: rest, strategy: ${JSON.stringify(join(REPO, 'test/e2e/fixtures/rest-bid.ts'))}, markets: [BTCUSDT], resolution: '1' }`,
        "  - { name: dca, strategy: otc-dca, markets: [USDTTMN], resolution: '1', schedule: { cron: '*/2 * * * * *' }, params: { amount: 5000000, maxBuys: 2 } }",
        'paper: { balances: { USDT: 1000, TMN: 100000000 }, fees: { maker: 0.001, taker: 0.002 } }',
        `journal: { file: ${JSON.stringify(journal)} }`,
        'logging: { level: warn }',
        '',
      ].join('\n'),
    );
    bot = startRun(['run', config, '--duration', '60']);
    const detail = () => bot!.output();
    /** The journal, while the bot runs (it stopping early fails the wait at once, with its output). */
    const running = () => {
      if (bot!.proc.exitCode !== null) throw new Error(`the paper bot exited (${bot!.proc.exitCode}):\n${detail()}`);
      return readJournal(journal);
    };
    const order = await waitForValue(() => running().orders.find((o) => o.strategy === 'rest' && o.type === 'LIMIT'), {
      what: "the paper bot's resting limit buy",
      timeout: 60_000,
      interval: 100,
      detail,
    });
    // A seller takes the bid under the paper order: the exchange stamps the print with the second
    // the order was created in, before the order. (Sent again every half second until the order
    // fills: the journal holds the order before it reaches the paper exchange, and the bot's trade
    // channel may not be live yet.)
    const sentAt = Date.now();
    const print = () =>
      sim.sim.recordTrade({
        symbol: 'BTCUSDT',
        price: order.price!.minus('0.01'),
        quantity: order.quantity.mul(2),
        isBuyOrder: false,
        timestamp: order.createdTs,
      });
    print();
    const again = setInterval(print, 500);
    const printFill = await waitForValue(() => running().fills.find((f) => f.clientId === order.clientId), {
      what: "the resting order's fill",
      timeout: 30_000,
      interval: 100,
      detail,
    }).finally(() => clearInterval(again));
    await waitFor(() => running().fills.filter((f) => f.strategy === 'dca').length >= 2, { what: 'two instant buys', timeout: 30_000, detail });
    bot.interrupt();
    const r = await bot.exited;
    expect(r.code, r.all).toBe(0);

    expect(printFill.quantity.eq(order.quantity), `${printFill.quantity.toFixed()} of ${order.quantity.toFixed()}`).toBe(true);
    expect(printFill.ts, `print sent at ${sentAt}, stamped ${new Date(order.createdTs).toISOString()}`).toBeGreaterThanOrEqual(sentAt);
    const { orders, fills } = readJournal(journal);
    const created = new Map(orders.map((o) => [o.clientId, o] as const));
    const types = new Set<string>();
    for (const f of fills) {
      const o = created.get(f.clientId)!;
      types.add(o.type);
      expect(f.ts - o.createdTs, `${o.type} ${f.clientId}: fill ${f.ts}, created ${o.createdTs}`).toBeGreaterThanOrEqual(0);
    }
    expect([...types].sort()).toEqual(['LIMIT', 'OTC']);
  });
});
