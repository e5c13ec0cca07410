/**
 * Client-side limit on order calls: at most `limit` calls in any `windowMs` window (the exchange
 * allows 20 order placements per 10 seconds). Calls over the limit wait in FIFO order instead of
 * failing. Time is read from the Clock; `setTimeout` is used only to wait.
 *
 * The exchange counts a call when it arrives, the client when it starts: a call that took a while in
 * flight could still be inside the exchange's window when the client's has moved past it. So a slot
 * counts from the call's start until `release()` (called when the answer arrives) moves it to that
 * moment: conservative, never early.
 */
import { SystemClock, type Clock } from '../../core/clock.js';

export interface OrderRateLimit {
  limit: number;
  windowMs: number;
  /**
   * Longest single wait before the window is checked again (default 250 ms), so a clock moved by
   * hand (tests, simulations) is noticed promptly.
   */
  pollMs?: number;
}

export const DEFAULT_ORDER_RATE_LIMIT: OrderRateLimit = { limit: 20, windowMs: 10_000 };

export class OrderRateLimiter {
  private readonly slots: { t: number }[] = [];
  private readonly waiting: ((release: () => void) => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  readonly limit: number;
  readonly windowMs: number;
  private readonly pollMs: number;

  constructor(
    options: OrderRateLimit = DEFAULT_ORDER_RATE_LIMIT,
    private readonly clock: Clock = new SystemClock(),
  ) {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError(`orderRateLimit.limit must be a positive integer, got ${options.limit}`);
    if (!Number.isFinite(options.windowMs) || options.windowMs <= 0) throw new RangeError(`orderRateLimit.windowMs must be positive, got ${options.windowMs}`);
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.pollMs = options.pollMs ?? 250;
  }

  /** Calls waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Resolves when a call may start; the slot is taken at that moment. Call the returned `release`
   * when the answer (or the failure) arrives: the slot then counts from that moment.
   */
  acquire(): Promise<() => void> {
    return new Promise<() => void>((resolve) => {
      this.waiting.push(resolve);
      this.drain();
    });
  }

  /** Slots counted in the current window. */
  get inWindow(): number {
    const now = this.clock.now();
    return this.slots.filter((s) => s.t > now - this.windowMs).length;
  }

  private drain(): void {
    if (this.timer) return;
    for (;;) {
      if (this.waiting.length === 0) return;
      const now = this.clock.now();
      for (let i = this.slots.length - 1; i >= 0; i--) if (this.slots[i]!.t <= now - this.windowMs) this.slots.splice(i, 1);
      if (this.slots.length < this.limit) {
        const slot = { t: now };
        this.slots.push(slot);
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          slot.t = Math.max(slot.t, this.clock.now());
        };
        (this.waiting.shift() as (r: () => void) => void)(release);
        continue;
      }
      let oldest = Infinity;
      for (const s of this.slots) oldest = Math.min(oldest, s.t);
      const wait = Math.min(this.pollMs, Math.max(1, oldest + this.windowMs - now));
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.drain();
      }, wait);
      return;
    }
  }
}
