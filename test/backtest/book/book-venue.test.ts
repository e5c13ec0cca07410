/**
 * The book backtest's venue, by hand-computed numbers: a resting limit order filled after the
 * queue ahead of it is eaten (maker fee in the received asset, locks and balances exact at each
 * step); the latency race a cancel loses; a market buy walking two levels and one beyond the 2 %
 * bound; the exchange's refusals leaving nothing locked; fills pushed before the order's update.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { Decimal } from '../../../src/core/decimal.js';
import { InsufficientBalanceError, ValidationError } from '../../../src/core/errors.js';
import type { SpotOrder } from '../../../src/core/types/index.js';
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

describe('BookVenue', () => {
  it('a resting LIMIT BUY fills after the queue ahead of it is eaten, at its price, with the maker fee in BTC', async () => {
    const { venue, to, bal } = setup();
    venue.snapshot('BTCUSDT', 0, [lv(100, 5)], [lv(101, 5)]);
    const answer = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(1), price: d(100), clientId: 'b1' });
    expect(bal('USDT')).toEqual(['10000', '100']); // locked at once
    await to(10);
    const placed = await answer;
    expect([placed.status, placed.executedQty.toFixed()]).toEqual(['NEW', '0']);
    venue.trade('BTCUSDT', 20, d(100), d(4), false); // a seller hits 4 of the 5 ahead
    expect((await venue.getOrder('b1')).executedQty.toFixed()).toBe('0');
    venue.trade('BTCUSDT', 30, d(100), d(2), false); // 1 ahead left: the other 1 is ours
    const o = await venue.getOrder('b1');
    expect([o.status, o.executedQty.toFixed(), o.fee!.toFixed()]).toEqual(['FILLED', '1', '0.001']);
    expect(bal('USDT')).toEqual(['9900', '0']);
    expect(bal('BTC')).toEqual(['1.999', '0']);
    expect(venue.fills().map((f) => [f.liquidity, f.price.toFixed(), f.quantity.toFixed(), f.sentAt, f.liveAt, f.t])).toEqual([
      ['maker', '100', '1', 0, 10, 30],
    ]);
  });

  it('the latency race: a print before the cancel takes effect fills the order; the cancel is refused', async () => {
    const { venue, to, bal } = setup(10);
    venue.snapshot('BTCUSDT', 0, [lv(100, 5)], [lv(101, 0.5)]);
    const placed = venue.createOrder({ symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', quantity: d('0.5'), price: d(101), clientId: 's1' });
    await to(10);
    await placed;
    expect(bal('BTC')).toEqual(['1', '0.5']);
    await to(20);
    const refused = venue.cancelOrder('s1').then(
      () => undefined,
      (err: unknown) => err,
    ); // takes effect at 30
    venue.trade('BTCUSDT', 25, d(102), d(1), true); // through the price at 25: fills it whole first
    await to(30);
    const err = await refused;
    expect(err).toBeInstanceOf(ValidationError);
    expect(String(err)).toMatch(/already fully executed/);
    const o = await venue.getOrder('s1');
    expect([o.status, o.executedQty.toFixed()]).toEqual(['FILLED', '0.5']);
    expect(bal('BTC')).toEqual(['0.5', '0']);
    expect(bal('USDT')).toEqual(['10050.4495', '0']); // 50.5 less the maker fee 0.0505

    // Cancelled in time: the funds come back.
    const p2 = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(1), price: d(99), clientId: 'b2' });
    await to(40);
    await p2;
    const c2 = venue.cancelOrder('b2');
    await to(50);
    expect((await c2).status).toBe('CANCELED');
    expect(bal('USDT')).toEqual(['10050.4495', '0']);
  });

  it('a MARKET BUY walks two levels as taker; one beyond the 2 % bound is cancelled unfilled, its lock released', async () => {
    const { venue, to, bal } = setup(0);
    venue.snapshot('BTCUSDT', 0, [lv(100, 5)], [lv(101, 0.5), lv(102, 1)]);
    const a = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: d(1), clientId: 'm1' });
    await to(0);
    const o = await a;
    expect([o.status, o.executedQty.toFixed(), o.executedSum!.toFixed(), o.fee!.toFixed()]).toEqual(['FILLED', '1', '101.5', '0.002']);
    expect(bal('USDT')).toEqual(['9898.5', '0']);
    expect(bal('BTC')).toEqual(['1.998', '0']);

    venue.snapshot('BTCUSDT', 1, [lv(100, 5)], [lv(101, 0.1), lv(110, 5)]);
    const b = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: d(1), clientId: 'm2' });
    await to(1);
    const o2 = await b;
    expect([o2.status, o2.executedQty.toFixed()]).toEqual(['CANCELED', '0']);
    expect(bal('USDT')).toEqual(['9898.5', '0']);
  });

  it('refusals answer at once and leave nothing locked', async () => {
    const { venue, bal } = setup();
    venue.snapshot('BTCUSDT', 0, [lv(100, 5)], [lv(101, 5)]);
    const small = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.01'), price: d(100), clientId: 'x1' });
    await expect(small).rejects.toBeInstanceOf(ValidationError);
    const big = venue.createOrder({ symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', quantity: d(2), price: d(101), clientId: 'x2' });
    await expect(big).rejects.toBeInstanceOf(InsufficientBalanceError);
    expect(bal('USDT')).toEqual(['10000', '0']);
    expect(bal('BTC')).toEqual(['1', '0']);
    expect(await venue.openOrders()).toEqual([]);
  });

  it('pushes each fill before the order update that shows it', async () => {
    const { venue, to } = setup(0);
    const seen: string[] = [];
    venue.onFill((id, f) => seen.push(`fill ${id} ${f.quantity.toFixed()}@${f.price.toFixed()} fee ${f.fee.toFixed()} ${f.feeAsset}`));
    venue.onOrderUpdate((o: SpotOrder) => seen.push(`order ${o.clientOrderId} ${o.status} ${o.executedQty.toFixed()}`));
    venue.snapshot('BTCUSDT', 0, [lv(100, 5)], [lv(101, 5)]);
    const a = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(1), price: d(101), clientId: 't1' });
    await to(0);
    await a;
    expect(seen).toEqual(['order t1 NEW 0', 'fill t1 1@101 fee 0.002 BTC', 'order t1 FILLED 1']);
  });

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
