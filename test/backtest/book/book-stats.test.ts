/**
 * The book backtest's metrics by hand numbers: one maker fill after 15 ms in the queue, the mid
 * 50 bps up a second later and 100 bps down ten seconds later, one order of two filled.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { Decimal } from '../../../src/core/decimal.js';
import { defaultMarketSpecs } from '../../../src/sim/markets.js';
import { BookVenue } from '../../../src/backtest/book/book-venue.js';
import { BookStats } from '../../../src/backtest/book/book-stats.js';
import { settle } from '../../../src/backtest/book/replay.js';
import { VirtualTime } from '../../../src/backtest/book/virtual-time.js';

const d = (v: string | number) => new Decimal(v);
const lv = (price: number, quantity: number) => ({ price: d(price), quantity: d(quantity) });
const BTCUSDT = { ...defaultMarketSpecs().find((m) => m.symbol === 'BTCUSDT')!, makerFee: d('0.001'), takerFee: d('0.002') };

function setup(latency = 10) {
  const clock = new ManualClock(0);
  const time = new VirtualTime(clock);
  const venue = new BookVenue({
    clock,
    at: (ms) => time.at(ms),
    markets: [BTCUSDT],
    balances: { USDT: d(10_000), BTC: d(1) },
    fill: { queueModel: 'risk-averse', entryLatencyMs: latency, cancelLatencyMs: latency },
  });
  /** Simulated time to `t`: what falls due fires (answers arrive), then the venue's entries and cancels due by then. */
  const to = async (t: number) => {
    while (time.nextAt() <= t) {
      time.fireNext();
      await settle();
    }
    if (t > clock.now()) clock.set(t);
    venue.advance(t);
    await settle();
  };
  const bal = (asset: string) => {
    const b = venue.balance(asset)!;
    return [b.value.toFixed(), b.locked.toFixed()];
  };
  return { clock, time, venue, to, bal };
}

describe('BookStats', () => {
  it('book metrics: fill ratio, queue time and the mid move after a fill, by hand', async () => {
    const { venue, time, to } = setup(10);
    let mid = d(100.5);
    const stats = new BookStats(venue, time, () => mid);
    venue.snapshot('BTCUSDT', 0, [lv(100, 1)], [lv(101, 5)]);
    const a = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(1), price: d(100), clientId: 'q1' });
    const b = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(1), price: d(90), clientId: 'q2' });
    await to(10);
    await Promise.all([a, b]);
    venue.trade('BTCUSDT', 25, d(100), d(2), false); // 1 ahead, then ours: filled at 25, live since 10
    await to(1025); // mid 100.5 a second later: +50 bps for a buy at 100
    mid = d(99);
    await to(10_025); // 99 ten seconds later: -100 bps
    expect(stats.result()).toEqual({
      fills: 1,
      makerFills: 1,
      takerFills: 0,
      markets: { BTCUSDT: { orders: 2, filledOrders: 1, fillRatioPct: 50, quantityFillRatioPct: 50 } },
      queueTimeMs: { mean: 15, median: 15 },
      adverseSelectionBps: { '1000': { mean: 50, fills: 1 }, '10000': { mean: -100, fills: 1 } },
    });
  });
});
