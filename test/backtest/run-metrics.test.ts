/** What the run feeds the metrics: the equity curve's first point, fees, trades and orders (hand-worked). */
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/run.js';
import { marginOpen, market, qty } from '../../src/strategy/builders.js';
import { config, newLog, scripted, T0, writeCandles, type Ohlcv } from './helpers.js';

const flat: Ohlcv = [100, 100.5, 99.8, 100, 50];

async function run(rows: Ohlcv[], extra: string, script: Parameters<typeof scripted>[0], balances?: string) {
  const file = writeCandles(rows);
  const cfg = config(file, { rows: rows.length, extra, ...(balances ? { balances } : {}) });
  return runBacktest(cfg, { instances: [scripted(script)] });
}

describe('the equity curve the metrics get', () => {
  it('starts with the equity before any strategy acts at `from` (a fee paid then is in the return)', async () => {
    const log = newLog();
    // The first candle closes at T0 + 60 (>= from); the strategy opens a margin long right then.
    const r = await run([flat, flat, flat], '', {
      log,
      at: { 0: () => marginOpen({ market: 'BTCUSDT', side: 'long', collateral: 1000, riskCoef: 3, openPrice: 100 }) },
    });
    expect(log.denials).toEqual([]);
    expect(r.result.summary.startEquity).toBe(10000);
    expect(r.result.equity.times[0]).toBe((T0 + 60) * 1000);
    // the decision at that close paid the opening fee: the next point is below 10,000
    expect(r.result.equity.values[1]).toBeLessThan(10000);
    expect(r.result.metrics.totalReturnPct.value).toBeCloseTo((r.result.summary.endEquity / 10000 - 1) * 100, 10);
  });

  it('a spot buy at the first close: start 10,000, the buy after it', async () => {
    const r = await run([flat, flat, flat], '', { at: { 0: () => market('BUY', 'BTCUSDT', qty(1)) } });
    expect(r.result.summary.startEquity).toBe(10000);
  });
});
