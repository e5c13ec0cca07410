/**
 * Unit test of the start-up retry (src/runtime/startup-retry.ts) with a manual clock and a sleep
 * that advances it: which errors are retried, the waits logged, the budget, and the pass-through
 * once the bot runs. The whole path (a child `mizan run --live` against `mizan sim`) is in
 * test/e2e/live-start-faults.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { AuthenticationError, ExchangeUnavailableError, RateLimitError, RequestTimeoutError } from '../../src/core/errors.js';
import { StartupBudgetError, StartupRetry } from '../../src/runtime/startup-retry.js';
import { capturingLogger } from '../scenario/helpers.js';

function setup(budgetMs = 60_000) {
  const clock = new ManualClock(1_000_000);
  const logger = capturingLogger();
  const waits: number[] = [];
  const s = new StartupRetry({ budgetMs, logger, clock, random: () => 0.5, sleep: async (ms) => void (waits.push(ms), clock.advance(ms)) });
  return { s, logger, waits, clock };
}

const ctx = { method: 'GET', path: '/v1/markets' };

describe('StartupRetry', () => {
  it('waits what a 429 asks, backs off on 5xx and timeouts, and logs each wait once', async () => {
    const { s, logger, waits } = setup();
    const errors = [new RateLimitError('429', ctx, 1000), new ExchangeUnavailableError('503', ctx), new RequestTimeoutError('slow', ctx)];
    let calls = 0;
    const v = await s.call(async () => {
      const e = errors[calls++];
      if (e) throw e;
      return 'markets';
    });
    expect(v).toBe('markets');
    expect(waits).toEqual([1000, 1500, 3000]);
    expect(logger.messages).toEqual([
      'exchange rate-limited at start: retrying GET /v1/markets in 1.0 s (attempt 2)',
      'exchange unavailable at start: retrying GET /v1/markets in 1.5 s (attempt 3)',
      'exchange did not answer in time at start: retrying GET /v1/markets in 3.0 s (attempt 4)',
    ]);
  });

  it('throws a final error (401) at once', async () => {
    const { s, waits } = setup();
    const e = new AuthenticationError('401', ctx);
    await expect(s.call(() => Promise.reject(e))).rejects.toBe(e);
    expect(waits).toEqual([]);
  });

  it('gives up when the next wait would pass the budget, naming it and the last error', async () => {
    const { s, clock } = setup(5_000);
    const started = clock.now();
    const err = await s.call(() => Promise.reject(new RateLimitError('GET /v1/markets -> HTTP 429', ctx, 2000))).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(StartupBudgetError);
    expect((err as Error).message).toBe(
      'the exchange still failed after 3 attempt(s) over the start-up budget (exchange.startupRetryMs: 5000 ms): GET /v1/markets -> HTTP 429',
    );
    expect(clock.now() - started).toBe(4000);
  });

  it('retries only the named methods, and none once the bot runs', async () => {
    const { s } = setup();
    let reads = 0;
    let writes = 0;
    const target = {
      kind: 'live',
      read: async () => (reads++ === 0 ? Promise.reject(new ExchangeUnavailableError('503', ctx)) : 'ok'),
      write: async () => (writes++, Promise.reject(new ExchangeUnavailableError('503', ctx))),
    };
    const w = s.wrap(target, ['read']);
    expect(w.kind).toBe('live');
    await expect(w.read()).resolves.toBe('ok');
    await expect(w.write()).rejects.toBeInstanceOf(ExchangeUnavailableError);
    expect(writes).toBe(1);
    s.finish();
    reads = 0;
    await expect(w.read()).rejects.toBeInstanceOf(ExchangeUnavailableError);
    expect(reads).toBe(1);
  });
});
