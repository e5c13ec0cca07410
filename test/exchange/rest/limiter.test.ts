import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { d } from '../../../src/core/decimal.js';
import { OrderRateLimiter } from '../../../src/exchange/rest/limiter.js';
import { startSampleServer, type SampleServer } from '../../support/sample-server.js';
import { waitFor } from '../../support/wait-for.js';
import { makeClient } from './helpers.js';

/** A manual clock that counts its reads: the limiter re-reads the time each time it re-checks. */
class CountingClock extends ManualClock {
  reads = 0;
  override now(): number {
    this.reads++;
    return super.now();
  }
  /** Resolves once the time has been read `n` more times: the limiter has looked again since. */
  readAgain(n: number, what: string): Promise<void> {
    const target = this.reads + n;
    return waitFor(() => this.reads >= target, { what, timeout: 10_000, interval: 1 });
  }
}

describe('OrderRateLimiter', () => {
  it('lets `limit` calls through per window and queues the rest in order', async () => {
    const clock = new CountingClock(1_000);
    const limiter = new OrderRateLimiter({ limit: 3, windowMs: 10_000, pollMs: 5 }, clock);
    const started: number[] = [];
    const all = [0, 1, 2, 3, 4].map((i) => limiter.acquire().then(() => started.push(i)));
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    expect(limiter.queued).toBe(2);
    clock.advance(9_999);
    await clock.readAgain(2, 'the limiter to re-check after 9,999 ms');
    expect(started).toEqual([0, 1, 2]);
    clock.advance(1);
    await Promise.all(all);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(limiter.queued).toBe(0);
  });

  it('counts a slot until the answer arrives: a slow call keeps its slot past the window of its start', async () => {
    const clock = new CountingClock(0);
    const limiter = new OrderRateLimiter({ limit: 1, windowMs: 10_000, pollMs: 5 }, clock);
    const release = await limiter.acquire();
    clock.advance(3_000); // the call was in flight 3 s: the exchange may have counted it at 3 s
    release();
    let second = false;
    const next = limiter.acquire().then(() => (second = true));
    clock.advance(7_000); // 10 s after the start, 7 s after the answer
    await clock.readAgain(2, 'the limiter to re-check 7 s after the answer');
    expect(second).toBe(false);
    clock.advance(3_000); // 10 s after the answer
    await next;
    expect(second).toBe(true);
    release(); // releasing twice changes nothing
    expect(limiter.inWindow).toBe(1);
  });

  it('rejects a nonsensical configuration', () => {
    expect(() => new OrderRateLimiter({ limit: 0, windowMs: 1000 })).toThrow(/orderRateLimit.limit/);
    expect(() => new OrderRateLimiter({ limit: 5, windowMs: -1 })).toThrow(/orderRateLimit.windowMs/);
  });
});

describe('order calls through the client', () => {
  let server: SampleServer;
  beforeAll(async () => {
    server = await startSampleServer();
  });
  afterAll(async () => server.stop());

  it('queue instead of failing when over the limit; reads are not limited', async () => {
    const clock = new CountingClock(0);
    const { client } = makeClient(server, { clock, orderRateLimit: { limit: 2, windowMs: 60_000, pollMs: 5 } });
    server.route('POST', '/v1/account/orders', { sample: 'rest_v1_account_orders_create__api-docs-wallex-ir-crawl.json', status: 201 });
    server.route('GET', '/v1/markets', { sample: 'rest_v1_markets__phinix-docs-en-2022.txt' });
    const order = (i: number) => client.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: d('1'), quantity: d('1'), clientId: `q_${i}` });
    const results = [order(1), order(2), order(3), order(4)];
    await Promise.all(results.slice(0, 2));
    await client.getMarkets();
    await clock.readAgain(3, 'the limiter to re-check with two orders queued');
    expect(server.received('POST', '/v1/account/orders').map((r) => (r.body as { client_id: string }).client_id)).toEqual(['q_1', 'q_2']);
    clock.advance(60_000);
    await Promise.all(results);
    expect(server.received('POST', '/v1/account/orders').map((r) => (r.body as { client_id: string }).client_id)).toEqual(['q_1', 'q_2', 'q_3', 'q_4']);
  });
});
