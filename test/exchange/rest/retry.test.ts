import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_RETRY_POLICY, parseRateLimitReset, parseRetryAfter, rateLimitWait } from '../../../src/exchange/rest/retry.js';

describe('retry policy', () => {
  it('full jitter stays under an exponentially growing, capped ceiling', () => {
    const p = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4, 10].map((a) => backoffDelay(a, p, () => 0.999999))).toEqual([99, 199, 399, 799, 999, 999]);
    expect(backoffDelay(3, p, () => 0)).toBe(0);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.UTC(2024, 0, 1, 0, 0, 0);
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('0.5', now)).toBe(500);
    expect(parseRetryAfter(new Date(now + 7000).toUTCString(), now)).toBe(7000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('reads x-ratelimit-reset as seconds to wait or epoch seconds', () => {
    const now = 1_700_000_000_000;
    expect(parseRateLimitReset('4', now)).toBe(4000);
    expect(parseRateLimitReset('1700000010', now)).toBe(10_000);
  });

  it('waits only when asked: Retry-After, or remaining 0 (reset, else the window for a 429)', () => {
    const p = { ...DEFAULT_RETRY_POLICY, rateLimitWindowMs: 10_000 };
    const h = (o: Record<string, string>) => new Headers(o);
    expect(rateLimitWait(h({ 'x-ratelimit-remaining': '5' }), 0, p, 200)).toBeUndefined();
    expect(rateLimitWait(h({ 'x-ratelimit-remaining': '0' }), 0, p, 200)).toBeUndefined();
    expect(rateLimitWait(h({ 'x-ratelimit-remaining': '0' }), 0, p, 429)).toBe(10_000);
    expect(rateLimitWait(h({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2' }), 0, p, 200)).toBe(2000);
    expect(rateLimitWait(h({ 'retry-after': '1' }), 0, p, 429)).toBe(1000);
  });
});

describe('client options', () => {
  it('are checked when the client is made', async () => {
    const { WallexRestClient } = await import('../../../src/exchange/rest/client.js');
    expect(() => new WallexRestClient({ baseUrl: 'not a url' })).toThrow(/baseUrl: not a URL/);
    expect(() => new WallexRestClient({ baseUrl: 'ftp://127.0.0.1' })).toThrow(/baseUrl: must be http/);
    expect(() => new WallexRestClient({ baseUrl: 'http://127.0.0.1:1', retries: -1 })).toThrow(/retries must be a non-negative integer/);
    expect(() => new WallexRestClient({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 0 })).toThrow(/timeoutMs must be positive/);
    expect(() => new WallexRestClient({ baseUrl: 'http://127.0.0.1:1', orderRateLimit: { limit: 0, windowMs: 10 } })).toThrow(/orderRateLimit.limit/);
  });
});
