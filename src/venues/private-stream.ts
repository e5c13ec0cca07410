/**
 * The private stream's side of order tracking (live mode, when a stream key is configured).
 *
 * - `tradeDetails` books fills at once, with the exchange's price and fee (in its own asset), via
 *   `applyTradeDetail`: the order's booked quantity `filled` rises to the running sum of details, so
 *   a fill a poll already booked is not booked again, and a poll after a detail finds nothing new.
 * - `orderSaved` moves the state machine (open, partly filled, filled, cancelled …) when the
 *   executed quantity it reports is already booked. It carries no fee and no fill prices, so it
 *   never books a fill itself: when it reports more than is booked, it is held until the details
 *   explain it, or, after `graceMs`, the order is read by REST (whose answer has sums and fees).
 * - Polling: an order is covered (polled only every `coveredPollMs`, a safety net) while the stream
 *   is up, has proven it delivers (one valid private message this session), and the order was
 *   reconciled since the stream came up (a stream event for it, or a poll after the (re)connect).
 *   When the stream drops every order returns to the adaptive pace at once.
 * - Updates for client ids the engine does not track are orphans: counted, logged once per id,
 *   emitted as `orphan`.
 */
import { EventEmitter } from 'eventemitter3';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { SpotOrder } from '../core/types/order.js';
import type { PrivateStreamEvents } from '../exchange/stream/private-client.js';
import type { PrivateOrderUpdate, PrivateTrade } from '../exchange/stream/private-parse.js';
import type { ExecutionEngine, Timers } from '../execution/engine.js';
import { applySnapshot, applyTradeDetail, isFinal, type TrackedOrder } from '../execution/tracked-order.js';

/** What the tracker needs of the private stream (PrivateStreamClient satisfies it). */
type PrivateStreamSource = Pick<EventEmitter<PrivateStreamEvents>, 'on' | 'off'> & { readonly isUp: boolean };

export interface OrphanUpdate {
  kind: 'orderSaved' | 'tradeDetails';
  clientOrderId: string;
  symbol: string;
  /** Why it is an orphan: not tracked, or tracked under another market. */
  reason: string;
}

export interface PrivateTrackerDeps {
  engine: ExecutionEngine;
  stream: PrivateStreamSource;
  clock: Clock;
  logger: Logger;
  timers?: Timers;
  /** How long an `orderSaved` reporting unbooked fills waits for their details before a REST read (ms). Default 1000. */
  graceMs?: number;
}

export interface PrivateTrackerStats {
  up: boolean;
  proven: boolean;
  orderSaved: number;
  tradeDetails: number;
  held: number;
  refreshes: number;
  orphans: number;
}

const SOURCE = 'private-stream';
const defaultTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export class PrivateStreamTracker extends EventEmitter<{ orphan: [OrphanUpdate] }> {
  private upSince: number | undefined;
  private proven = false;
  private readonly seen = new Map<string, number>();
  private readonly held = new Map<string, { update: PrivateOrderUpdate; timer: unknown }>();
  private readonly loggedOrphans = new Set<string>();
  private readonly counts = { orderSaved: 0, tradeDetails: 0, refreshes: 0, orphans: 0 };
  private readonly timers: Timers;
  private readonly graceMs: number;
  private readonly handlers: Partial<PrivateStreamEvents>;
  private readonly onFinal = (o: TrackedOrder) => this.forget(o.clientOrderId);

  constructor(private readonly deps: PrivateTrackerDeps) {
    super();
    this.timers = deps.timers ?? defaultTimers;
    this.graceMs = deps.graceMs ?? 1000;
    this.handlers = {
      orderSaved: (u) => this.guard(() => this.onOrderSaved(u)),
      tradeDetails: (t) => this.guard(() => this.onTradeDetails(t)),
      up: () => this.onUp(),
      down: () => this.onDown(),
    };
  }

  start(): void {
    const s = this.deps.stream;
    s.on('orderSaved', this.handlers.orderSaved!);
    s.on('tradeDetails', this.handlers.tradeDetails!);
    s.on('up', this.handlers.up!);
    s.on('down', this.handlers.down!);
    this.deps.engine.on('final', this.onFinal);
    if (s.isUp) this.upSince = this.deps.clock.now();
    this.deps.engine.setStreamCover((o, lastPolled) => this.covers(o, lastPolled));
  }

  stop(): void {
    const s = this.deps.stream;
    s.off('orderSaved', this.handlers.orderSaved);
    s.off('tradeDetails', this.handlers.tradeDetails);
    s.off('up', this.handlers.up);
    s.off('down', this.handlers.down);
    this.deps.engine.off('final', this.onFinal);
    this.deps.engine.setStreamCover(undefined);
    for (const id of [...this.held.keys()]) this.forget(id);
  }

  /** True when the stream follows this order well enough to poll it only as a safety net. */
  covers(o: TrackedOrder, lastPolled: number | undefined): boolean {
    const since = this.upSince;
    if (since === undefined || !this.proven || this.held.has(o.clientOrderId)) return false;
    const seenAt = this.seen.get(o.clientOrderId);
    return (seenAt !== undefined && seenAt >= since) || (lastPolled !== undefined && lastPolled >= since);
  }

  stats(): PrivateTrackerStats {
    return { up: this.upSince !== undefined, proven: this.proven, held: this.held.size, ...this.counts };
  }

  private onUp(): void {
    this.upSince = this.deps.clock.now();
    this.deps.logger.info('private stream up: orders it follows are polled only as a safety net');
  }

  private onDown(): void {
    this.upSince = undefined;
    this.deps.logger.warn('private stream down: order polling back to its adaptive pace');
  }

  private track(kind: OrphanUpdate['kind'], clientOrderId: string, symbol: string): TrackedOrder | undefined {
    this.proven = true;
    const o = this.deps.engine.orders.get(clientOrderId);
    if (o && o.symbol === symbol) {
      this.seen.set(clientOrderId, this.deps.clock.now());
      return o;
    }
    const reason = o ? `tracked under ${o.symbol}` : 'not tracked by this bot';
    this.counts.orphans++;
    if (!this.loggedOrphans.has(clientOrderId)) {
      if (this.loggedOrphans.size >= 10_000) this.loggedOrphans.clear();
      this.loggedOrphans.add(clientOrderId);
      this.deps.logger.warn({ kind, clientOrderId, symbol, reason }, 'private stream update for an order this bot does not track (orphan)');
    }
    this.emit('orphan', { kind, clientOrderId, symbol, reason });
    return undefined;
  }

  private onTradeDetails(t: PrivateTrade): void {
    this.counts.tradeDetails++;
    const o = this.track('tradeDetails', t.clientOrderId, t.symbol);
    if (!o) return;
    if (o.state === 'unknown') o.state = 'pending';
    this.deps.engine.applyChange(o, applyTradeDetail(o, t, this.deps.clock.now()), false, SOURCE);
    const h = this.held.get(o.clientOrderId);
    if (h && o.filled.gte(h.update.executedQty)) this.release(o);
  }

  private onOrderSaved(u: PrivateOrderUpdate): void {
    this.counts.orderSaved++;
    const o = this.track('orderSaved', u.clientOrderId, u.symbol);
    if (!o || isFinal(o.state)) return;
    if (u.executedQty.gt(o.filled)) return this.hold(o, u);
    const h = this.held.get(o.clientOrderId);
    // An older update than the one held (or the same) changes nothing: the held one is newer.
    if (h) return;
    this.applyUpdate(o, u);
  }

  private applyUpdate(o: TrackedOrder, u: PrivateOrderUpdate): void {
    const wasPending = o.state === 'pending' || o.state === 'unknown';
    if (o.state === 'unknown') o.state = 'pending';
    this.deps.engine.applyChange(o, applySnapshot(o, toSnapshot(o, u), this.deps.clock.now()), wasPending, SOURCE);
  }

  /** Fills reported but not yet booked: wait for their details, then read the order by REST. */
  private hold(o: TrackedOrder, u: PrivateOrderUpdate): void {
    const id = o.clientOrderId;
    const prev = this.held.get(id);
    if (prev && prev.update.executedQty.gt(u.executedQty)) return;
    if (prev) this.timers.clearTimeout(prev.timer);
    const timer = this.timers.setTimeout(() => void this.expire(id), this.graceMs);
    this.held.set(id, { update: u, timer });
  }

  private async expire(id: string): Promise<void> {
    const o = this.deps.engine.orders.get(id);
    const h = this.held.get(id);
    if (!o || !h) return;
    if (o.filled.gte(h.update.executedQty)) return this.release(o);
    this.held.delete(id);
    this.counts.refreshes++;
    this.deps.logger.debug(
      { clientOrderId: id, reported: h.update.executedQty.toFixed(), booked: o.filled.toFixed() },
      'fills without details: reading the order',
    );
    await this.deps.engine.refresh(id);
  }

  private release(o: TrackedOrder): void {
    const h = this.held.get(o.clientOrderId);
    if (!h) return;
    this.timers.clearTimeout(h.timer);
    this.held.delete(o.clientOrderId);
    if (!isFinal(o.state)) this.applyUpdate(o, h.update);
  }

  private forget(id: string): void {
    const h = this.held.get(id);
    if (h) this.timers.clearTimeout(h.timer);
    this.held.delete(id);
    this.seen.delete(id);
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.deps.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'private stream update failed');
    }
  }
}

/** An `orderSaved` as a snapshot. It has no fee or sums: only ever applied when it adds no fill. */
function toSnapshot(o: TrackedOrder, u: PrivateOrderUpdate): SpotOrder {
  return {
    symbol: u.symbol,
    type: (u.type ?? o.type) as SpotOrder['type'],
    side: u.side,
    clientOrderId: u.clientOrderId,
    price: u.price,
    origQty: u.origQty,
    executedQty: u.executedQty,
    status: u.status as SpotOrder['status'],
    active: u.active,
    fills: [],
  };
}
