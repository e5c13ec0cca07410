/**
 * Drill: the same strategy on the same replay (same seed, same bundled data, replay started afresh)
 * once live against the simulator's wire server, once in paper mode (the embedded simulator feeds
 * the books, a paper SimulatedExchange fills against the bot's local books). The fills must be the
 * same within the documented fill-model differences (test/scenario/README.md):
 *   - the same orders fill (marketable ones) and the same do not (resting ones far from the touch);
 *   - same sides and quantities, in the same order, and the same fee rate;
 *   - prices may differ by how far the replayed book moved between the two views of it (live: the
 *     simulator's book when the request arrives; paper: the bot's last stream snapshot), bounded by
 *     the orders' own limit (crossBps) and here by 0.5%.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/core/logger.js';
import { startBot } from '../../src/runtime/bot.js';
import { TEST_BALANCES } from '../../src/sim/default.js';
import { Journal } from '../../src/store/journal.js';
import type { FillRow, OrderRow } from '../../src/store/types.js';
import { finishPinger, liveConfig, PINGER, REPO, startDrillSim, startLiveBot, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

const SEED = 11;
const PARAMS = { maxOrders: 9, everyMs: 300, maxOpen: 2, fillEvery: 3, crossBps: 50 };

function paperYaml(journal: string): string {
  const balances = Object.entries(TEST_BALANCES)
    .map(([a, v]) => `${a}: ${v}`)
    .join(', ');
  return [
    'mode: paper',
    `simulator: { seed: ${SEED}, speed: 1 }`,
    'strategies:',
    `  - { name: ping, strategy: ${PINGER}, markets: [BTCUSDT], resolution: "1", params: ${JSON.stringify(PARAMS)} }`,
    `paper: { balances: { ${balances} } }`,
    `journal: { file: ${journal} }`,
    'logging: { level: warn, pretty: false }',
    '',
  ].join('\n');
}

function read(file: string): { orders: OrderRow[]; fills: FillRow[] } {
  const j = Journal.open(file, { readonly: true });
  try {
    return { orders: j.orders({}), fills: j.fills({}) };
  } finally {
    j.close();
  }
}

describe('drill: live against the wire server vs paper on the same replay', () => {
  it('gives the same fills within the documented fill-model differences', async () => {
    const liveFile = join(tmp.dir, 'live.sqlite');
    const running = await startDrillSim({ seed: SEED });
    try {
      const bot = await startLiveBot(liveConfig({ url: running.server.url, journal: liveFile, params: PARAMS }));
      await finishPinger(bot, PARAMS.maxOrders, 40_000);
    } finally {
      await running.stop();
    }

    const paperFile = join(tmp.dir, 'paper.sqlite');
    const paperBot = await startBot(parseConfig(paperYaml(paperFile), { baseDir: REPO }), {
      logger: silentLogger,
      sim: { port: 0 },
      intervals: { statusEveryMs: 0, pollMs: 200, syncMs: 1000 },
    });
    await finishPinger(paperBot, PARAMS.maxOrders, 40_000);

    const live = read(liveFile);
    const paper = read(paperFile);
    // Same orders in the same order: tag, side, quantity, final state.
    const shape = (rows: OrderRow[]) => rows.map((r) => `${r.tag} ${r.side} ${r.quantity.toFixed()} ${r.status}`);
    expect(shape(live.orders)).toEqual(shape(paper.orders));
    expect(live.orders.filter((r) => r.status === 'filled')).toHaveLength(PARAMS.maxOrders / PARAMS.fillEvery);
    // Same fills: side and quantity exactly, fee rate exactly, price within the bound.
    expect(live.fills.map((f) => `${f.side} ${f.quantity.toFixed()}`)).toEqual(paper.fills.map((f) => `${f.side} ${f.quantity.toFixed()}`));
    for (const [i, l] of live.fills.entries()) {
      const p = paper.fills[i]!;
      const order = (rows: OrderRow[], id: string) => rows.find((r) => r.clientId === id)!;
      for (const [f, rows] of [
        [l, live.orders],
        [p, paper.orders],
      ] as const) {
        const limit = order(rows, f.clientId).price!;
        // A marketable limit never fills beyond its limit price in either mode.
        expect(f.side === 'BUY' ? f.price.lte(limit) : f.price.gte(limit), `${f.clientId} ${f.price} vs limit ${limit}`).toBe(true);
      }
      // The fee: same asset (received: BTC on a buy, USDT on a sell), same rate of what was received.
      expect(l.feeAsset).toBe(p.feeAsset);
      const rate = (f: FillRow) => f.fee.div(f.feeAsset === 'BTC' ? f.quantity : f.quantity.mul(f.price)).toFixed(4);
      expect(rate(l)).toBe(rate(p));
      const diff = l.price.minus(p.price).abs().div(p.price);
      expect(diff.lt('0.005'), `fill ${i}: live ${l.price} paper ${p.price}`).toBe(true);
    }
  }, 120_000);
});
