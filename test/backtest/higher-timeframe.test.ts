/**
 * Issue 16 item 12: a strategy reads candles of any multiple of its resolution without declaring
 * them (built from its own candles, aligned to the epoch), and a candle is visible only once it
 * closed. Through runBacktest on a candle file; the trading core builds them the same way live.
 */
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/run.js';
import { CandleWindow } from '../../src/strategy/candle-window.js';
import { HigherTimeframe } from '../../src/kernel/higher-timeframe.js';
import { config, scripted, T0, writeCandles, type Ohlcv } from './helpers.js';

describe("higher timeframes from a strategy's own candles", () => {
  it('ctx.candles(symbol, 3600) in a 300 s strategy gives the closed hours, built from its 5-minute candles', async () => {
    // 36 five-minute candles = 3 hours; candle i: open 100+i, high 100+i+0.5, low 100+i-0.5, close 100+i+0.25, volume 1.
    const rows: Ohlcv[] = Array.from({ length: 36 }, (_, i) => [100 + i, 100 + i + 0.5, 100 + i - 0.5, 100 + i + 0.25, 1]);
    const file = writeCandles(rows, 300);
    const seen: { k: number; n: number; last?: { time: number; open: number; high: number; low: number; close: number; volume: number } }[] = [];
    const read = (k: number) => (ctx: Parameters<NonNullable<NonNullable<Parameters<typeof scripted>[0]['at']>[number]>>[0]) => {
      const w = ctx.candles('BTCUSDT', 3600);
      seen.push({ k, n: w.length, ...(w.length ? { last: w.at(-1) } : {}) });
      return undefined;
    };
    await runBacktest(config(file, { rows: 36, resSec: 300 }), {
      instances: [scripted({ at: { 5: read(5), 10: read(10), 11: read(11), 12: read(12), 35: read(35) } }, 300)],
    });
    // Candle 10 closes at 00:55: the first hour is still open. Candle 11 closes at 01:00: it closed.
    expect(seen.find((s) => s.k === 5)!.n).toBe(0);
    expect(seen.find((s) => s.k === 10)!.n).toBe(0);
    const h1 = seen.find((s) => s.k === 11)!;
    expect(h1.n).toBe(1);
    expect(h1.last).toEqual({ time: T0, open: 100, high: 111.5, low: 99.5, close: 111.25, volume: 12 });
    expect(seen.find((s) => s.k === 12)!.n).toBe(1);
    const h3 = seen.find((s) => s.k === 35)!;
    expect(h3.n).toBe(3);
    expect(h3.last).toEqual({ time: T0 + 7200, open: 124, high: 135.5, low: 123.5, close: 135.25, volume: 12 });
  });

  it('a declared multiple (candles: ["60"] in a 300 s strategy) comes from the data once, not also built from its candles', async () => {
    const rows: Ohlcv[] = Array.from({ length: 36 }, (_, i) => [100 + i, 100 + i + 0.5, 100 + i - 0.5, 100 + i + 0.25, 1]);
    const file = writeCandles(rows, 300);
    const seen: { k: number; n: number; times: number[] }[] = [];
    const read = (k: number) => (ctx: Parameters<NonNullable<NonNullable<Parameters<typeof scripted>[0]['at']>[number]>>[0]) => {
      const w = ctx.candles('BTCUSDT', 3600);
      seen.push({ k, n: w.length, times: Array.from({ length: w.length }, (_, i) => w.at(i).time) });
      return undefined;
    };
    const inst = { ...scripted({ at: { 10: read(10), 11: read(11), 35: read(35) } }, 300), candleSeconds: [3600] };
    await runBacktest(config(file, { rows: 36, resSec: 300 }), { instances: [inst] });
    expect(seen).toEqual([
      { k: 10, n: 0, times: [] },
      { k: 11, n: 1, times: [T0] },
      { k: 35, n: 3, times: [T0, T0 + 3600, T0 + 7200] },
    ]);
  });

  it('a bucket cut short by a gap closes when a later one begins; a resolution that is not a multiple is refused', () => {
    const out = new CandleWindow(10);
    const h = new HigherTimeframe(300, 3600, out);
    h.push({ time: T0, o: 1, h: 2, l: 0.5, c: 1.5, v: 1 });
    h.push({ time: T0 + 300, o: 1.5, h: 3, l: 1, c: 2, v: 2 });
    expect(out.length).toBe(0);
    // The data jumps to the next hour: the first hour is over, with what it had.
    h.push({ time: T0 + 3600, o: 5, h: 6, l: 4, c: 5.5, v: 1 });
    expect(out.length).toBe(1);
    expect(out.at(-1)).toEqual({ time: T0, open: 1, high: 3, low: 0.5, close: 2, volume: 3 });
    expect(() => new HigherTimeframe(300, 1000, out)).toThrow(/not a multiple/);
  });
});
