import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d, Decimal } from '../../src/core/decimal.js';
import { DuplicateOrderError, ExchangeUnavailableError, InsufficientBalanceError, NotFoundError, RequestTimeoutError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import type { SpotOrderIntent } from '../../src/core/intents.js';
import type { NewSpotOrder, SpotOrder } from '../../src/core/types/order.js';
import { ClientIdGenerator, isValidClientId } from '../../src/execution/client-id.js';
import { ExecutionEngine } from '../../src/execution/engine.js';
import { EXCHANGE_MARKET_CANCEL, type Venue } from '../../src/execution/venue.js';
import type { FillEvent } from '../../src/strategy/views.js';
import { testInstrument } from '../support/instruments.js';

/** An exchange in a Map, with scripted failures. */
class FakeVenue implements Venue {
  readonly kind = 'fake';
  readonly book = new Map<string, SpotOrder>();
  creates = 0;
  createFailures: Error[] = [];
  /** Execute the create, then throw this instead of answering (lost response). */
  loseResponse: Error | undefined;
  cancelFailures: Error[] = [];
  async createOrder(o: NewSpotOrder): Promise<SpotOrder> {
    this.creates++;
    const f = this.createFailures.shift();
    if (f) throw f;
    if (this.book.has(o.clientId)) throw new DuplicateOrderError('duplicate');
    const snap: SpotOrder = {
      symbol: o.symbol,
      type: o.type,
      side: o.side,
      clientOrderId: o.clientId,
      price: o.price ?? d(0),
      origQty: o.quantity,
      executedQty: d(0),
      executedSum: d(0),
      fee: d(0),
      status: 'NEW',
      active: true,
      fills: [],
    };
    this.book.set(o.clientId, snap);
    if (this.loseResponse) {
      const e = this.loseResponse;
      this.loseResponse = undefined;
      throw e;
    }
    return { ...snap };
  }
  async getOrder(id: string): Promise<SpotOrder> {
    const o = this.book.get(id);
    if (!o) throw new NotFoundError('no such order');
    return { ...o };
  }
  async cancelOrder(id: string): Promise<SpotOrder> {
    const f = this.cancelFailures.shift();
    if (f) throw f;
    const o = this.book.get(id);
    if (!o) throw new NotFoundError('no such order');
    o.active = false;
    o.status = 'CANCELED';
    return { ...o };
  }
  fill(id: string, qty: string, price: string, fee: string): void {
    const o = this.book.get(id)!;
    o.executedQty = o.executedQty.plus(qty);
    o.executedSum = o.executedSum!.plus(d(qty).mul(price));
    o.fee = o.fee!.plus(fee);
    if (o.executedQty.gte(o.origQty)) {
      o.active = false;
      o.status = 'FILLED';
    }
  }
  openOrders = async () => [...this.book.values()].filter((o) => o.active);
  balances = async () => ({});
  instantOrder = async () => {
    throw new Error('unused');
  };
  previewPosition = async () => {
    throw new Error('unused');
  };
  openPosition = async () => {
    throw new Error('unused');
  };
  addCollateral = async () => {
    throw new Error('unused');
  };
  closePosition = async () => {
    throw new Error('unused');
  };
  setBrackets = async () => {
    throw new Error('unused');
  };
  positions = async () => [];
}

function setup(options: Partial<import('../../src/execution/engine.js').ExecutionOptions> = {}) {
  const clock = new ManualClock(1_700_000_000_000);
  const venue = new FakeVenue();
  const released: string[] = [];
  const engine = new ExecutionEngine({
    venueFor: () => venue,
    instrument: testInstrument,
    clock,
    logger: silentLogger,
    ids: new ClientIdGenerator(clock, 'abc'),
    reservations: { release: (id) => released.push(id), settle: () => undefined },
    sleep: async () => {},
    options,
  });
  const fills: FillEvent[] = [];
  engine.on('fill', (f) => fills.push(f));
  return { clock, venue, engine, released, fills };
}

const buy = (q = '0.01', price = '60000'): SpotOrderIntent => ({
  kind: 'order',
  strategy: 'btc-grid',
  symbol: 'BTCUSDT',
  side: 'BUY',
  type: 'LIMIT',
  size: { kind: 'base', quantity: d(q) },
  price: d(price),
});

describe('ExecutionEngine', () => {
  it('gives valid, unique, prefixed client ids', () => {
    const clock = new ManualClock(5);
    const ids = new ClientIdGenerator(clock, 'x1');
    const a = ids.next('btc-grid');
    const b = ids.next('btc-grid');
    expect(a).not.toBe(b);
    expect(isValidClientId(a)).toBe(true);
    expect(a.startsWith('btcgrid_')).toBe(true);
  });

  it('a lost create response ends with exactly one order, tracked', async () => {
    const { venue, engine } = setup();
    venue.loseResponse = new RequestTimeoutError('timeout');
    const o = await engine.submitOrder(buy(), { reservationId: 'r1' });
    expect(venue.book.size).toBe(1);
    expect(venue.creates).toBe(1);
    expect(o.state).toBe('open');
  });

  it('a create that never reached the exchange is re-sent with the same client id', async () => {
    const { venue, engine } = setup();
    venue.createFailures.push(new ExchangeUnavailableError('503'));
    const o = await engine.submitOrder(buy());
    expect(venue.creates).toBe(2);
    expect([...venue.book.keys()]).toEqual([o.clientOrderId]);
    expect(o.state).toBe('open');
  });

  it('409 on create means the order exists: it is looked up, not duplicated', async () => {
    const { venue, engine, clock } = setup();
    const ids = new ClientIdGenerator(clock, 'abc');
    const id = ids.next('btc-grid');
    await venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.01'), price: d(1), clientId: id });
    const o = await engine.submitOrder(buy());
    expect(o.clientOrderId).toBe(id);
    expect(o.state).toBe('open');
    expect(venue.book.size).toBe(1);
  });

  it('a final rejection reaches the strategy as a reason and releases the reservation', async () => {
    const { venue, engine, released } = setup();
    const updates: string[] = [];
    engine.on('order', (u) => updates.push(`${u.order.state}:${u.reason ?? ''}`));
    venue.createFailures.push(new InsufficientBalanceError('Insufficient USDT balance'));
    const o = await engine.submitOrder(buy(), { reservationId: 'r9' });
    expect(o.state).toBe('rejected');
    expect(updates).toEqual(['rejected:Insufficient USDT balance']);
    expect(released).toEqual(['r9']);
  });

  it("a market order the exchange cancelled unfilled reaches the strategy with the exchange's rule as its reason", async () => {
    const { venue, engine } = setup();
    const updates: string[] = [];
    engine.on('order', (u) => updates.push(`${u.order.state}:${u.reason ?? ''}`));
    const o = await engine.submitOrder({ ...buy(), type: 'MARKET', price: undefined });
    const snap = venue.book.get(o.clientOrderId)!;
    snap.active = false;
    snap.status = 'CANCELED';
    engine.onSnapshot(await venue.getOrder(o.clientOrderId));
    expect(o.state).toBe('cancelled');
    expect(o.reason).toBe(EXCHANGE_MARKET_CANCEL);
    expect(updates.at(-1)).toBe(`cancelled:${EXCHANGE_MARKET_CANCEL}`);
    // A limit order the strategy cancels carries no such reason.
    const l = await engine.submitOrder(buy());
    await engine.cancel(l.clientOrderId);
    expect(l.state).toBe('cancelled');
    expect(updates.at(-1)).toBe('cancelled:');
  });

  it('books each fill once, however often the same snapshot is seen', async () => {
    const { venue, engine, fills, released } = setup();
    const o = await engine.submitOrder(buy('1', '100'), { reservationId: 'r2' });
    venue.fill(o.clientOrderId, '0.4', '100', '0.0008');
    await engine.pollOnce();
    engine.onSnapshot(await venue.getOrder(o.clientOrderId));
    expect(fills).toHaveLength(1);
    expect(fills[0]!.quantity.toFixed()).toBe('0.4');
    expect(o.state).toBe('partially_filled');
    venue.fill(o.clientOrderId, '0.6', '99', '0.0012');
    engine.onSnapshot(await venue.getOrder(o.clientOrderId));
    engine.onSnapshot(await venue.getOrder(o.clientOrderId));
    expect(fills).toHaveLength(2);
    expect(fills[1]!.price.toFixed()).toBe('99');
    expect(fills[1]!.fee.toFixed()).toBe('0.0012');
    expect(o.state).toBe('filled');
    expect(o.filledQuote.div(o.filled).toFixed()).toBe(new Decimal('99.4').toFixed());
    expect(released).toEqual(['r2']);
  });

  it('retries a cancel until the exchange confirms', async () => {
    const { venue, engine } = setup();
    const o = await engine.submitOrder(buy());
    venue.cancelFailures.push(new ExchangeUnavailableError('503'), new RequestTimeoutError('t'));
    await engine.cancel(o.clientOrderId);
    expect(o.state).toBe('cancelled');
    expect(venue.book.get(o.clientOrderId)!.active).toBe(false);
  });
});

describe('ExecutionEngine: final orders leave the hot set (issue 15.4)', () => {
  it('liveOrders, cancelAll and pollOnce see only live orders; final ones stay in orders by default (backtests read them all)', async () => {
    const { engine, venue } = setup();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await engine.submitOrder(buy())).clientOrderId);
    for (const id of ids.slice(0, 4)) venue.fill(id, '0.01', '60000', '0');
    await engine.pollOnce();
    expect(engine.liveOrders().map((o) => o.clientOrderId)).toEqual(ids.slice(4));
    expect(engine.orders.size).toBe(6);
    // A poll reads the live orders only: 2 reads, not 6.
    let reads = 0;
    const get = venue.getOrder.bind(venue);
    venue.getOrder = (id) => {
      reads++;
      return get(id);
    };
    const { clock } = { clock: (engine as unknown as { deps: { clock: ManualClock } }).deps.clock };
    clock.advance(60_000);
    await engine.pollOnce();
    expect(reads).toBe(2);
    // None of the hot paths walks every order ever placed.
    const walked = { n: 0 };
    const values = engine.orders.values.bind(engine.orders);
    engine.orders.values = () => {
      walked.n++;
      return values();
    };
    engine.liveOrders({ strategy: 'btc-grid' });
    await engine.pollOnce();
    await engine.cancelAll('BTCUSDT');
    expect(walked.n).toBe(0);
    expect(engine.liveOrders()).toEqual([]);
    expect([...engine.orders.values()].map((o) => o.state)).toEqual(['filled', 'filled', 'filled', 'filled', 'cancelled', 'cancelled']);
  });

  it('retainFinal keeps only the most recent final orders in orders; live ones are never dropped', async () => {
    const { engine, venue } = setup({ retainFinal: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await engine.submitOrder(buy())).clientOrderId);
    for (const id of ids.slice(0, 4)) venue.fill(id, '0.01', '60000', '0');
    await engine.pollOnce();
    expect([...engine.orders.keys()]).toEqual([ids[2], ids[3], ids[4]]);
    expect(engine.liveOrders().map((o) => o.clientOrderId)).toEqual([ids[4]]);
    await engine.cancel(ids[4]!);
    expect([...engine.orders.keys()]).toEqual([ids[3], ids[4]]);
  });

  it('keepRetiredOwners: the owner of a dropped final order is still known; submitted counts every order', async () => {
    const { engine, venue } = setup({ retainFinal: 2, keepRetiredOwners: true });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await engine.submitOrder(buy())).clientOrderId);
    for (const id of ids) venue.fill(id, '0.01', '60000', '0');
    await engine.pollOnce();
    expect([...engine.orders.keys()]).toEqual([ids[3], ids[4]]);
    expect(engine.submitted).toBe(5);
    expect(engine.ownerOf(ids[0]!)).toBe(buy().strategy);
    expect(engine.ownerOf(ids[4]!)).toBe(buy().strategy);
    expect(engine.ownerOf('never-placed')).toBeUndefined();
    // Without the option a dropped order's owner is unknown (live: the journal has it).
    const plain = setup({ retainFinal: 2 });
    const first = (await plain.engine.submitOrder(buy())).clientOrderId;
    for (let i = 0; i < 3; i++) await plain.engine.submitOrder(buy());
    for (const o of [...plain.engine.orders.values()]) plain.venue.fill(o.clientOrderId, '0.01', '60000', '0');
    await plain.engine.pollOnce();
    expect(plain.engine.ownerOf(first)).toBeUndefined();
  });

  it('adopted orders from the journal join the live index when they are not final', () => {
    const { engine } = setup();
    const base = {
      strategy: 's',
      account: 'main',
      symbol: 'BTCUSDT',
      side: 'BUY' as const,
      type: 'LIMIT',
      quantity: d('1'),
      filled: d('0'),
      filledQuote: d('0'),
      fee: d('0'),
      createdAt: 0,
      updatedAt: 0,
      quietPolls: 0,
    };
    engine.adopt([
      { ...base, clientOrderId: 'a', state: 'open' },
      { ...base, clientOrderId: 'b', state: 'filled' },
    ]);
    expect(engine.liveOrders().map((o) => o.clientOrderId)).toEqual(['a']);
  });
});
