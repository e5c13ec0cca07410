/**
 * One order-rate budget: a sliding window of send times. New orders may use
 * `limit − reserveForCancels` slots; cancels may use the whole window, so a burst of new orders can
 * never block a cancel (the exchange allows 20 order requests per 10 seconds). Clock-injected.
 *
 * With a store (the journal, live and paper) the window outlives the process: it is read back at
 * start and written on every take, so a restart right after a burst does not send another burst
 * into the exchange's 429s.
 */
import type { Clock } from '../core/clock.js';
import type { OrderRateLimits } from './limits.js';

export type RateKind = 'new' | 'cancel';

/** Where the window's send times are kept across restarts. */
export interface OrderRateStore {
  load(): readonly number[] | undefined;
  save(times: readonly number[]): void;
}

export class OrderRateBudget {
  /** Send times, oldest first. */
  private readonly times: number[] = [];
  readonly limit: number;
  readonly windowMs: number;
  readonly reserveForCancels: number;

  constructor(
    limits: OrderRateLimits,
    private readonly clock: Clock,
    private readonly store?: OrderRateStore,
  ) {
    if (!Number.isInteger(limits.limit) || limits.limit < 1) throw new RangeError(`orderRate.limit must be a whole number of 1 or more, got ${limits.limit}`);
    if (!(limits.windowMs > 0)) throw new RangeError(`orderRate.windowMs must be positive, got ${limits.windowMs}`);
    const reserve = limits.reserveForCancels ?? 0;
    if (!Number.isInteger(reserve) || reserve < 0 || reserve >= limits.limit) {
      throw new RangeError(`orderRate.reserveForCancels must be a whole number from 0 to limit − 1 (${limits.limit - 1}), got ${reserve}`);
    }
    this.limit = limits.limit;
    this.windowMs = limits.windowMs;
    this.reserveForCancels = reserve;
    this.restore(store?.load());
  }

  /** Take back the send times of an earlier run (those still inside the window; none from the future). */
  private restore(saved: readonly number[] | undefined): void {
    if (!Array.isArray(saved)) return;
    const now = this.clock.now();
    const times = saved.filter((t) => typeof t === 'number' && Number.isFinite(t) && t > now - this.windowMs).map((t) => Math.min(t, now));
    times.sort((a, b) => a - b);
    this.times.push(...times);
  }

  private prune(now: number): void {
    const edge = now - this.windowMs;
    let i = 0;
    while (i < this.times.length && (this.times[i] as number) <= edge) i++;
    if (i > 0) this.times.splice(0, i);
  }

  /** Slots a request of this kind may still use now. */
  available(kind: RateKind): number {
    this.prune(this.clock.now());
    const cap = kind === 'new' ? this.limit - this.reserveForCancels : this.limit;
    return Math.max(0, cap - this.times.length);
  }

  /** Requests counted in the current window. */
  used(): number {
    this.prune(this.clock.now());
    return this.times.length;
  }

  /** Milliseconds until the oldest request leaves the window (0 when the window is empty). */
  msUntilSlot(): number {
    const now = this.clock.now();
    this.prune(now);
    const first = this.times[0];
    return first === undefined ? 0 : first + this.windowMs - now;
  }

  /** Count `n` requests sent now. */
  take(n = 1): void {
    const now = this.clock.now();
    for (let i = 0; i < n; i++) this.times.push(now);
    if (this.store) {
      this.prune(now);
      this.store.save(this.times);
    }
  }
}
