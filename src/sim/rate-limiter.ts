/**
 * Sliding-window call limiter: at most `limit` calls per `windowMs` per key (the exchange allows 20
 * order calls per 10 seconds per account). Time comes from the injected clock.
 */
import type { Clock } from '../core/clock.js';
import { ChurnMap } from '../core/churn-map.js';

export interface RateState {
  limit: number;
  remaining: number;
  /** Milliseconds until a call is allowed again (0 when one is allowed now). */
  retryAfterMs: number;
}

export class SlidingWindowLimiter {
  private readonly calls = new ChurnMap<string, number[]>();

  constructor(
    private readonly clock: Clock,
    readonly limit = 20,
    readonly windowMs = 10_000,
  ) {}

  private recent(key: string): number[] {
    const now = this.clock.now();
    const list = (this.calls.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (list.length === 0) this.calls.delete(key);
    else this.calls.set(key, list);
    return list;
  }

  /** The current state without counting a call. */
  peek(key: string): RateState {
    const list = this.recent(key);
    const remaining = Math.max(0, this.limit - list.length);
    const oldest = list[0];
    const retryAfterMs = remaining > 0 || oldest === undefined ? 0 : oldest + this.windowMs - this.clock.now();
    return { limit: this.limit, remaining, retryAfterMs };
  }

  /** Count a call if one is allowed; `allowed: false` (and nothing counted) when the window is full. */
  take(key: string): RateState & { allowed: boolean } {
    const state = this.peek(key);
    if (state.remaining === 0) return { ...state, allowed: false };
    const list = this.calls.get(key) ?? [];
    list.push(this.clock.now());
    this.calls.set(key, list);
    return { ...state, remaining: state.remaining - 1, allowed: true };
  }
}
