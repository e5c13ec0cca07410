/**
 * The private-stream tracker on the real ExecutionEngine, with the stream's events fed in order by
 * hand (the orders of arrival the wire cannot force): whichever of a tradeDetails and a REST
 * snapshot shows a fill first books it, the other books nothing; orderSaved never books a fill.
 */
import { EventEmitter } from 'eventemitter3';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d, Decimal } from '../../src/core/decimal.js';
import { NotFoundError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import type { NewSpotOrder, SpotOrder } from '../../src/core/types/order.js';
import type { PrivateStreamEvents } from '../../src/exchange/stream/private-client.js';
import type { PrivateOrderUpdate, PrivateTrade } from '../../src/exchange/stream/private-parse.js';
import { ClientIdGenerator } from '../../src/execution/client-id.js';
import { ExecutionEngine, type Timers } from '../../src/execution/engine.js';
import { PrivateStreamTracker, type OrphanUpdate } from '../../src/venues/private-stream.js';
import type { Venue } from '../../src/execution/venue.js';
import type { FillEvent } from '../../src/strategy/views.js';
import { testInstrument } from '../support/instruments.js';

/** Answers getOrder with whatever the test set; counts reads. */
class ScriptedVenue {
  readonly kind = 'live';
  snaps = new Map<string, SpotOrder>();
  reads = 0;
  async createOrder(o: NewSpotOrder): Promise<SpotOrder> {
    const s = snap(o.clientId, { executedQty: d(0) });
    this.snaps.set(o.clientId, s);
    return s;
  }
  async getOrder(id: string): Promise<SpotOrder> {
    this.reads++;
    const s = this.snaps.get(id);
    if (!s) throw new NotFoundError('no such order');
    return s;
  }
}

function snap(id: string, over: Partial<SpotOrder>): SpotOrder {
  return {
    symbol: 'USDTTMN',
    type: 'LIMIT',
    side: 'BUY',
    clientOrderId: id,
    price: d(80000),
    origQty: d(10),
    executedQty: d(0),
    executedSum: d(0),
    fee: d(0),
    status: 'NEW',
    active: true,
    fills: [],
    ...over,
  };
}

const detail = (id: string, q: string, fee: string, price = '80000'): PrivateTrade => ({
  clientOrderId: id,
  symbol: 'USDTTMN',
  side: 'BUY',
  price: d(price),
  quantity: d(q),
  sum: d(price).mul(q),
  fee: d(fee),
  feeAsset: 'USDT',
  isMaker: true,
  timestamp: 1,
});
const saved = (id: string, executed: string, active = true, status = 'NEW'): PrivateOrderUpdate => ({
  clientOrderId: id,
  symbol: 'USDTTMN',
  side: 'BUY',
  price: d(80000),
  origQty: d(10),
  executedQty: d(executed),
  status,
  active,
  timestamp: 1,
});

function setup() {
  const clock = new ManualClock(1_000_000);
  const venue = new ScriptedVenue();
  const pending: (() => void)[] = [];
  const timers: Timers = { setTimeout: (fn) => pending.push(fn), clearTimeout: () => undefined };
  const engine = new ExecutionEngine({
    venueFor: () => venue as unknown as Venue,
    instrument: testInstrument,
    clock,
    logger: silentLogger,
    ids: new ClientIdGenerator(clock, 't'),
    sleep: async () => {},
    options: { fastPollMs: 100, slowPollMs: 100, coveredPollMs: 10_000 },
  });
  const stream = Object.assign(new EventEmitter<PrivateStreamEvents>(), { isUp: true });
  const tracker = new PrivateStreamTracker({ engine, stream, clock, logger: silentLogger, timers, graceMs: 500 });
  tracker.start();
  const fills: FillEvent[] = [];
  engine.on('fill', (f) => fills.push(f));
  const orphans: OrphanUpdate[] = [];
  tracker.on('orphan', (o) => orphans.push(o));
  const place = async () =>
    (
      await engine.submitOrder({
        kind: 'order',
        strategy: 'ps',
        symbol: 'USDTTMN',
        side: 'BUY',
        type: 'LIMIT',
        size: { kind: 'base', quantity: d(10) },
        price: d(80000),
      })
    ).clientOrderId;
  const runTimers = async () => {
    for (const fn of pending.splice(0)) fn();
    await new Promise((r) => setTimeout(r, 0));
  };
  return { clock, venue, engine, stream, tracker, fills, orphans, place, runTimers };
}

const total = (fills: FillEvent[], k: 'quantity' | 'fee') => fills.reduce((s, f) => s.plus(f[k]), new Decimal(0)).toFixed();

describe('PrivateStreamTracker', () => {
  it('books a fill the stream shows first once: the poll that sees it later adds nothing', async () => {
    const { venue, engine, stream, fills, place } = setup();
    const id = await place();
    stream.emit('tradeDetails', detail(id, '4', '0.004'));
    expect(fills.map((f) => [f.quantity.toFixed(), f.fee.toFixed(), f.feeAsset, f.price.toFixed()])).toEqual([['4', '0.004', 'USDT', '80000']]);
    venue.snaps.set(id, snap(id, { executedQty: d(4), executedSum: d(320000), fee: d('0.004') }));
    await engine.refresh(id);
    expect(fills).toHaveLength(1);
    stream.emit('tradeDetails', detail(id, '6', '0.006'));
    stream.emit('orderSaved', saved(id, '10', false, 'FILLED'));
    expect(engine.orders.get(id)!.state).toBe('filled');
    expect([total(fills, 'quantity'), total(fills, 'fee')]).toEqual(['10', '0.01']);
  });

  it('books a fill a poll shows first once: its details later add nothing, the fee comes from the snapshot', async () => {
    const { venue, engine, stream, fills, place } = setup();
    const id = await place();
    venue.snaps.set(id, snap(id, { executedQty: d(4), executedSum: d(320000), fee: d('0.004') }));
    await engine.refresh(id);
    stream.emit('tradeDetails', detail(id, '4', '0.004'));
    expect(fills.map((f) => [f.quantity.toFixed(), f.fee.toFixed()])).toEqual([['4', '0.004']]);
    // Details beyond what REST showed: 4 were counted, a detail of 2 is new (fee of its own).
    stream.emit('tradeDetails', detail(id, '2', '0.002'));
    expect(fills).toHaveLength(2);
    expect([fills[1]!.quantity.toFixed(), fills[1]!.fee.toFixed()]).toEqual(['2', '0.002']);
    expect(engine.orders.get(id)!.filled.toFixed()).toBe('6');
  });

  it('holds an orderSaved that reports unbooked fills until their details arrive', async () => {
    const { engine, stream, fills, place, tracker } = setup();
    const id = await place();
    stream.emit('orderSaved', saved(id, '10', false, 'FILLED'));
    const o = engine.orders.get(id)!;
    expect([o.state, fills.length, tracker.stats().held]).toEqual(['open', 0, 1]);
    stream.emit('tradeDetails', detail(id, '10', '0.01'));
    expect([o.state, fills.length, tracker.stats().held]).toEqual(['filled', 1, 0]);
  });

  it('reads the order by REST when the details of reported fills do not come', async () => {
    const { venue, engine, stream, fills, place, runTimers, tracker } = setup();
    const id = await place();
    venue.snaps.set(id, snap(id, { executedQty: d(10), executedSum: d(800000), fee: d('0.01'), status: 'FILLED', active: false }));
    const reads = venue.reads;
    stream.emit('orderSaved', saved(id, '10', false, 'FILLED'));
    expect(fills).toHaveLength(0);
    await runTimers();
    expect(venue.reads).toBe(reads + 1);
    expect(engine.orders.get(id)!.state).toBe('filled');
    expect(fills.map((f) => [f.quantity.toFixed(), f.fee.toFixed()])).toEqual([['10', '0.01']]);
    expect(tracker.stats().refreshes).toBe(1);
  });

  it('moves states from orderSaved without booking, and reports orphans', async () => {
    const { engine, stream, fills, place, orphans } = setup();
    const id = await place();
    stream.emit('orderSaved', saved(id, '0', false, 'CANCELED'));
    expect(engine.orders.get(id)!.state).toBe('cancelled');
    stream.emit('orderSaved', saved('someone_else_1', '0'));
    stream.emit('tradeDetails', detail('someone_else_1', '1', '0'));
    stream.emit('tradeDetails', { ...detail(id, '1', '0'), symbol: 'BTCTMN' });
    expect(orphans.map((o) => [o.kind, o.clientOrderId, o.reason])).toEqual([
      ['orderSaved', 'someone_else_1', 'not tracked by this bot'],
      ['tradeDetails', 'someone_else_1', 'not tracked by this bot'],
      ['tradeDetails', id, 'tracked under USDTTMN'],
    ]);
    expect(fills).toHaveLength(0);
  });

  it('covers an order only while the stream is up, proven, and has seen it since it came up', async () => {
    const { clock, engine, stream, tracker, place } = setup();
    const id = await place();
    const o = engine.orders.get(id)!;
    expect(tracker.covers(o, undefined)).toBe(false); // not proven yet
    stream.emit('orderSaved', saved(id, '0'));
    expect(tracker.covers(o, undefined)).toBe(true);
    stream.emit('down', 'transport close');
    expect(tracker.covers(o, clock.now())).toBe(false);
    clock.advance(10);
    stream.emit('up', true);
    expect(tracker.covers(o, clock.now() - 5)).toBe(false); // polled before the reconnect: events may be lost
    expect(tracker.covers(o, clock.now())).toBe(true); // polled since: reconciled
  });
});
