import { describe, expect, it } from 'vitest';
import { Decimal, d } from '../../src/core/decimal.js';
import type { PublicTrade } from '../../src/core/types/market.js';
import { CandleAggregator, type LiveCandle } from '../../src/market/candle-aggregator.js';
import { fillGaps, resample } from '../../src/market/resample.js';

const T0 = Date.UTC(2025, 5, 1, 9, 0, 0); // a minute boundary

function trade(ms: number, price: string, qty = '1'): PublicTrade {
  return { symbol: 'USDTTMN', price: d(price), quantity: d(qty), isBuyOrder: true, timestamp: ms };
}

/** Reference: candles computed directly from a list of trades (sorted by time), empties filled. */
function direct(trades: PublicTrade[], res: number): Array<Omit<LiveCandle, 'resolution'>> {
  const sorted = [...trades].sort((a, b) => a.timestamp - b.timestamp);
  const out: Array<Omit<LiveCandle, 'resolution'>> = [];
  for (const t of sorted) {
    const time = Math.floor(t.timestamp / 1000 / res) * res;
    let last = out.at(-1);
    while (last && last.time + res < time) {
      const p = last.close;
      out.push({ time: last.time + res, open: p, high: p, low: p, close: p, volume: new Decimal(0), tradeCount: 0, empty: true });
      last = out.at(-1);
    }
    if (!last || last.time !== time) {
      out.push({ time, open: t.price, high: t.price, low: t.price, close: t.price, volume: t.quantity, tradeCount: 1, empty: false });
      continue;
    }
    last.high = Decimal.max(last.high, t.price);
    last.low = Decimal.min(last.low, t.price);
    last.close = t.price;
    last.volume = last.volume.plus(t.quantity);
    last.tradeCount++;
  }
  return out;
}

const plain = (c: Omit<LiveCandle, 'resolution'>) => ({
  time: c.time,
  o: c.open.toString(),
  h: c.high.toString(),
  l: c.low.toString(),
  c: c.close.toString(),
  v: c.volume.toString(),
  n: c.tradeCount,
  empty: c.empty,
});

describe('CandleAggregator', () => {
  it('builds the same candles as a direct computation, including empty periods', () => {
    let seed = 42;
    const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const trades: PublicTrade[] = [];
    let t = T0 + 1234;
    let price = 82_000;
    for (let i = 0; i < 3000; i++) {
      t += Math.floor(rnd() * (rnd() < 0.02 ? 400_000 : 20_000)); // occasional multi-minute silence
      price += Math.round((rnd() - 0.5) * 40);
      trades.push(trade(t, String(price), (rnd() * 10).toFixed(4)));
    }
    for (const res of [1, 60, 900]) {
      const agg = new CandleAggregator('USDTTMN', res);
      const closed: LiveCandle[] = [];
      for (const tr of trades) closed.push(...agg.addTrade(tr));
      closed.push(...agg.tick(t + res * 1000)); // the clock passes the last boundary
      expect(closed.map(plain)).toEqual(direct(trades, res).map(plain));
      expect(new Set(closed.map((c) => c.time)).size).toBe(closed.length);
    }
    const one = new CandleAggregator('USDTTMN', 60);
    const all = trades.flatMap((tr) => one.addTrade(tr));
    expect(all.filter((c) => c.empty).length).toBeGreaterThan(10);
  });

  it('closes on the clock (with a delay for stragglers), emits each candle once, never rewrites it', () => {
    const agg = new CandleAggregator('X', 60, { closeDelayMs: 1000 });
    expect(agg.tick(T0)).toEqual([]); // nothing before the first trade
    agg.addTrade(trade(T0 + 10_000, '100'));
    agg.addTrade(trade(T0 + 59_999, '101'));
    expect(agg.tick(T0 + 60_500)).toEqual([]); // inside the close delay
    agg.addTrade(trade(T0 + 59_000, '99')); // straggler, in time: counts, and is not the close
    const [c1, ...rest] = agg.tick(T0 + 61_000);
    expect(rest).toEqual([]);
    expect(plain(c1!)).toEqual({ time: T0 / 1000, o: '100', h: '101', l: '99', c: '101', v: '3', n: 3, empty: false });
    expect(agg.tick(T0 + 61_000)).toEqual([]);
    // A late trade for the closed period crosses the boundary: ignored and counted, never rewritten.
    expect(agg.addTrade(trade(T0 + 59_500, '50'))).toEqual([]);
    expect(agg.lateTrades).toBe(1);
    // Two quiet minutes: two empty candles at the previous close, by the clock.
    const empties = agg.tick(T0 + 181_000);
    expect(empties.map(plain)).toEqual([
      { time: T0 / 1000 + 60, o: '101', h: '101', l: '101', c: '101', v: '0', n: 0, empty: true },
      { time: T0 / 1000 + 120, o: '101', h: '101', l: '101', c: '101', v: '0', n: 0, empty: true },
    ]);
    // A trade exactly on a boundary opens the new period; one of a later period closes the open one.
    agg.addTrade(trade(T0 + 180_000, '102'));
    const closed = agg.addTrade(trade(T0 + 240_000, '103'));
    expect(closed.map((c) => [c.time, c.close.toString(), c.tradeCount])).toEqual([[T0 / 1000 + 180, '102', 1]]);
    expect(agg.current()?.close.toString()).toBe('103');
  });

  it('orders trades inside an open period by timestamp', () => {
    const agg = new CandleAggregator('X', 60);
    agg.addTrade(trade(T0 + 30_000, '2'));
    agg.addTrade(trade(T0 + 10_000, '1'));
    agg.addTrade(trade(T0 + 50_000, '3'));
    agg.addTrade(trade(T0 + 40_000, '4'));
    const c = agg.current()!;
    expect([c.open, c.high, c.low, c.close].map(String)).toEqual(['1', '4', '1', '3']);
    expect(() => new CandleAggregator('X', 0)).toThrow(/resolution/);
  });
});

describe('resample', () => {
  it('resampling live 1m candles equals aggregating the trades at 5m and 1h directly', () => {
    const trades: PublicTrade[] = [];
    let seed = 9;
    const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    let t = T0 + 500;
    for (let i = 0; i < 1500; i++) {
      t += Math.floor(rnd() * (rnd() < 0.05 ? 900_000 : 30_000));
      trades.push(trade(t, (100 + rnd() * 10).toFixed(2), (rnd() * 3).toFixed(3)));
    }
    const m1 = new CandleAggregator('X', 60);
    const live = trades.flatMap((tr) => m1.addTrade(tr));
    live.push(...m1.tick(t + 60_000));
    for (const res of [300, 3600]) {
      const agg = new CandleAggregator('X', res);
      const want = trades.flatMap((tr) => agg.addTrade(tr));
      want.push(...agg.tick(t + res * 1000));
      const got = resample(live, 60, res);
      expect(got.map(plain)).toEqual(want.map(plain));
    }
    expect(() => resample(live, 60, 90)).toThrow(/multiple/);
  });

  it('fillGaps inserts flagged empty candles at the previous close', () => {
    const c = (time: number, p: string) => ({ time, open: d(p), high: d(p), low: d(p), close: d(p), volume: d(1) });
    const out = fillGaps([c(180, '3'), c(0, '1'), c(60, '2'), c(60, '9')], 60);
    expect(out.map((x) => [x.time, x.close.toString(), x.empty])).toEqual([
      [0, '1', false],
      [60, '2', false],
      [120, '2', true],
      [180, '3', false],
    ]);
    expect(resample(out, 60, 120).map((x) => [x.time, x.open.toString(), x.close.toString(), x.volume.toString()])).toEqual([
      [0, '1', '2', '2'],
      [120, '3', '3', '1'],
    ]);
  });
});
