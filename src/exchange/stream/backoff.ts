/**
 * Reconnect delays: capped exponential backoff with jitter.
 *
 * Attempt 0 (the first retry after a connection that was up drops) has no delay: the server's
 * periodic disconnects are routine and the replacement should open at once. Attempt n >= 1 waits
 * `cap = min(maxMs, initialMs * 2^(n-1))`, reduced by jitter: `cap * (1 - jitter * random())`.
 * `jitter: 1` is "full jitter" (uniform in [0, cap]), which spreads the reconnects of many clients
 * (and of our own several connections) after an outage; `jitter: 0` is plain exponential backoff.
 */
import { ParameterError } from '../../core/errors.js';

export interface BackoffOptions {
  /** Delay cap of the first delayed attempt, ms. Default 250. */
  initialMs?: number;
  /** Upper bound of every delay, ms. Default 10 000. */
  maxMs?: number;
  /** Fraction 0..1 of the delay that is randomised. Default 1 (full jitter). */
  jitter?: number;
}

export class Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly jitter: number;

  constructor(
    options: BackoffOptions = {},
    private readonly random: () => number = Math.random,
  ) {
    this.initialMs = options.initialMs ?? 250;
    this.maxMs = options.maxMs ?? 10_000;
    this.jitter = options.jitter ?? 1;
    if (!Number.isFinite(this.initialMs) || this.initialMs < 0) {
      throw new ParameterError('reconnect.initialMs', this.initialMs, 'a number of ms >= 0');
    }
    if (!Number.isFinite(this.maxMs) || this.maxMs < this.initialMs) {
      throw new ParameterError('reconnect.maxMs', this.maxMs, `a number of ms >= initialMs (${this.initialMs})`);
    }
    if (!(this.jitter >= 0 && this.jitter <= 1)) throw new ParameterError('reconnect.jitter', this.jitter, 'a fraction from 0 to 1');
  }

  /** The cap before jitter for an attempt (0 for attempt 0). */
  capFor(attempt: number): number {
    if (attempt <= 0) return 0;
    // 2^(n-1) overflows to Infinity for large n; min() keeps the result at maxMs.
    return Math.min(this.maxMs, this.initialMs * 2 ** (attempt - 1));
  }

  /** The delay before reconnect attempt `attempt` (0-based), in whole ms. */
  delay(attempt: number): number {
    const cap = this.capFor(attempt);
    if (cap === 0) return 0;
    return Math.round(cap * (1 - this.jitter * this.random()));
  }
}
