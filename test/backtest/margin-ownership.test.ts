/**
 * Two strategies trading margin on one market, through `mizan backtest` in a child process on the
 * bundled BTCUSDT data (the margin-trend example twice, with different averages): each sees only the
 * positions it opened (`ctx.marginPositions()`) and may close only those. Before the fix every
 * strategy saw every position of the account: one instance's trend flip closed the other's
 * positions, and an open position of one kept the other from opening its own.
 * Each instance's trades in the shared run are the trades it makes alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliBacktest } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-bt-owners-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Trade {
  strategy: string;
  side: string;
  entryTime: number;
  exitTime: number | null;
  entryPrice: string;
  exitPrice: string | null;
  exit: string;
}
interface Result {
  trades: Trade[];
  denied: { total: number; byRule: { rule: string; count: number }[] };
}

// The same slow average: the same warm-up, so each instance starts from the same history alone and together.
const QUICK = '  - { name: quick, strategy: margin-trend, markets: [BTCUSDT], resolution: "300s", params: { fast: 5, slow: 26, collateral: 300 } }';
const STEADY = '  - { name: steady, strategy: margin-trend, markets: [BTCUSDT], resolution: "300s", params: { fast: 12, slow: 26, collateral: 300 } }';

async function backtest(name: string, strategies: string[]): Promise<Result> {
  const r = await cliBacktest<Result>(dir, name, {
    strategies: strategies.join('\n'),
    backtest: `  from: 2023-01-10
  to: 2023-01-13
  balances: { USDT: 10000 }
  slippagePct: 0.05`,
  });
  return r.result;
}

// A fill inside a candle is stamped along the candle's path (open, extremes, close, with a print at
// every stop on the way): the other strategy's stops add prints and move that stamp within the
// candle, so times are compared by candle; prices exactly.
const candleOf = (ms: number | null) => (ms === null ? null : Math.floor(ms / 300_000));
const shape = (trades: Trade[], strategy: string) =>
  trades
    .filter((t) => t.strategy === strategy)
    .map((t) => ({ side: t.side, entry: candleOf(t.entryTime), exit: candleOf(t.exitTime), entryPrice: t.entryPrice, exitPrice: t.exitPrice, reason: t.exit }));

describe('margin positions belong to the strategy that opened them (mizan backtest, child process)', () => {
  it("each strategy's trades with the other on the same market are the trades it makes alone", async () => {
    const [both, quick, steady] = await Promise.all([backtest('both', [QUICK, STEADY]), backtest('quick', [QUICK]), backtest('steady', [STEADY])]);
    const quickAlone = shape(quick.trades, 'quick');
    const steadyAlone = shape(steady.trades, 'steady');
    expect(quickAlone.length).toBeGreaterThan(3);
    expect(steadyAlone.length).toBeGreaterThan(3);
    expect(shape(both.trades, 'quick')).toEqual(quickAlone);
    expect(shape(both.trades, 'steady')).toEqual(steadyAlone);
    // None but the warm-up gate's (margin-trend acts on its EMAs from the first warm-up candle on).
    expect(
      both.denied.byRule.filter((b) => b.rule !== 'warmup'),
      JSON.stringify(both.denied),
    ).toEqual([]);
  }, 180_000);
});

describe('a margin close or top-up of another strategy position', () => {
  it('is denied with rule ownership, and the position stays open; the owner closes it', async () => {
    const { runBacktest } = await import('../../src/backtest/run.js');
    const { config, newLog, scripted, writeCandles } = await import('./helpers.js');
    const { marginAddCollateral, marginClose, marginOpen } = await import('../../src/strategy/builders.js');
    const flat: [number, number, number, number, number] = [100, 100.5, 99.8, 100, 50];
    const rows = Array.from({ length: 8 }, () => flat);
    const seen: Record<string, number[]> = { a: [], b: [] };
    let id = 0;
    const aLog = newLog();
    const bLog = newLog();
    const a = {
      ...scripted({
        log: aLog,
        at: {
          0: () => marginOpen({ market: 'BTCUSDT', side: 'long', collateral: 1000, riskCoef: 2 }),
          2: (ctx) => {
            seen.a = ctx.marginPositions('BTCUSDT').map((p) => p.id);
            id = seen.a[0] ?? 0;
            return undefined;
          },
          5: (ctx) =>
            ctx
              .marginPositions('BTCUSDT')
              .filter((p) => p.state === 'open')
              .map((p) => marginClose(p.id)),
        },
      }),
      name: 'a',
    };
    const b = {
      ...scripted({
        log: bLog,
        at: {
          3: (ctx) => {
            seen.b = ctx.marginPositions().map((p) => p.id);
            return [marginClose(id), marginAddCollateral(id, 10)];
          },
        },
      }),
      name: 'b',
    };
    const cfg = config(writeCandles(rows), { rows: rows.length });
    const r = await runBacktest(cfg, { instances: [a, b] });
    expect(seen.a).toHaveLength(1);
    expect(seen.b).toEqual([]);
    expect(bLog.denials).toEqual([
      `ownership: margin position ${id} is a position of a, not of b`,
      `ownership: margin position ${id} is a position of a, not of b`,
    ]);
    const trades = r.result.trades.filter((t) => t.side === 'long');
    expect(trades.map((t) => [t.strategy, t.exit])).toEqual([['a', 'signal']]);
  }, 60_000);
});
