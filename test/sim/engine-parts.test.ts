import { describe, it, expect } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import { createDefaultSimulator, createTestAccount } from '../../src/sim/default.js';
import { SlidingWindowLimiter } from '../../src/sim/rate-limiter.js';
import { CandleStore } from '../../src/sim/candles.js';
import { makeSim } from './helpers.js';

describe('simulator parts', () => {
  it('is deterministic for a seed: same books, keys and order ids', () => {
    const run = (seed: number) => {
      const sim = createDefaultSimulator({ clock: new ManualClock(1_700_000_000_000), seed });
      const acc = createTestAccount(sim);
      const o = sim.placeOrder(acc.accountId, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.001'), price: d('60000') });
      const book = sim.book('ETHTMN');
      return JSON.stringify({ key: acc.apiKey, id: o.clientOrderId, bids: book.bids.slice(0, 5), asks: book.asks.slice(0, 5) });
    };
    expect(run(11)).toBe(run(11));
    expect(run(11)).not.toBe(run(12));
  });

  it('starts every default market with 50 levels a side on its grids', () => {
    const sim = createDefaultSimulator({ clock: new ManualClock(0), seed: 1 });
    for (const m of sim.markets()) {
      const b = sim.book(m.symbol);
      expect(b.bids).toHaveLength(50);
      expect(b.asks).toHaveLength(50);
      expect(b.bids[0]!.price.lt(b.asks[0]!.price)).toBe(true);
      for (const l of [...b.bids, ...b.asks]) {
        expect(l.price.decimalPlaces()).toBeLessThanOrEqual(m.tickSize);
        expect(l.quantity.decimalPlaces()).toBeLessThanOrEqual(m.stepSize);
      }
    }
  });

  it('limits calls in a sliding window', () => {
    const clock = new ManualClock(0);
    const lim = new SlidingWindowLimiter(clock, 3, 1000);
    expect([lim.take('a').allowed, lim.take('a').allowed, lim.take('a').allowed, lim.take('a').allowed]).toEqual([true, true, true, false]);
    expect(lim.take('b').allowed).toBe(true);
    expect(lim.peek('a').retryAfterMs).toBe(1000);
    clock.advance(1000);
    expect(lim.take('a')).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('aggregates candles into the asked resolution and extends them with trades', () => {
    const store = new CandleStore();
    const c = (time: number, o: string, h: string, l: string, cl: string, v: string) => ({
      time,
      open: d(o),
      high: d(h),
      low: d(l),
      close: d(cl),
      volume: d(v),
    });
    store.set('BTCUSDT', [c(3600, '10', '12', '9', '11', '1'), c(3660, '11', '15', '10', '14', '2'), c(7200, '14', '14', '13', '13', '3')]);
    const hourly = store.history('BTCUSDT', 3600, 3600, 7200);
    expect(hourly.map((x) => [x.time, x.open.toFixed(), x.high.toFixed(), x.low.toFixed(), x.close.toFixed(), x.volume.toFixed()])).toEqual([
      [3600, '10', '15', '9', '14', '3'],
      [7200, '14', '14', '13', '13', '3'],
    ]);
    store.record('BTCUSDT', d('16'), d('0.5'), 7_230_000);
    expect(store.history('BTCUSDT', 60, 7200, 7200)[0]!.high.toFixed()).toBe('16');
  });

  it('tracks 24h statistics from trades', () => {
    const { sim, clock } = makeSim(1_700_000_000_000);
    sim.recordTrade({ symbol: 'BTCUSDT', price: d('100'), quantity: d('1'), isBuyOrder: true, timestamp: clock.now() });
    clock.advance(3_600_000);
    sim.recordTrade({ symbol: 'BTCUSDT', price: d('110'), quantity: d('2'), isBuyOrder: false, timestamp: clock.now() });
    const s = sim.marketSnapshot('BTCUSDT');
    expect([s.change24h, s.volume24h.toFixed(), s.quoteVolume24h.toFixed(), s.high24h!.toFixed(), s.low24h!.toFixed()]).toEqual([10, '3', '320', '110', '100']);
    expect([s.lastTradeSide, s.directionBuy, s.directionSell]).toEqual(['SELL', 50, 50]);
    clock.advance(25 * 3_600_000);
    expect(sim.marketSnapshot('BTCUSDT').volume24h.toFixed()).toBe('0');
  });
});
