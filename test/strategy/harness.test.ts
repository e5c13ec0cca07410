/**
 * mizan/testing's harness (issue 34 item 2): ctx.candles() answers from the bars the test fed
 * (the strategy's resolution, a multiple built as the kernel builds it, a declared one), ctx.book()
 * the book the test set, `bar()` is a full OHLCV bar, `run()` collects the drafts in order.
 */
import { describe, expect, it } from 'vitest';
import { defineStrategy, market, qty } from '../../src/index.js';
import type { CandleWindow } from '../../src/strategy/candle-window.js';
import { bar, candle, harness, simpleBook } from '../support/strategy-harness.js';
import { HigherTimeframe } from '../../src/kernel/higher-timeframe.js';
import { CandleWindow as Window } from '../../src/strategy/candle-window.js';

/** Records what ctx.candles() held when each onCandle ran; buys every candle whose close is above the previous one. */
function recorder(reads: number[] = []) {
  return defineStrategy({
    name: 'recorder',
    description: 'test',
    params: {},
    create(ctx) {
      return {
        onCandle(symbol, b) {
          const w = ctx.candles(symbol);
          reads.push(w.length);
          if (w.length >= 2 && w.close(-1) > w.close(-2)) return market('BUY', symbol, qty('1'), { tag: `up-${b.time}` });
        },
      };
    },
  });
}

describe('mizan/testing harness', () => {
  it('onCandle sees the fed candle last in ctx.candles(), whether fed by run() or by calling the handler', async () => {
    const reads: number[] = [];
    const h = harness(recorder(reads), { markets: ['BTCUSDT'] });
    const out = await h.run([candle(0, 10), candle(60, 11), candle(120, 9), candle(180, 12)]);
    expect(reads).toEqual([1, 2, 3, 4]);
    expect(out.map((d) => (d as { tag?: string }).tag)).toEqual(['up-60', 'up-180']);
    await h.handlers.onCandle?.('BTCUSDT', candle(240, 13));
    expect(reads.at(-1)).toBe(5);
    expect(h.ctx.candles('BTCUSDT').close()).toBe(13);
  });

  it('bar() keeps open, high, low, close and volume; run() moves the clock to each close', async () => {
    const h = harness(recorder(), { markets: ['BTCUSDT'], now: 0 });
    await h.run([bar(0, 100, 105, 95, 102, 7)]);
    expect(h.ctx.candles('BTCUSDT').at(-1)).toEqual({ time: 0, open: 100, high: 105, low: 95, close: 102, volume: 7 });
    expect(h.clock.now()).toBe(60_000);
    expect(() => bar(0, 100, 99, 95, 102)).toThrow(/high 99 and low 95 do not bound open 100 and close 102/);
    expect(() => bar(0, 100, 105, 95, Number.NaN)).toThrow(/close NaN/);
  });

  it('a multiple of the resolution is built by the kernel builder: the same candles as HigherTimeframe gives', async () => {
    const h = harness(recorder(), { markets: ['BTCUSDT'] });
    const bars = Array.from({ length: 17 }, (_, i) => bar(i * 60, 100 + i, 100 + i + (i % 3), 99 - (i % 4), 100 + ((i * 7) % 5), i + 1));
    await h.run(bars.slice(0, 7));
    const fives = h.ctx.candles('BTCUSDT', 300);
    await h.run(bars.slice(7));
    const ref = new Window(500);
    const b = new HigherTimeframe(60, 300, ref);
    for (const x of bars) b.push(x);
    const all = (w: CandleWindow) => Array.from({ length: w.length }, (_, i) => w.at(i));
    expect(fives.length).toBe(3);
    expect(all(fives)).toEqual(all(ref));
  });

  it('a declared resolution holds the bars of that length fed to it; onCandle gets only its own', async () => {
    const reads: number[] = [];
    const h = harness(recorder(reads), { markets: ['BTCUSDT'], resolutionSec: 300, candles: [60] });
    expect(h.ctx.resolutionSec).toBe(300);
    await h.run([bar(0, 1, 2, 1, 2, 1, 60), bar(60, 2, 3, 2, 3, 1, 60), bar(0, 1, 3, 1, 3, 2, 300)]);
    expect(reads).toEqual([1]);
    expect(h.ctx.candles('BTCUSDT', 60).length).toBe(2);
    await expect(h.run([bar(0, 1, 1, 1, 1, 1, 120)])).rejects.toThrow(/a 120s bar of BTCUSDT fed to a 300s strategy/);
    expect(() => h.ctx.candles('BTCUSDT', 450)).toThrow(/ctx.candles\("BTCUSDT", 450\).*pass candles: \[450\]/);
    await expect(h.feed('ETHUSDT', bar(0, 1, 1, 1, 1))).rejects.toThrow(/ETHUSDT is not one of the markets/);
  });

  it('ctx.book() answers the book the test set, or the last one onBook received', async () => {
    let seen: string | undefined;
    const def = defineStrategy({
      name: 'book-reader',
      description: 'test',
      params: {},
      create(ctx) {
        return {
          onCandle(symbol) {
            seen = ctx.book(symbol)?.mid()?.toString();
          },
          onBook() {},
        };
      },
    });
    const h = harness(def, { markets: ['BTCUSDT'] });
    await h.run([candle(0, 1)]);
    expect(seen).toBeUndefined();
    h.setBook('BTCUSDT', simpleBook('BTCUSDT', '99', '101'));
    await h.run([candle(60, 1)]);
    expect(seen).toBe('100');
    await h.handlers.onBook?.('BTCUSDT', simpleBook('BTCUSDT', '199', '201'));
    expect(h.ctx.book('BTCUSDT')?.mid()?.toString()).toBe('200');
    h.setBook('BTCUSDT', undefined);
    expect(h.ctx.book('BTCUSDT')).toBeUndefined();
  });
});
