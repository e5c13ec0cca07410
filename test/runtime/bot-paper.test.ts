/**
 * `mizan run` end to end in paper mode: the embedded simulator replays the bundled data over real
 * HTTP and socket.io, the market-data engine keeps the books, every example strategy runs, intents
 * go through risk and execution to the paper venue, and the journal agrees with the paper exchange.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { startBot, type Bot } from '../../src/runtime/bot.js';
import { isFinal } from '../../src/execution/tracked-order.js';
import { Journal } from '../../src/store/journal.js';
import { waitFor } from '../support/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-bot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const yaml = (journal: string) => `
mode: paper
simulator: { seed: 3, speed: 4 }
strategies:
  - { name: sma, strategy: sma-cross, markets: [BTCUSDT], resolution: 1s, params: { fast: 2, slow: 4, fraction: 0.1 } }
  - { name: rsi, strategy: rsi-reversion, markets: [BTCUSDT], resolution: 1s, params: { period: 3, oversold: 45, overbought: 55, fraction: 0.05 } }
  - { name: mm, strategy: market-maker, markets: [ETHUSDT], resolution: "1", params: { orderQuote: 100, minSpreadBps: 2, refreshMs: 2000 } }
  - { name: grid, strategy: grid, markets: [BTCUSDT], resolution: "1", params: { levels: 2, spacingPct: 0.05, orderQuote: 50 } }
  - { name: mt, strategy: margin-trend, markets: [BTCUSDT], resolution: 3s, params: { fast: 2, slow: 4, collateral: 50, riskCoef: 2 } }
  - name: dca
    strategy: otc-dca
    markets: [USDTTMN]
    resolution: "1"
    schedule: { cron: "* * * * * *", timezone: UTC }
    params: { amount: 2000000, maxBuys: 3 }
paper:
  balances: { USDT: 20000, TMN: 1000000000 }
journal: { file: ${journal} }
`;

describe('mizan run, paper mode on the embedded simulator', () => {
  let bot: Bot | undefined;
  afterAll(async () => {
    await bot?.stop();
  });

  it('runs every example strategy through risk and execution, and the journal agrees with the paper exchange', async () => {
    const file = join(dir, 'journal.sqlite');
    const config = parseConfig(yaml(file));
    const denied: string[] = [];
    const logger = {
      ...silentLogger,
      debug: ((o: { strategy?: string; rule?: string; reason?: string }, m?: string) => {
        if (m === 'intent denied') denied.push(`${o.strategy}: ${o.rule}: ${o.reason}`);
      }) as typeof silentLogger.debug,
      child: () => logger,
    };
    bot = await startBot(config, { logger, intervals: { statusEveryMs: 0, pollMs: 200, syncMs: 1000 } });
    const emitted = () => [...bot!.core.runners.values()].filter((r) => r.intentsEmitted > 0).map((r) => r.name);
    const dcaBuys = () => bot!.portfolio.positions.get('dca', 'USDTTMN')?.trades ?? 0;
    await waitFor(() => emitted().length >= 4 && dcaBuys() >= 3, {
      what: 'four strategies to emit intents and three DCA buys',
      timeout: 30_000,
      interval: 250,
      detail: () => `emitted: ${emitted().join(', ')}; DCA buys: ${dcaBuys()}; denied: ${denied.slice(-10).join('; ')}`,
    });

    expect([...bot.core.runners.values()].map((r) => r.errors)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(emitted()).toEqual(expect.arrayContaining(['mm', 'grid', 'dca']));
    expect(bot.core.fills).toBeGreaterThanOrEqual(3);
    expect(bot.market.health('BTCUSDT').healthy).toBe(true);

    const summary = await bot.stop();
    expect(summary).toContain('mizan stopped after');
    // Every order is final after the stop (strategies stopped, open orders cancelled).
    const live = [...bot.engine.orders.values()].filter((o) => !isFinal(o.state));
    expect(live).toEqual([]);
    // The journal and the paper exchange agree on every order.
    const paper = bot.paper!.sim;
    const journal = Journal.open(file, { readonly: true });
    const rows = journal.orders({});
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.final).toBe(true);
      if (r.type === 'OTC') continue; // instant orders fill at once; they are not in the spot book
      const o = paper.getOrder('paper', r.clientId);
      expect(o.executedQty.toFixed(), r.clientId).toBe(r.executedQty.toFixed());
      expect(o.active, r.clientId).toBe(false);
    }
    // Instant buys are journaled as fills of the DCA strategy.
    const per = new Map<string, number>();
    for (const r of journal.intents({})) if (r.verdict?.ok) per.set(`${r.strategy}:${r.kind}`, (per.get(`${r.strategy}:${r.kind}`) ?? 0) + 1);
    expect(journal.fills({ strategy: 'dca' }).length, `${JSON.stringify([...per])} ${denied.filter((x) => x.startsWith('dca')).join('; ')}`).toBe(3);
    journal.close();
  }, 60_000);
});
