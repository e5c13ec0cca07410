import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Decimal, d } from '../../../src/core/decimal.js';
import { readCandles } from '../../../src/market/files/index.js';
import { candleSource, startReplay, type ReplayEvent } from '../../../src/sim/replay/index.js';
import { checkSide, DATA, fakeTarget } from './helpers.js';

const real = readCandles(join(DATA, 'freqtrade/orderflow/candles.json')).slice(0, 120);

function all(src: { events(): Iterator<ReplayEvent> }): ReplayEvent[] {
  const out: ReplayEvent[] = [];
  const it = src.events();
  for (let r = it.next(); !r.done; r = it.next()) out.push(r.value);
  return out;
}

describe('candle source: candles -> book and trade flow', () => {
  const src = candleSource('BTCUSDT', real, { tickDecimals: 2, stepDecimals: 6, seed: 42 });
  const events = all(src);

  it('pushes 50 ordered levels per side on the tick grid, bids strictly below asks', async () => {
    const sim = fakeTarget();
    await startReplay({ sim, sources: [src], speed: Infinity }).done;
    const bids = sim.log.filter((e) => e.kind === 'bid');
    const asks = sim.log.filter((e) => e.kind === 'ask');
    expect(bids.length).toBe(real.length * 12);
    expect(asks.length).toBe(bids.length);
    for (let i = 0; i < bids.length; i++) {
      const b = bids[i]!.levels!;
      const a = asks[i]!.levels!;
      expect(b).toHaveLength(50);
      expect(a).toHaveLength(50);
      checkSide(b, 'bid', 2);
      checkSide(a, 'ask', 2);
      expect(b[0]!.price.lt(a[0]!.price)).toBe(true);
    }
  });

  it('prints sum to each bar volume, hit open, high, low and close, and rebuild the bar exactly', () => {
    const bars = src.candles('BTCUSDT');
    expect(bars).toHaveLength(real.length);
    for (const bar of bars) {
      const start = bar.time * 1000;
      const prints = events.filter((e) => e.kind === 'trade' && e.time >= start && e.time < start + 300_000);
      const prices = prints.map((p) => d((p as { price: string }).price));
      const vol = prints.reduce((s, p) => s.plus((p as { quantity: string }).quantity), new Decimal(0));
      expect(vol.eq(bar.volume)).toBe(true);
      expect(prices[0]!.eq(bar.open)).toBe(true);
      expect(prices[prices.length - 1]!.eq(bar.close)).toBe(true);
      expect(Decimal.max(...prices).eq(bar.high)).toBe(true);
      expect(Decimal.min(...prices).eq(bar.low)).toBe(true);
      // the grid bars are the real bars (prices have <= 2 decimals already)
      const orig = real.find((c) => c.time === bar.time)!;
      expect(bar.high.eq(orig.high) && bar.low.eq(orig.low) && bar.volume.eq(orig.volume)).toBe(true);
    }
  });

  it('each print trades at the touch it hits: buys at the best ask, sells at the best bid', () => {
    let book: Extract<ReplayEvent, { kind: 'book' }> | undefined;
    for (const e of events) {
      if (e.kind === 'book') book = e;
      else {
        expect(book!.time).toBe(e.time);
        const touch = e.isBuyOrder ? book!.asks[0]! : book!.bids[0]!;
        expect(touch[0]).toBe(e.price);
        expect(d(touch[1]).gte(d(e.quantity))).toBe(true);
      }
    }
  });

  it('visits the nearer extreme first and keeps bar times', () => {
    const bar = src.candles('BTCUSDT')[3]!;
    const start = bar.time * 1000;
    const prices = events.filter((e) => e.kind === 'trade' && e.time >= start && e.time < start + 300_000).map((e) => Number((e as { price: string }).price));
    const hi = prices.indexOf(bar.high.toNumber());
    const lo = prices.indexOf(bar.low.toNumber());
    const highFirst = bar.high.minus(bar.open).lte(bar.open.minus(bar.low));
    expect(highFirst ? hi < lo || hi === lo : lo < hi).toBe(true);
  });

  it('is deterministic for a seed and changes with the seed', () => {
    const again = all(candleSource('BTCUSDT', real, { tickDecimals: 2, stepDecimals: 6, seed: 42 }));
    expect(again).toEqual(events);
    const other = all(candleSource('BTCUSDT', real, { tickDecimals: 2, stepDecimals: 6, seed: 43 }));
    expect(other).not.toEqual(events);
    // but the bars they rebuild are the same
    expect(other.filter((e) => e.kind === 'trade').length).toBeGreaterThan(0);
  });

  it('rounds prices finer than the tick to the grid and zero-volume bars only move the book', () => {
    const bars = [
      { time: 600, open: d('100.004'), high: d('100.126'), low: d('99.951'), close: d('100.05'), volume: d('0') },
      { time: 660, open: d('100.05'), high: d('100.2'), low: d('100'), close: d('100.1'), volume: d('3') },
    ];
    const s = candleSource('XUSDT', bars, { tickDecimals: 2, stepDecimals: 2, tradesPerCandle: 6, seed: 1 });
    const g = s.candles('XUSDT');
    expect(g.map((c) => c.high.toFixed())).toEqual(['100.13', '100.2']);
    expect(s.resolutionSec).toBe(60);
    const ev = all(s);
    expect(ev.filter((e) => e.kind === 'trade' && e.time < 660_000)).toHaveLength(0);
    expect(ev.filter((e) => e.kind === 'book' && e.time < 660_000)).toHaveLength(6);
    const vol = ev.filter((e) => e.kind === 'trade').reduce((s2, e) => s2.plus((e as { quantity: string }).quantity), d(0));
    expect(vol.toFixed()).toBe('3');
  });
});
