import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { d, type Decimal } from '../../../src/core/decimal.js';
import { InsufficientBalanceError, MethodNotAllowedError, NotFoundError, ValidationError } from '../../../src/core/errors.js';
import type { SpotOrder } from '../../../src/core/types/index.js';
import type { TradeDetail } from '../../../src/execution/tracked-order.js';
import { BookVenue } from '../../../src/backtest/book/book-venue.js';
import type { BookFillOptions } from '../../../src/backtest/book/fill-engine.js';
import { defaultMarketSpecs, type MarketSpec } from '../../../src/sim/markets.js';
import { SimulatedExchange } from '../../../src/sim/exchange.js';
import { SimVenue } from '../../../src/venues/sim-venue.js';

const MARKET: MarketSpec = {
  symbol: 'BTCUSDT',
  baseAsset: 'BTC',
  quoteAsset: 'USDT',
  baseAssetPrecision: 8,
  quoteAssetPrecision: 2,
  faName: 'BTC',
  faBaseAsset: 'BTC',
  faQuoteAsset: 'USDT',
  stepSize: 4,
  tickSize: 2,
  minQty: d('0.0001'),
  maxQty: d(100),
  minNotional: d(1),
  makerFee: d('0.001'),
  takerFee: d('0.002'),
  createdAt: '2024-01-01T00:00:00.000000Z',
};
const lv = (price: number, quantity: number | string) => ({ price: d(price), quantity: d(quantity) });

/** A venue, its clock and a hand-driven `at()`: `to(ms)` moves the clock, applies what is due and resolves the waits. */
function setup(o: { markets?: MarketSpec[]; balances?: Record<string, Decimal>; fill?: Partial<BookFillOptions>; start?: number } = {}) {
  const clock = new ManualClock(o.start ?? 0);
  let waits: { ms: number; resolve: () => void }[] = [];
  const venue = new BookVenue({
    clock,
    at: (ms) =>
      new Promise<void>((resolve) => {
        if (ms <= clock.now()) resolve();
        else waits.push({ ms, resolve });
      }),
    markets: o.markets ?? [MARKET],
    balances: o.balances ?? { USDT: d(1000) },
    fill: { queueModel: 'risk-averse', entryLatencyMs: 10, cancelLatencyMs: 10, ...o.fill },
  });
  const to = (ms: number) => {
    clock.set(ms);
    venue.advance(ms);
    const due = waits.filter((w) => w.ms <= ms);
    waits = waits.filter((w) => w.ms > ms);
    for (const w of due) w.resolve();
  };
  const bal = (asset: string) => {
    const b = venue.balance(asset);
    return b ? `${b.value.toFixed()}/${b.locked.toFixed()}` : 'none';
  };
  return { clock, venue, to, bal };
}

describe('BookVenue', () => {
  it('fills a LIMIT BUY resting behind 5 once prints eat the queue, maker fee in the base asset', async () => {
    const { venue, to, bal } = setup();
    venue.snapshot('BTCUSDT', 0, [lv(100, 5)], [lv(101, 3)]);
    const sent = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(1), price: d(100), clientId: 'b1' });
    // Locked at once: 1 × 100 USDT.
    expect(bal('USDT')).toBe('1000/100');
    to(10); // live, 5 ahead
    const answer = await sent;
    expect(answer.status).toBe('NEW');
    expect(answer.executedQty.toFixed()).toBe('0');
    venue.trade('BTCUSDT', 20, d(100), d(3), false); // 2 ahead
    expect(venue.fills()).toHaveLength(0);
    venue.trade('BTCUSDT', 30, d(100), d('2.5'), false); // 0 ahead, 0.5 fills
    // Paid 50 USDT out of the lock; got 0.5 BTC less 0.1 % = 0.4995.
    expect(bal('USDT')).toBe('950/50');
    expect(bal('BTC')).toBe('0.4995/0');
    let o = await venue.getOrder('b1');
    expect([o.status, o.executedQty.toFixed(), o.fee!.toFixed()]).toEqual(['NEW', '0.5', '0.0005']);
    venue.trade('BTCUSDT', 40, d(100), d(1), false); // the other 0.5
    expect(bal('USDT')).toBe('900/0');
    expect(bal('BTC')).toBe('0.999/0');
    o = await venue.getOrder('b1');
    expect([o.status, o.active, o.executedQty.toFixed(), o.fee!.toFixed()]).toEqual(['FILLED', false, '1', '0.001']);
    expect(await venue.openOrders()).toEqual([]);
    expect(
      venue.fills().map((f) => `${f.t} ${f.price.toFixed()} ${f.quantity.toFixed()} ${f.fee.toFixed()} ${f.feeAsset} ${f.liquidity} ${f.sentAt}/${f.liveAt}`),
    ).toEqual(['30 100 0.5 0.0005 BTC maker 0/10', '40 100 0.5 0.0005 BTC maker 0/10']);
  });

  it('loses the latency race: a print before the cancel takes effect fills the order and the cancel rejects 422', async () => {
    const { venue, to, bal } = setup();
    venue.snapshot('BTCUSDT', 0, [lv(99, 2)], [lv(101, 1)]);
    const sent = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(1), price: d(100), clientId: 'r1' });
    to(10);
    expect((await sent).status).toBe('NEW');
    to(20);
    const cancel = venue.cancelOrder('r1'); // takes effect at 30
    const outcome = cancel.then(
      () => 'resolved',
      (e: unknown) => e,
    );
    venue.trade('BTCUSDT', 25, d(100), d(1), false);
    to(30);
    const err = await outcome;
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).fields).toEqual({ client_id: ['order r1 is already fully executed'] });
    const o = await venue.getOrder('r1');
    expect([o.status, o.active, o.executedQty.toFixed()]).toEqual(['FILLED', false, '1']);
    expect(bal('USDT')).toBe('900/0');
    expect(bal('BTC')).toBe('0.999/0');
  });

  it('cancels an order when no fill comes first, releasing its lock at the moment the cancel takes effect', async () => {
    const { venue, to, bal } = setup({ balances: { BTC: d(2) } });
    venue.snapshot('BTCUSDT', 0, [lv(99, 2)], [lv(101, 1)]);
    const sent = venue.createOrder({ symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', quantity: d(1), price: d(102), clientId: 's1' });
    expect(bal('BTC')).toBe('2/1');
    to(10);
    await sent;
    const cancel = venue.cancelOrder('s1'); // sent at 10, takes effect at 20
    venue.trade('BTCUSDT', 15, d(101), d(1), true); // below its price: no fill
    to(20);
    const done = await cancel;
    expect([done.status, done.active, done.updatedAt]).toEqual(['CANCELED', false, new Date(20).toISOString()]);
    expect(bal('BTC')).toBe('2/0');
    await expect(venue.cancelOrder('s1')).rejects.toBeInstanceOf(ValidationError);
  });

  it('walks two levels with a MARKET BUY (taker fees) and cancels one beyond 2 % unfilled, lock released', async () => {
    const { venue, to, bal } = setup();
    venue.snapshot('BTCUSDT', 0, [lv(100, 1)], [lv(101, 1), lv(102, 1)]);
    const m1 = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: d('1.5'), clientId: 'm1' });
    // The planned walk: 1 × 101 + 0.5 × 102 = 152.
    expect(bal('USDT')).toBe('1000/152');
    to(10);
    const o1 = await m1;
    expect([o1.status, o1.executedQty.toFixed(), o1.executedSum!.toFixed(), o1.fee!.toFixed()]).toEqual(['FILLED', '1.5', '152', '0.003']);
    expect(o1.fills.map((f) => `${f.price.toFixed()} ${f.quantity.toFixed()} ${f.fee.toFixed()}`)).toEqual(['101 1 0.002', '102 0.5 0.001']);
    expect(venue.fills().map((f) => f.liquidity)).toEqual(['taker', 'taker']);
    expect(bal('USDT')).toBe('848/0');
    expect(bal('BTC')).toBe('1.497/0');

    venue.snapshot('BTCUSDT', 15, [lv(100, 1)], [lv(101, 1), lv(104, 5)]);
    to(15);
    const m2 = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: d(2), clientId: 'm2' });
    expect(bal('USDT')).toBe('848/205'); // 101 + 104
    to(25);
    const o2 = await m2;
    // 104 is 2.97 % above the best ask 101 (the reference, no trade yet): cancelled unfilled.
    expect([o2.status, o2.active, o2.executedQty.toFixed()]).toEqual(['CANCELED', false, '0']);
    expect(bal('USDT')).toBe('848/0');
    expect(venue.fills()).toHaveLength(2);
  });

  it('a side frame moves the queue of a resting order', async () => {
    const { venue, to, bal } = setup();
    venue.snapshot('BTCUSDT', 0, [lv(100, 5)], [lv(101, 3)]);
    const sent = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(1), price: d(100), clientId: 'q1' });
    to(10); // live, 5 ahead
    await sent;
    venue.side('BTCUSDT', 15, 'bid', [lv(100, 1)]); // risk-averse: ahead = min(5, 1) = 1
    venue.trade('BTCUSDT', 20, d(100), d('1.5'), false); // 1 eats the queue, 0.5 fills
    expect(venue.fills().map((f) => `${f.t} ${f.quantity.toFixed()} ${f.liquidity}`)).toEqual(['20 0.5 maker']);
    expect(bal('USDT')).toBe('950/50');
  });

  it('a MARKET BUY whose walk costs more when it goes live than the free balance covers ends cancelled with what filled', async () => {
    const { venue, to, bal } = setup({ balances: { USDT: d(152) } });
    venue.snapshot('BTCUSDT', 0, [lv(100, 1)], [lv(101, 1), lv(102, 1)]);
    const sent = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: d('1.5'), clientId: 'm1' });
    expect(bal('USDT')).toBe('152/152'); // 101 + 0.5 × 102
    venue.side('BTCUSDT', 5, 'ask', [lv(101, '0.5'), lv(102, 1)]); // now 0.5 × 101 + 1 × 102 = 152.5
    to(10);
    const o = await sent;
    // 0.5 @ 101 settles (50.5); 1 @ 102 needs 0.5 more than is locked and nothing is free: cancelled.
    expect([o.status, o.active, o.executedQty.toFixed()]).toEqual(['CANCELED', false, '0.5']);
    expect(bal('USDT')).toBe('101.5/0');
    expect(bal('BTC')).toBe('0.499/0');
  });

  it('refuses below the minimum total (422 naming the field) and beyond the free balance (402), locking nothing', async () => {
    const { venue, bal } = setup();
    venue.snapshot('BTCUSDT', 0, [lv(100, 1)], [lv(101, 1)]);
    const small = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.001'), price: d(100), clientId: 'x1' });
    const err = await small.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).fields).toEqual({ quantity: ['order total 0.1 USDT is below the minimum 1 USDT'] });
    await expect(venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(20), price: d(100), clientId: 'x2' })).rejects.toBeInstanceOf(
      InsufficientBalanceError,
    );
    expect(bal('USDT')).toBe('1000/0');
    expect(await venue.openOrders()).toEqual([]);
    await expect(venue.getOrder('x2')).rejects.toBeInstanceOf(NotFoundError);
    await expect(venue.instantOrder({ symbol: 'BTCUSDT', side: 'BUY', quantity: d(1) })).rejects.toBeInstanceOf(MethodNotAllowedError);
    await expect(venue.positions()).rejects.toBeInstanceOf(MethodNotAllowedError);
  });

  it('pushes each fill to onFill before the order to onOrderUpdate, in the same shapes as SimVenue', async () => {
    const spec = defaultMarketSpecs().find((m) => m.symbol === 'BTCUSDT')!;
    const start = 1_700_000_000_000;
    const plain = (x: unknown): unknown => JSON.parse(JSON.stringify(x));
    const watch = (v: { onFill(l: (id: string, f: TradeDetail) => void): () => void; onOrderUpdate(l: (o: SpotOrder) => void): () => void }) => {
      const seen: string[] = [];
      const fills: TradeDetail[] = [];
      const orders: SpotOrder[] = [];
      v.onFill((id, f) => {
        seen.push(`fill ${id}`);
        fills.push(f);
      });
      v.onOrderUpdate((o) => {
        seen.push(`order ${o.clientOrderId} ${o.status} ${o.fills.length}`);
        orders.push(o);
      });
      return { seen, fills, orders };
    };

    const simClock = new ManualClock(start);
    const sim = new SimulatedExchange({ clock: simClock, seed: 7 });
    sim.replaceBookSide('BTCUSDT', 'ask', [lv(60010, 1)]);
    sim.replaceBookSide('BTCUSDT', 'bid', [lv(59990, 1)]);
    sim.setLastPrice('BTCUSDT', d(60000));
    sim.createAccount({ id: 'a1', balances: { USDT: '100000' } });
    const simVenue = new SimVenue({ sim, account: 'a1', kind: 'backtest' });
    const simSeen = watch(simVenue);
    await simVenue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: d('0.5'), clientId: 'm1' });

    const { venue, to } = setup({ markets: [spec], balances: { USDT: d(100000) }, fill: { entryLatencyMs: 0 }, start });
    const bookSeen = watch(venue);
    venue.snapshot('BTCUSDT', start, [lv(59990, 1)], [lv(60010, 1)]);
    venue.trade('BTCUSDT', start, d(60000), d('0.1'), true);
    const answer = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: d('0.5'), clientId: 'm1' });
    to(start);
    await answer;

    expect(bookSeen.seen).toEqual(['order m1 NEW 0', 'fill m1', 'order m1 FILLED 1']);
    expect(simSeen.seen.filter((s) => s.startsWith('fill'))).toEqual(['fill m1']);
    expect(simSeen.seen.indexOf('fill m1')).toBeLessThan(simSeen.seen.indexOf('order m1 FILLED 1'));
    expect(plain(bookSeen.fills)).toEqual(plain(simSeen.fills));
    expect(plain(bookSeen.orders.at(-1))).toEqual(plain(simSeen.orders.at(-1)));
    expect((await venue.balances()).BTC).toEqual((await simVenue.balances()).BTC);
  });
});
