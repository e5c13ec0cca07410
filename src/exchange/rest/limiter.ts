/**
 * Client-side limit on order calls: at most `limit` calls in any `windowMs` window (the exchange
 * allows 20 order placements per 10 seconds). Calls over the limit wait in FIFO order instead of
 * failing. Time is read from the Clock; `setTimeout` is used only to wait.
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
  private readonly starts: number[] = [];
  private readonly waiting: (() => void)[] = [];
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

  /** Resolves when a call may start; the slot is taken at that moment. */
  acquire(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.drain();
    });
  }

  private drain(): void {
    if (this.timer) return;
    for (;;) {
      if (this.waiting.length === 0) return;
      const now = this.clock.now();
      while (this.starts.length > 0 && (this.starts[0] as number) <= now - this.windowMs) this.starts.shift();
      if (this.starts.length < this.limit) {
        this.starts.push(now);
        (this.waiting.shift() as () => void)();
        continue;
      }
      const wait = Math.min(this.pollMs, Math.max(1, (this.starts[0] as number) + this.windowMs - now));
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.drain();
      }, wait);
      return;
    }
  }
}
