/**
 * The execution engine: turns passed intents into orders on a venue and follows each one until it
 * is final.
 *
 * An answer that contradicts itself (HTTP 201 with `success: false`) is unknown as well: the client
 * id is looked up; found means it is tracked, absent means the refusal stands (no re-send).
 *
 * Idempotency: every order gets its client id before anything is sent, and is journaled as
 * `pending` first. A create that fails with a retryable error (timeout, network, 5xx, 429) has an
 * unknown outcome: the engine looks the client id up before anything is re-sent; found means it
 * exists (tracked from there), not found means it may be re-sent — with the same client id, so a
 * late-arriving first attempt makes the second fail with 409 instead of creating a twin. One intent
 * never yields two live orders. Cancels are retried until the exchange confirms a final state.
 */
import { EventEmitter } from 'eventemitter3';
import { Decimal } from '../core/decimal.js';
import { DuplicateOrderError, isRetryable, MizanError, NotFoundError, ResponseParseError } from '../core/errors.js';
import type { SpotOrderIntent } from '../core/intents.js';
import type { SpotOrder } from '../core/types/order.js';
import type { OrderState } from '../core/views.js';
import { ChurnMap } from '../core/churn-map.js';
import { DEFAULT_EXECUTION_OPTIONS, type ExecutionDeps, type ExecutionEvents, type ExecutionOptions, type SubmitMeta } from './engine-ports.js';
import type { LookupResult } from './engine-ports.js';
import { FinalOrders } from './final-orders.js';
import { applySnapshot, applyTradeDetail, isFinal, toView, type SnapshotResult, type TrackedOrder, type TradeDetail } from './tracked-order.js';
import { exchangeCancelReason, type Venue } from './venue.js';
import { MAIN_ACCOUNT } from '../core/account.js';
import { receivedAsset } from '../core/instrument.js';

export type { ExecutionDeps, ExecutionEvents, ExecutionJournal, ExecutionOptions, ReservationPort, SubmitMeta } from './engine-ports.js';

/** One-shot timers (the private stream's reconnect waits). */
export type { Timeouts as Timers } from '../core/timers.js';

/** Decimals are immutable: one zero serves every new order's totals. */
const ZERO = new Decimal(0);

export class ExecutionEngine extends EventEmitter<ExecutionEvents> {
  /**
   * Orders by client id: every live order, and final ones (all of them, or the last `retainFinal`).
   * The hot paths (liveOrders, cancelAll, pollOnce) read the live index instead, so their cost is the
   * number of live orders, not of every order ever placed.
   */
  readonly orders: Map<string, TrackedOrder> = new ChurnMap<string, TrackedOrder>();
  /** The orders that are not final, by client id (the hot set). */
  private readonly live = new ChurnMap<string, TrackedOrder>();
  /** Which final orders stay in `orders` (the last `retainFinal`), and the owners of those that left. */
  private readonly finals: FinalOrders;
  private submittedCount = 0;
  private readonly opts: ExecutionOptions;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly cancelRequested = new Set<string>();
  private readonly unsubscribes: (() => void)[] = [];
  private readonly lastPolled = new Map<string, number>();
  private cover: ((o: TrackedOrder, lastPolled: number | undefined) => boolean) | undefined;

  constructor(private readonly deps: ExecutionDeps) {
    super();
    this.opts = { ...DEFAULT_EXECUTION_OPTIONS, ...deps.options };
    this.finals = new FinalOrders(this.orders, this.opts.retainFinal, this.opts.keepRetiredOwners);
    this.sleep = deps.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /** Follow pushed updates of a venue (in-process simulator). */
  listen(venue: Venue): void {
    // Fills first: a venue that hands its fills books them as computed; the order's update after it
    // then finds its executed quantity booked already and changes only the state.
    if (venue.onFill) this.unsubscribes.push(venue.onFill((id, detail) => this.onVenueFill(id, detail)));
    if (venue.onOrderUpdate) this.unsubscribes.push(venue.onOrderUpdate((snap) => this.onSnapshot(snap)));
  }

  /** A fill the venue computed (in-process simulator), booked as it is. Orders not tracked here are ignored. */
  private onVenueFill(clientOrderId: string, detail: TradeDetail): void {
    const o = this.orders.get(clientOrderId);
    if (!o) return;
    if (o.state === 'unknown') o.state = 'pending';
    this.applyChange(o, applyTradeDetail(o, detail, this.deps.clock.now()));
  }

  stop(): void {
    for (const u of this.unsubscribes.splice(0)) u();
  }

  /** Spot orders submitted through this engine (those dropped from `orders` since included). */
  get submitted(): number {
    return this.submittedCount;
  }

  /** The strategy of an order: one in `orders`, or a final one dropped from it (with keepRetiredOwners). */
  ownerOf(clientOrderId: string): string | undefined {
    return this.orders.get(clientOrderId)?.strategy ?? this.finals.ownerOf(clientOrderId);
  }

  /** Place a spot order for an intent the risk module passed (size already resolved to base). */
  async submitOrder(intent: SpotOrderIntent, meta: SubmitMeta = {}): Promise<TrackedOrder> {
    if (intent.size.kind !== 'base') {
      throw new Error(`order size must be resolved to a base quantity before execution, got ${intent.size.kind}`);
    }
    const now = this.deps.clock.now();
    const o: TrackedOrder = {
      clientOrderId: this.deps.ids.next(intent.strategy),
      strategy: intent.strategy,
      account: meta.account ?? MAIN_ACCOUNT,
      symbol: intent.symbol,
      side: intent.side,
      type: intent.type,
      quantity: intent.size.quantity,
      filled: ZERO,
      filledQuote: ZERO,
      fee: ZERO,
      state: 'pending',
      createdAt: now,
      updatedAt: now,
      quietPolls: 0,
    };
    if (intent.price) o.price = intent.price;
    if (intent.stopPrice) o.stopPrice = intent.stopPrice;
    if (intent.tag) o.tag = intent.tag;
    if (intent.brackets) o.brackets = intent.brackets;
    if (meta.reservationId) o.reservationId = meta.reservationId;
    this.setFeeAsset(o);
    this.orders.set(o.clientOrderId, o);
    this.live.set(o.clientOrderId, o);
    this.submittedCount++;
    this.emit('submitted', o);
    const journal = this.deps.journal;
    if (journal?.recordNewOrder) {
      journal.recordNewOrder(o, { intent: intent.kind, type: intent.type });
    } else if (journal) {
      journal.upsertOrder(o);
      journal.orderEvent(o.clientOrderId, 'pending', { intent: intent.kind, type: intent.type });
    }
    await this.create(o, 0);
    return o;
  }

  private async create(o: TrackedOrder, resends: number): Promise<void> {
    const venue = this.deps.venueFor(o.account);
    const req = {
      symbol: o.symbol,
      side: o.side,
      type: o.type as SpotOrderIntent['type'],
      quantity: o.quantity,
      clientId: o.clientOrderId,
      ...(o.price ? { price: o.price } : {}),
      ...(o.stopPrice ? { stopPrice: o.stopPrice } : {}),
    };
    try {
      const snap = await venue.createOrder(req);
      this.apply(o, snap);
    } catch (err) {
      if (err instanceof DuplicateOrderError) {
        this.deps.logger.warn({ clientOrderId: o.clientOrderId }, 'create answered 409: the order exists, looking it up');
        const r = await this.lookup(o);
        if (r !== 'found') this.markUnknown(o, 'duplicate client id but the order could not be read');
        return;
      }
      if (isRetryable(err)) {
        this.deps.logger.warn({ clientOrderId: o.clientOrderId, err: errInfo(err) }, 'create outcome unknown, looking the client id up');
        const r = await this.lookup(o);
        // The exchange did answer, contradicting itself (e.g. HTTP 201 with success: false): an
        // order that is not there after all was refused; never re-sent.
        const answered = answeredRefusal(err);
        if (r === 'absent' && answered) return this.finish(o, 'rejected', answered);
        if (r === 'absent' && resends < this.opts.maxResends) {
          this.deps.journal?.orderEvent(o.clientOrderId, 'pending', { resend: resends + 1 });
          return this.create(o, resends + 1);
        }
        if (r !== 'found') this.markUnknown(o, `create outcome unknown after ${resends + 1} attempt(s): ${errInfo(err).message}`);
        return;
      }
      this.finish(o, 'rejected', errInfo(err).message);
    }
  }

  /** Look an order up by client id, retrying retryable failures. */
  private async lookup(o: TrackedOrder): Promise<LookupResult> {
    const venue = this.deps.venueFor(o.account);
    for (let i = 0; i < this.opts.lookupAttempts; i++) {
      await this.sleep(this.opts.lookupDelayMs * (i + 1));
      try {
        const snap = await venue.getOrder(o.clientOrderId);
        this.apply(o, snap);
        return 'found';
      } catch (err) {
        if (err instanceof NotFoundError) return 'absent';
        if (!isRetryable(err)) return 'unknown';
      }
    }
    return 'unknown';
  }

  private markUnknown(o: TrackedOrder, reason: string): void {
    const previous = o.state;
    o.state = 'unknown';
    o.reason = reason;
    o.updatedAt = this.deps.clock.now();
    this.deps.journal?.upsertOrder(o);
    this.deps.journal?.orderEvent(o.clientOrderId, 'unknown', { reason });
    this.emit('order', { order: toView(o), previous, reason });
  }

  /** Apply a snapshot that arrived by push, poll or lookup. Orders not tracked here are ignored. */
  onSnapshot(snap: SpotOrder): void {
    const o = this.orders.get(snap.clientOrderId);
    if (o) this.apply(o, snap);
  }

  private apply(o: TrackedOrder, snap: SpotOrder): void {
    const wasUnknown = o.state === 'unknown' || o.state === 'pending';
    if (o.state === 'unknown') o.state = 'pending';
    this.applyChange(o, applySnapshot(o, snap, this.deps.clock.now()), wasUnknown);
  }

  /**
   * Publish a change computed by `applySnapshot` or `applyTradeDetail` (the private-stream tracker
   * computes its own): book the fills it revealed (each once: the journal key is the order's
   * `filled` after that growth), journal the order, emit `fill` / `order` / `final`.
   */
  applyChange(o: TrackedOrder, r: SnapshotResult, force = false, source?: string): void {
    if (r.refused) {
      // An impossible answer (5 BTC executed of a 0.001 BTC order, a price of 0): never booked.
      this.deps.logger.error(
        { clientOrderId: o.clientOrderId, reason: r.refused.reason, payload: r.refused.payload, ...(source ? { source } : {}) },
        `order update refused, nothing booked: ${r.refused.reason}`,
      );
      return;
    }
    if (!r.changed && !force) return;
    // The filled part shows in the balance the fills move: the reservation keeps the rest (settled first).
    if (r.fills.length > 0 && o.reservationId) this.deps.reservations?.settle(o.reservationId, o.filled);
    const journal = this.deps.journal;
    for (const f of r.fills) {
      // The fill's key is built only for a journal (a backtest has none): nothing else reads it.
      if (journal && !journal.recordFill(f, `${f.clientOrderId}:${o.filled.toFixed()}`)) continue;
      this.emit('fill', f);
    }
    const reason = exchangeCancelReason(o, r.previous, this.cancelRequested.has(o.clientOrderId), this.deps);
    const why = reason ? { reason } : {};
    this.deps.journal?.upsertOrder(o);
    if (r.previous !== o.state) this.deps.journal?.orderEvent(o.clientOrderId, o.state, { filled: o.filled.toFixed(), ...(source ? { source } : {}), ...why });
    this.emit('order', { order: toView(o), previous: r.previous, ...why });
    if (isFinal(o.state)) this.onFinal(o);
  }

  private finish(o: TrackedOrder, state: OrderState, reason: string): void {
    const previous = o.state;
    o.state = state;
    o.reason = reason;
    o.updatedAt = this.deps.clock.now();
    this.deps.journal?.upsertOrder(o);
    this.deps.journal?.orderEvent(o.clientOrderId, state, { reason });
    this.emit('order', { order: toView(o), previous, reason });
    this.onFinal(o);
  }

  private onFinal(o: TrackedOrder): void {
    this.cancelRequested.delete(o.clientOrderId);
    this.lastPolled.delete(o.clientOrderId);
    if (this.live.delete(o.clientOrderId)) this.finals.end(o);
    if (o.reservationId) this.deps.reservations?.release(o.reservationId);
    this.emit('final', o);
  }

  /** Cancel an order, retrying until the exchange confirms a final state (or the poller takes over). */
  async cancel(clientOrderId: string): Promise<TrackedOrder | undefined> {
    const o = this.orders.get(clientOrderId);
    if (!o || isFinal(o.state)) return o;
    this.cancelRequested.add(clientOrderId);
    const venue = this.deps.venueFor(o.account);
    for (let i = 0; i < this.opts.cancelAttempts && !isFinal(o.state); i++) {
      try {
        const snap = await venue.cancelOrder(clientOrderId);
        this.apply(o, snap);
        if (!isFinal(o.state)) {
          // Some answers show the order still active for a moment: read it back.
          await this.sleep(this.opts.lookupDelayMs);
          this.apply(o, await venue.getOrder(clientOrderId));
        }
      } catch (err) {
        if (err instanceof NotFoundError) {
          const r = await this.lookup(o);
          if (r === 'absent') this.finish(o, 'cancelled', 'not found on the exchange when cancelling');
          continue;
        }
        if (!isRetryable(err)) {
          // e.g. already finished: learn the final state.
          await this.lookup(o);
          if (!isFinal(o.state)) this.deps.logger.warn({ clientOrderId, err: errInfo(err) }, 'cancel refused');
          break;
        }
        await this.sleep(this.opts.lookupDelayMs * 2 ** Math.min(i, 5));
      }
    }
    return o;
  }

  /** Cancel every live order of a market (optionally of one strategy). */
  async cancelAll(symbol: string, strategy?: string): Promise<void> {
    const live = [...this.live.values()].filter((o) => o.symbol === symbol && (strategy === undefined || o.strategy === strategy));
    await Promise.all(live.map((o) => this.cancel(o.clientOrderId)));
  }

  liveOrders(filter?: { strategy?: string; symbol?: string }): TrackedOrder[] {
    const out: TrackedOrder[] = [];
    for (const o of this.live.values())
      if ((!filter?.strategy || o.strategy === filter.strategy) && (!filter?.symbol || o.symbol === filter.symbol)) out.push(o);
    return out;
  }

  /** Close an order the exchange does not know (recovery: it never reached the exchange). */
  markMissing(clientOrderId: string, reason: string): void {
    const o = this.orders.get(clientOrderId);
    if (o && !isFinal(o.state)) this.finish(o, o.state === 'pending' || o.state === 'unknown' ? 'rejected' : 'cancelled', reason);
  }

  /** The order's received asset from its market's instrument, unless already known. */
  private setFeeAsset(o: TrackedOrder): void {
    if (o.feeAsset !== undefined) return;
    const instrument = this.deps.instrument?.(o.symbol);
    if (instrument) o.feeAsset = receivedAsset(instrument, o.side);
  }

  /** Take over orders known from the journal (recovery). */
  adopt(orders: TrackedOrder[]): void {
    for (const o of orders) {
      if (this.orders.has(o.clientOrderId)) continue;
      this.setFeeAsset(o);
      this.orders.set(o.clientOrderId, o);
      if (!isFinal(o.state)) this.live.set(o.clientOrderId, o);
    }
  }

  /**
   * Orders for which `cover` answers true (a healthy private stream follows them) are polled only
   * every `coveredPollMs`, as a safety net; the others at the adaptive pace. Unset: no cover.
   */
  setStreamCover(cover: ((o: TrackedOrder, lastPolled: number | undefined) => boolean) | undefined): void {
    this.cover = cover;
  }

  /** Read one live order by client id now (the private-stream tracker's check); errors are logged. */
  async refresh(clientOrderId: string): Promise<void> {
    const o = this.orders.get(clientOrderId);
    if (!o || isFinal(o.state)) return;
    this.lastPolled.set(clientOrderId, this.deps.clock.now());
    try {
      this.apply(o, await this.deps.venueFor(o.account).getOrder(clientOrderId));
    } catch (err) {
      this.deps.logger.warn({ clientOrderId, err: errInfo(err) }, 'order refresh failed (polling continues)');
    }
  }

  /**
   * One polling pass: every live order that is due is read by client id. Young orders and orders
   * that just changed are polled at the fast interval, quiet ones at the slow one, orders a healthy
   * private stream covers at `coveredPollMs`. Orders whose cancel was not yet confirmed are cancelled
   * again (never covered).
   */
  async pollOnce(): Promise<void> {
    const now = this.deps.clock.now();
    const due = [...this.live.values()].filter((o) => {
      const polled = this.lastPolled.get(o.clientOrderId);
      const last = polled ?? 0;
      if (this.cover && !this.cancelRequested.has(o.clientOrderId) && this.cover(o, polled)) return now - last >= this.opts.coveredPollMs;
      const young = now - o.createdAt < this.opts.youngMs || o.quietPolls < 3;
      return now - last >= (young ? this.opts.fastPollMs : this.opts.slowPollMs);
    });
    for (const o of due) {
      this.lastPolled.set(o.clientOrderId, now);
      if (this.cancelRequested.has(o.clientOrderId)) {
        await this.cancel(o.clientOrderId);
        continue;
      }
      try {
        this.apply(o, await this.deps.venueFor(o.account).getOrder(o.clientOrderId));
      } catch (err) {
        if (err instanceof NotFoundError && (o.state === 'pending' || o.state === 'unknown')) {
          if (now - o.createdAt > this.opts.youngMs) this.finish(o, 'rejected', 'never reached the exchange');
        } else if (!(err instanceof MizanError && err.retryable)) {
          this.deps.logger.warn({ clientOrderId: o.clientOrderId, err: errInfo(err) }, 'poll failed');
        }
      }
    }
  }
}

/**
 * The exchange's own refusal inside an unknown outcome (a write guard wraps a contradictory answer
 * with it as the cause), or undefined when no answer was read (timeout, 5xx, lost connection).
 */
function answeredRefusal(err: unknown): string | undefined {
  const cause = err instanceof Error ? (err as Error & { cause?: unknown }).cause : undefined;
  return cause instanceof MizanError && !cause.retryable && !(cause instanceof ResponseParseError) ? cause.message : undefined;
}

function errInfo(err: unknown): { name: string; message: string } {
  return err instanceof Error ? { name: err.name, message: err.message } : { name: 'Error', message: String(err) };
}
