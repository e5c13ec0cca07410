import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  DuplicateOrderError,
  ExchangeRejectedError,
  ExchangeUnavailableError,
  InsufficientBalanceError,
  NetworkError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RequestTimeoutError,
  ResponseParseError,
  ValidationError,
  type MizanError,
} from '../../../src/core/errors.js';
import { ManualClock } from '../../../src/core/clock.js';
import { d } from '../../../src/core/decimal.js';
import { WallexRestClient } from '../../../src/exchange/rest/client.js';
import { describeNetworkError } from '../../../src/exchange/rest/http.js';
import { startSampleServer, type SampleServer } from '../../support/sample-server.js';
import { makeClient } from './helpers.js';

let server: SampleServer;
beforeAll(async () => {
  server = await startSampleServer();
});
afterAll(async () => server.stop());
beforeEach(() => server.reset());

const env = (code: number, message: string, result: unknown = {}) => ({ success: false, code, message, result });
const fail = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as MizanError,
  );

describe('error mapping', () => {
  it.each([
    [
      401,
      AuthenticationError,
      /HTTP 401: authentication failed: check that the API key is set, correct and not expired \(exchange said: توکن ارسالی نامعتبر است\)/,
      'توکن ارسالی نامعتبر است',
    ],
    [402, InsufficientBalanceError, /HTTP 402: insufficient balance/, 'موجودی کیف پول کافی نیست'],
    [403, PermissionDeniedError, /lacks the permission for this call, or this IP/, 'Forbidden'],
    [404, NotFoundError, /GET \/v1\/account\/balances -> HTTP 404: not found \(exchange said: Not found\)/, 'Not found'],
    [409, DuplicateOrderError, /duplicate client order id/, 'duplicate'],
  ])('%i maps to its final error class', async (status, cls, msg, message) => {
    const { client, sleeps } = makeClient(server);
    server.route('GET', '/v1/account/balances', { status, body: env(status, message) });
    const err = await fail(client.getBalances());
    expect(err).toBeInstanceOf(cls);
    expect(err?.retryable).toBe(false);
    expect(err?.message).toMatch(msg);
    expect(err?.context).toMatchObject({ method: 'GET', path: '/v1/account/balances', status, exchangeMessage: message });
    expect(server.requests).toHaveLength(1); // final errors are not retried
    expect(sleeps).toEqual([]);
  });

  it('422 carries the field messages (real sample body)', async () => {
    const { client } = makeClient(server);
    server.route('POST', '/v1/account/orders', { status: 422, sample: 'rest_error_422__developers-wallex-ir-sub-account-transfer.json' });
    const err = await fail(client.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: d('1'), quantity: d('1'), clientId: 'x' }));
    expect(err).toBeInstanceOf(ValidationError);
    const v = err as ValidationError;
    expect(v.fields).toEqual({ currency: ['انتقال ارز BTC به این اکانت مجاز نمی باشد.'] });
    expect(v.message).toMatch(/HTTP 422: invalid values \(exchange said: اطلاعات وارد شده اشتباه است\) \[currency: انتقال ارز BTC/);
    expect(v.context.code).toBe(422);
  });

  it('429 then success: waits Retry-After and succeeds', async () => {
    const { client, sleeps } = makeClient(server);
    server.route('GET', '/v1/markets', [
      { status: 429, body: env(429, 'Too Many Requests'), headers: { 'retry-after': '2', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0' } },
      { sample: 'rest_v1_markets__phinix-docs-en-2022.txt' },
    ]);
    const markets = await client.getMarkets();
    expect(markets[0]?.symbol).toBe('BTCTMN');
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toContain(2000);
  });

  it('429 with only x-ratelimit-remaining: 0 waits for the window; an HTTP-date Retry-After is honoured', async () => {
    const { client, sleeps } = makeClient(server, { retryPolicy: { rateLimitWindowMs: 1234 } });
    server.route('GET', '/v1/markets', [
      { status: 429, raw: '', headers: { 'x-ratelimit-remaining': '0' } },
      { sample: 'rest_v1_markets__phinix-docs-en-2022.txt' },
    ]);
    await client.getMarkets();
    expect(sleeps).toContain(1234);
    const date = new Date(Date.now() + 30_000).toUTCString();
    server.route('GET', '/v1/markets', [{ status: 429, raw: '', headers: { 'retry-after': date } }, { sample: 'rest_v1_markets__phinix-docs-en-2022.txt' }]);
    sleeps.length = 0;
    await client.getMarkets();
    expect(sleeps.some((ms) => ms > 25_000 && ms <= 30_000)).toBe(true);
  });

  it('a spent limit (remaining 0 with a reset) holds the next call to that endpoint only', async () => {
    const clock = new ManualClock(1_000_000);
    const { client, sleeps } = makeClient(server, { clock });
    server.route('GET', '/v1/trades', {
      sample: 'rest_v1_trades__phinix-docs-en-2022.txt',
      headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3' },
    });
    server.route('GET', '/v1/markets', { sample: 'rest_v1_markets__phinix-docs-en-2022.txt' });
    await client.getTrades('BTCTMN');
    expect(sleeps).toEqual([]);
    await client.getMarkets();
    expect(sleeps).toEqual([]);
    await client.getTrades('BTCTMN');
    expect(sleeps).toEqual([3000]);
  });

  it('429 beyond the retries ends in RateLimitError with retryAfterMs', async () => {
    const { client } = makeClient(server, { retries: 2 });
    server.route('GET', '/v1/markets', { status: 429, body: env(429, 'Too Many Requests'), headers: { 'retry-after': '1' } });
    const err = await fail(client.getMarkets());
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfterMs).toBe(1000);
    expect(err?.message).toMatch(/rate limited: too many requests; retry after 1000 ms/);
    expect(server.requests).toHaveLength(3);
  });

  it('500 is retried with jittered, growing, capped backoff, then ExchangeUnavailableError', async () => {
    const { client, sleeps } = makeClient(server, { retries: 4, random: () => 0.999, retryPolicy: { baseDelayMs: 100, maxDelayMs: 500 } });
    server.route('GET', '/v1/markets', { status: 500, body: env(500, 'سرور در دسترس نیست') });
    const err = await fail(client.getMarkets());
    expect(err).toBeInstanceOf(ExchangeUnavailableError);
    expect(err?.retryable).toBe(true);
    expect(err?.message).toMatch(/HTTP 500: the exchange is unavailable or failed; try again later/);
    expect(server.requests).toHaveLength(5);
    expect(sleeps).toEqual([99, 199, 399, 499]);
  });

  it('timeout gives RequestTimeoutError after the retries', async () => {
    const { client } = makeClient(server, { timeoutMs: 100, retries: 1 });
    server.route('GET', '/v1/markets', { hang: true });
    const err = await fail(client.getMarkets());
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(err?.message).toBe(`GET /v1/markets: no answer within 100 ms from ${server.url}`);
    expect(server.requests).toHaveLength(2);
  });

  it('malformed JSON with 200 is a ResponseParseError (not retried)', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/markets', { raw: '{"success": true, "result": {"symbols": ' });
    const err = await fail(client.getMarkets());
    expect(err).toBeInstanceOf(ResponseParseError);
    expect(err?.message).toMatch(/GET \/v1\/markets -> HTTP 200: expected JSON, got malformed JSON/);
    expect(server.requests).toHaveLength(1);
  });

  it('an HTML error page: 502 is ExchangeUnavailableError with the page text; 200 HTML is a parse error', async () => {
    const { client } = makeClient(server, { retries: 0 });
    server.route('GET', '/v1/markets', {
      status: 502,
      raw: '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>',
    });
    const err = await fail(client.getMarkets());
    expect(err).toBeInstanceOf(ExchangeUnavailableError);
    expect(err?.message).toMatch(/HTTP 502: .*\(exchange said: 502 Bad Gateway 502 Bad Gateway nginx\)/);
    server.route('GET', '/v1/markets', { raw: '<!DOCTYPE html><html><body>Maintenance</body></html>' });
    const err2 = await fail(client.getMarkets());
    expect(err2).toBeInstanceOf(ResponseParseError);
    expect(err2?.message).toMatch(/expected JSON, got an HTML page \("Maintenance"\)/);
  });

  it('success:false with HTTP 200 is an error too (code picks the class)', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/account/balances', { body: { success: false, message: 'عملیات ناموفق', result: null } });
    const err = await fail(client.getBalances());
    expect(err).toBeInstanceOf(ExchangeRejectedError);
    expect(err?.message).toMatch(/HTTP 200: the exchange answered success: false \(exchange said: عملیات ناموفق\)/);
    server.route('GET', '/v1/account/balances', { body: env(422, 'invalid', { symbol: ['The symbol field is required.'] }) });
    const err2 = await fail(client.getBalances());
    expect(err2).toBeInstanceOf(ValidationError);
    expect((err2 as ValidationError).fields.symbol).toEqual(['The symbol field is required.']);
  });

  it('a body without the envelope where one is required is a parse error', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/account/balances', { body: { balances: {} } });
    await expect(client.getBalances()).rejects.toThrow(/expected the \{success, result\} envelope/);
  });

  it('a missing price on an order is an error, never zero', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/account/orders/x_1', {
      body: {
        success: true,
        result: { symbol: 'BTCTMN', type: 'LIMIT', side: 'BUY', clientOrderId: 'x_1', origQty: '1', executedQty: '0', status: 'NEW', active: true },
      },
    });
    const err = await fail(client.getOrder('x_1'));
    expect(err).toBeInstanceOf(ResponseParseError);
    expect(err?.message).toBe('result.price: expected a number or numeric string, got nothing (field missing)');
  });

  it('connection refused is a NetworkError, retried for GETs', async () => {
    const dead = await startSampleServer();
    const url = dead.url;
    await dead.stop();
    const sleeps: number[] = [];
    const client = new WallexRestClient({ baseUrl: url, retries: 2, sleep: async (ms) => void sleeps.push(ms) });
    const err = await fail(client.getMarkets());
    expect(err).toBeInstanceOf(NetworkError);
    expect(err?.message).toBe(`GET /v1/markets: could not reach the exchange at ${url}: fetch failed: connect ECONNREFUSED ${new URL(url).host}`);
    expect(sleeps).toHaveLength(2);
  });

  it('a connection failure names the address and the cause, without user info, query or key', async () => {
    // Port 1 is one of the ports fetch refuses to connect to: its cause ("bad port") has no code.
    const client = new WallexRestClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'KEY-0a1b2c3d4e5f', retries: 0 });
    const err = await fail(client.getBalances());
    expect(err).toBeInstanceOf(NetworkError);
    expect(err?.message).toBe('GET /v1/account/balances: could not reach the exchange at http://127.0.0.1:1: fetch failed: bad port');
    const secretUrl = 'http://user:pw-9f8e7d@127.0.0.1:1/prefix/?token=tok-6c5b4a#frag';
    const err2 = await fail(new WallexRestClient({ baseUrl: secretUrl, retries: 0 }).getMarkets());
    expect(err2).toBeInstanceOf(NetworkError);
    expect(err2?.message).toMatch(/^GET \/v1\/markets: could not reach the exchange at http:\/\/127\.0\.0\.1:1\/prefix: /);
    expect(err2?.message).not.toMatch(/pw-9f8e7d|tok-6c5b4a|frag/);
  });

  it('describeNetworkError: each cause with its code, an AggregateError by its parts, user info removed', () => {
    const sys = (message: string, code: string) => Object.assign(new Error(message), { code });
    expect(describeNetworkError(new TypeError('fetch failed', { cause: sys('getaddrinfo ENOTFOUND api.example', 'ENOTFOUND') }))).toBe(
      'fetch failed: getaddrinfo ENOTFOUND api.example',
    );
    expect(describeNetworkError(new TypeError('fetch failed', { cause: sys('Connect Timeout Error', 'UND_ERR_CONNECT_TIMEOUT') }))).toBe(
      'fetch failed: Connect Timeout Error (UND_ERR_CONNECT_TIMEOUT)',
    );
    expect(describeNetworkError(sys('socket hang up', 'ECONNRESET'))).toBe('socket hang up (ECONNRESET)');
    const both = Object.assign(
      new AggregateError([sys('connect ECONNREFUSED ::1:80', 'ECONNREFUSED'), sys('connect ECONNREFUSED 127.0.0.1:80', 'ECONNREFUSED')], ''),
      {
        code: 'ECONNREFUSED',
      },
    );
    expect(describeNetworkError(both)).toBe('connect ECONNREFUSED ::1:80; connect ECONNREFUSED 127.0.0.1:80');
    expect(describeNetworkError(new TypeError('Request cannot be constructed from a URL that includes credentials: http://u:p@h:1/x'))).toBe(
      'Request cannot be constructed from a URL that includes credentials: http://h:1/x',
    );
    // A password may hold a raw '@' (the URL parser takes the last one as the end of the user info).
    expect(describeNetworkError(new TypeError('Request cannot be constructed from a URL that includes credentials: http://user:p@ss@h:1/x'))).toBe(
      'Request cannot be constructed from a URL that includes credentials: http://h:1/x',
    );
    expect(describeNetworkError('text')).toBe('text');
  });
});
