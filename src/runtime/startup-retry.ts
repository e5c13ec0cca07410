/**
 * The start of a bot rides out a rate-limited or slow exchange. Its reads (markets, fees, balances,
 * open orders, the recovery lookups) go through `StartupRetry`: an error a retry can help (429,
 * 5xx, timeout, connection refused) is retried with backoff, honouring the exchange's Retry-After,
 * until the start-up budget (`exchange.startupRetryMs`, counted from the start) is spent. Each wait
 * is logged once: `exchange rate-limited at start: retrying GET /v1/markets in 1.0 s (attempt 3)`.
 * Final errors (401, 403, 422, …) are thrown at once. Without this a short 429 burst made a live
 * bot exit, and under systemd the restart loop added load to an exchange that was already limiting.
 *
 * Once the bot is running (`finish()`), the wrapped objects call straight through: a running bot
 * has its own retries (polling, balance syncs, resyncs).
 */
import { SystemClock, type Clock } from '../core/clock.js';
import { ExchangeUnavailableError, isRetryable, MizanError, NetworkError, RateLimitError, RequestTimeoutError, RetryableError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';

/** The start-up budget was spent while the exchange kept failing; `cause` is the last error. */
export class StartupBudgetError extends RetryableError {
  constructor(
    readonly budgetMs: number,
    readonly last: MizanError,
    attempts: number,
  ) {
    super(
      `the exchange still failed after ${attempts} attempt(s) over the start-up budget (exchange.startupRetryMs: ${budgetMs} ms): ${last.message}`,
      last.context,
      { cause: last },
    );
  }
}

/**
 * A stop was asked for (Ctrl-C, SIGTERM) while the bot was starting, before any strategy started:
 * what was built is closed again and nothing is left running.
 */
export class StartAbortedError extends Error {
  constructor(readonly why: string) {
    super(`stopped during start-up (${why}): no strategy was started`);
    this.name = 'StartAbortedError';
  }
}

export interface StartupRetryOptions {
  /** Total time the start may spend retrying, from the construction of this object (ms). 0: no retry. */
  budgetMs: number;
  logger: Logger;
  clock?: Clock;
  /** First backoff (doubles per attempt, up to `maxDelayMs`) when the exchange names no wait. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Aborted when a stop is asked for during the start: a retry wait ends at once (StartAbortedError). */
  signal?: AbortSignal;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** How the log line names a failure. */
function kindOf(err: unknown): string {
  if (err instanceof RateLimitError) return 'exchange rate-limited at start';
  if (err instanceof RequestTimeoutError) return 'exchange did not answer in time at start';
  if (err instanceof ExchangeUnavailableError) return 'exchange unavailable at start';
  if (err instanceof NetworkError) return 'exchange unreachable at start';
  return 'exchange call failed at start';
}

export class StartupRetry {
  private readonly deadline: number;
  private readonly clock: Clock;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly base: number;
  private readonly cap: number;
  private running = true;

  constructor(private readonly o: StartupRetryOptions) {
    if (!Number.isFinite(o.budgetMs) || o.budgetMs < 0)
      throw new RangeError(`startupRetryMs must be a non-negative number of milliseconds, got ${String(o.budgetMs)}`);
    this.clock = o.clock ?? new SystemClock();
    this.deadline = this.clock.now() + o.budgetMs;
    this.sleep = o.sleep ?? defaultSleep;
    this.random = o.random ?? Math.random;
    this.base = o.baseDelayMs ?? 1_000;
    this.cap = o.maxDelayMs ?? 10_000;
  }

  /** The bot is running: from now on wrapped objects call straight through. */
  finish(): void {
    this.running = false;
  }

  get active(): boolean {
    return this.running;
  }

  /** Throws StartAbortedError when a stop was asked for (the start checks between its steps). */
  checkAborted(): void {
    const signal = this.o.signal;
    if (signal?.aborted) throw new StartAbortedError(typeof signal.reason === 'string' ? signal.reason : 'stop requested');
  }

  /** A retry wait that a stop ends at once. */
  private async wait(ms: number): Promise<void> {
    const signal = this.o.signal;
    if (!signal) return this.sleep(ms);
    let onAbort: (() => void) | undefined;
    await Promise.race([this.sleep(ms), new Promise<void>((r) => signal.addEventListener('abort', (onAbort = () => r()), { once: true }))]);
    if (onAbort) signal.removeEventListener('abort', onAbort);
    this.checkAborted();
  }

  /** Run a start-up read, retrying what a retry can help until the budget is spent. */
  async call<T>(fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      if (this.running) this.checkAborted();
      try {
        return await fn();
      } catch (err) {
        if (!this.running || !isRetryable(err)) throw err;
        const e = err as MizanError;
        const wait = e instanceof RateLimitError && e.retryAfterMs !== undefined ? e.retryAfterMs : this.backoff(attempt);
        if (this.clock.now() + wait > this.deadline) {
          if (this.o.budgetMs === 0) throw err;
          throw new StartupBudgetError(this.o.budgetMs, e, attempt);
        }
        const call = e.context.method && e.context.path ? `${e.context.method} ${e.context.path}` : 'the call';
        this.o.logger.warn(
          { method: e.context.method, path: e.context.path, attempt: attempt + 1, delayMs: wait, error: e.message },
          `${kindOf(e)}: retrying ${call} in ${(wait / 1000).toFixed(1)} s (attempt ${attempt + 1})`,
        );
        await this.wait(wait);
      }
    }
  }

  /**
   * The same object, with the named methods (reads only: they are called again) going through
   * `call` while the start lasts. Other members are the target's own, bound to it.
   */
  wrap<T extends object>(target: T, methods: readonly (keyof T & string)[]): T {
    const names = new Set<string | symbol>(methods);
    return new Proxy(target, {
      get: (t, prop) => {
        const v = Reflect.get(t, prop, t) as unknown;
        if (typeof v !== 'function') return v;
        const fn = v as (...a: unknown[]) => unknown;
        if (!names.has(prop)) return fn.bind(t);
        return (...args: unknown[]) => (this.running ? this.call(() => fn.apply(t, args) as Promise<unknown>) : fn.apply(t, args));
      },
    });
  }

  /** Exponential backoff from `base`, capped, with jitter in its upper half. */
  private backoff(attempt: number): number {
    const ceiling = Math.min(this.cap, this.base * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }
}

/** The balance reads of the API-key check, each retried at start (sub-account views too). */
export function startupKeyClient<C extends { getBalances(): Promise<B>; withSubAccount(id: string, apiKey?: string): { getBalances(): Promise<B> } }, B>(
  s: StartupRetry,
  client: C,
) {
  return {
    getBalances: () => s.call(() => client.getBalances()),
    withSubAccount: (id: string, apiKey?: string) => {
      const sub = client.withSubAccount(id, apiKey);
      return { getBalances: () => s.call(() => sub.getBalances()) };
    },
  };
}

/**
 * `venueFor` whose venues retry the named reads while the start lasts (one wrapper per account),
 * and are the venues themselves once it is over.
 */
export function startupVenues<V extends object>(
  s: StartupRetry,
  venueFor: (account: string) => V,
  methods: readonly (keyof V & string)[],
): (account: string) => V {
  const wrapped = new Map<string, { venue: V; wrapper: V }>();
  return (account) => {
    const venue = venueFor(account);
    if (!s.active) return venue;
    let w = wrapped.get(account);
    if (w?.venue !== venue) wrapped.set(account, (w = { venue, wrapper: s.wrap(venue, methods) }));
    return w.wrapper;
  };
}
