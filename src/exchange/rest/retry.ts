/**
 * Retry policy for idempotent calls (GETs and the cancel DELETE): exponential backoff with full
 * jitter, capped; a 429 waits what `Retry-After` (seconds or HTTP date) says, or, with
 * `x-ratelimit-remaining: 0`, until `x-ratelimit-reset` or for one rate-limit window.
 */
export interface RetryPolicy {
  /** Retries after the first attempt (0 = no retry). */
  retries: number;
  /** First backoff ceiling; doubles per attempt. */
  baseDelayMs: number;
  /** Ceiling of any backoff delay. */
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the RateLimitError is thrown at once. */
  maxRetryAfterMs: number;
  /** Wait after a 429 with `x-ratelimit-remaining: 0` and no reset time. */
  rateLimitWindowMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 3,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  rateLimitWindowMs: 10_000,
};

/** Full jitter: a uniform delay in [0, min(cap, base * 2^attempt)). `attempt` counts from 0. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/** Retry-After as milliseconds from now: delta seconds or an HTTP date. Undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.ceil(Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isFinite(at)) return Math.max(0, at - nowMs);
  return undefined;
}

/**
 * `x-ratelimit-reset` as milliseconds from now: epoch seconds (values above 1e9) or seconds to wait.
 */
export function parseRateLimitReset(value: string | null, nowMs: number): number | undefined {
  if (value === null || !/^\d+(\.\d+)?$/.test(value.trim())) return undefined;
  const n = Number(value.trim());
  return n > 1e9 ? Math.max(0, n * 1000 - nowMs) : Math.ceil(n * 1000);
}

/** How long the exchange asked us to wait, from the rate-limit headers of a response (undefined: not asked). */
export function rateLimitWait(headers: { get(name: string): string | null }, nowMs: number, policy: RetryPolicy, status: number): number | undefined {
  const retryAfter = parseRetryAfter(headers.get('retry-after'), nowMs);
  if (retryAfter !== undefined) return retryAfter;
  if (headers.get('x-ratelimit-remaining')?.trim() === '0') {
    return parseRateLimitReset(headers.get('x-ratelimit-reset'), nowMs) ?? (status === 429 ? policy.rateLimitWindowMs : undefined);
  }
  return undefined;
}
