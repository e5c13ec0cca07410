/**
 * The execution engine's contract with whoever builds and listens to it: the ports it is given
 * (`ExecutionDeps`: venues, clock, logger, client ids, and the optional `ExecutionJournal` and
 * `ReservationPort`), its tuning (`ExecutionOptions`, `DEFAULT_EXECUTION_OPTIONS`), the events it
 * emits (`ExecutionEvents`) and the metadata of a submit (`SubmitMeta`). Its own module because
 * these are what a composition root, a journal adapter or the reservations must satisfy or read:
 * they need the shapes, not the order-following logic of src/execution/engine.ts (which re-exports
 * every name here, so `./engine.js` imports keep working).
 */
import type { Decimal } from '../core/decimal.js';
import type { Clock } from '../core/clock.js';
import type { Instrument } from '../core/instrument.js';
import type { Logger } from '../core/logger.js';
import type { FillEvent, OrderState, OrderUpdate } from '../core/views.js';
import type { ClientIdGenerator } from './client-id.js';
import type { TrackedOrder } from './tracked-order.js';
import type { Venue } from './venue.js';

export interface ExecutionJournal {
  upsertOrder(o: TrackedOrder): void;
  orderEvent(clientOrderId: string, state: OrderState, detail: Record<string, unknown>): void;
  /**
   * A new order, before it is sent, with its first event in one write: one commit between the
   * decision and the request (a commit to a file journal costs ~40 µs and has a long tail). Without
   * it the engine calls upsertOrder then orderEvent.
   */
  recordNewOrder?(o: TrackedOrder, event: Record<string, unknown>): void;
  /** False when this fill was recorded before (the key identifies it). */
  recordFill(fill: FillEvent, key: string): boolean;
}

export interface ReservationPort {
  /** The order ended: its reservation goes. */
  release(reservationId: string): void;
  /** The order has filled this much base quantity in all: its reservation keeps only the rest. */
  settle(reservationId: string, filledQuantity: Decimal): void;
}

export interface ExecutionOptions {
  /** Wait before looking an order up after an unknown outcome (ms). */
  lookupDelayMs: number;
  lookupAttempts: number;
  /** Re-sends after a lookup found nothing. */
  maxResends: number;
  cancelAttempts: number;
  /** Poll every order at least this often while young, and this often when quiet. */
  fastPollMs: number;
  slowPollMs: number;
  youngMs: number;
  /** Poll interval of an order a healthy private stream follows (a safety net; see setStreamCover). */
  coveredPollMs: number;
  /**
   * Final orders kept in `orders` (the most recent ones) after they ended; older ones are dropped
   * (a live bot's journal has them; a backtest records each order as it ends). Infinity (the default)
   * keeps every order.
   */
  retainFinal: number;
  /**
   * Remember which strategy owned each final order dropped from `orders` (its client id only), so a
   * cancel of it is recognised as its owner's, as when every order is kept: a backtest that keeps
   * few final orders gives the same result as one that keeps them all.
   */
  keepRetiredOwners: boolean;
}

export const DEFAULT_EXECUTION_OPTIONS: ExecutionOptions = {
  lookupDelayMs: 500,
  lookupAttempts: 5,
  maxResends: 2,
  cancelAttempts: 8,
  fastPollMs: 1_000,
  slowPollMs: 5_000,
  youngMs: 15_000,
  coveredPollMs: 30_000,
  retainFinal: Number.POSITIVE_INFINITY,
  keepRetiredOwners: false,
};

export interface ExecutionDeps {
  venueFor(account: string): Venue;
  /**
   * A market's base and quote (the kernel's instruments): an order's fee asset is its received
   * asset when the exchange's answer names none. Unknown (or no port): only named fee assets book.
   */
  instrument?(symbol: string): Instrument | undefined;
  clock: Clock;
  logger: Logger;
  ids: ClientIdGenerator;
  journal?: ExecutionJournal;
  reservations?: ReservationPort;
  /** Wait helper; tests make it instant. */
  sleep?: (ms: number) => Promise<void>;
  options?: Partial<ExecutionOptions>;
}

export interface ExecutionEvents {
  /** A new order, tracked from now on (before it is sent). */
  submitted: [TrackedOrder];
  order: [OrderUpdate];
  fill: [FillEvent];
  final: [TrackedOrder];
}

export interface SubmitMeta {
  account?: string;
  reservationId?: string;
}

/** What a lookup of an order on the exchange found. */
export type LookupResult = 'found' | 'absent' | 'unknown';
