import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { WallexRestClient } from '../../../src/exchange/rest/client.js';
import { startSampleServer, type SampleReply, type SampleServer } from '../../support/sample-server.js';
import { captureLogger } from './helpers.js';

// Longer than the 40 characters error messages keep of a value: a cut key must not leak either.
const KEY = 'wlx_LEAKCANARY_9f8e7d6c5b4a39281706_abcdefghijklmnopqrstuvwxyz';
const PREFIX = KEY.slice(0, 20);

let server: SampleServer;
beforeAll(async () => {
  server = await startSampleServer();
});
afterAll(async () => server.stop());

/** Every failure path, several of them echoing the key back the way a careless error page would. */
const failures: [string, SampleReply][] = [
  ['401 echoing the header', { status: 401, body: { success: false, code: 401, message: `invalid key ${KEY}`, result: {} } }],
  ['402', { status: 402, body: { success: false, code: 402, message: 'insufficient', result: {} } }],
  ['403 HTML echoing headers', { status: 403, raw: `<html><body><pre>x-api-key: ${KEY}\nhost: 127.0.0.1</pre></body></html>` }],
  ['404', { status: 404, body: { success: false, message: `no route for key ${encodeURIComponent(KEY)}` } }],
  ['409', { status: 409, body: { success: false, code: 409, message: 'duplicate' } }],
  [
    '422 with the key in field messages',
    { status: 422, body: { success: false, code: 422, message: 'invalid', result: { [KEY]: [`bad ${KEY}`], price: [`price for ${KEY}`] } } },
  ],
  ['429', { status: 429, body: { success: false, message: `slow down ${KEY}` }, headers: { 'retry-after': '0' } }],
  ['500 HTML', { status: 500, raw: `<html><title>Error</title><body>request headers: X-API-Key=${KEY}</body></html>` }],
  ['timeout', { hang: true }],
  ['malformed JSON echoing the key', { raw: `{"success": true, "result": "${KEY}` }],
  ['HTML with 200', { raw: `<html><body>${KEY}</body></html>` }],
  ['success:false with 200', { body: { success: false, message: `refused for ${KEY}`, result: null } }],
  [
    'key in a parsed field',
    {
      status: 201,
      body: {
        success: true,
        result: { symbol: 'BTCTMN', type: 'LIMIT', side: 'BUY', clientOrderId: 'k_1', price: KEY, origQty: '1', executedQty: '0', status: 'NEW', active: true },
      },
    },
  ],
];

function allText(err: unknown): string {
  const e = err as Error & Record<string, unknown>;
  const parts = [String(e), e.message, e.stack ?? '', JSON.stringify(e), JSON.stringify(e.context ?? {}), JSON.stringify(e.fields ?? {})];
  let cause = e.cause as (Error & Record<string, unknown>) | undefined;
  while (cause) {
    parts.push(String(cause), cause.stack ?? '', JSON.stringify(cause), JSON.stringify(cause.context ?? {}));
    cause = cause.cause as (Error & Record<string, unknown>) | undefined;
  }
  return parts.join('\n');
}

describe('the API key never leaks', () => {
  it('appears in no log line and no error (message, stack, JSON, context, fields, cause) on any failure path', async () => {
    const { logger, lines } = captureLogger();
    const client = new WallexRestClient({
      baseUrl: server.url,
      apiKey: KEY,
      timeoutMs: 100,
      retries: 1,
      logger,
      sleep: async () => {},
      orderRateLimit: { limit: 1000, windowMs: 1000 },
    });
    const calls: [string, () => Promise<unknown>][] = [
      ['GET', () => client.getBalances()],
      ['POST order', () => client.createOrder({ symbol: 'BTCTMN', side: 'BUY', type: 'LIMIT', price: d('1'), quantity: d('1'), clientId: 'k_1' })],
      ['DELETE cancel', () => client.cancelOrder('k_1')],
    ];
    let checked = 0;
    for (const [name, reply] of failures) {
      server.reset();
      server.route('GET', '/v1/account/balances', reply).route('POST', '/v1/account/orders', reply).route('DELETE', '/v1/account/orders/k_1', reply);
      for (const [callName, call] of calls) {
        const err = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err, `${name} / ${callName} should fail`).toBeInstanceOf(Error);
        expect(allText(err), `${name} / ${callName}`).not.toContain(PREFIX);
        expect(allText(err)).not.toContain(encodeURIComponent(KEY));
        checked++;
      }
      // The key did go out in the header: the scan above is meaningful.
      expect(server.requests.every((r) => r.headers['x-api-key'] === KEY)).toBe(true);
    }
    // Network failure (nothing listening).
    const dead = await startSampleServer();
    const url = dead.url;
    await dead.stop();
    const offline = new WallexRestClient({ baseUrl: url, apiKey: KEY, retries: 1, logger, sleep: async () => {} });
    const netErr = await offline.getBalances().catch((e: unknown) => e);
    expect(allText(netErr)).not.toContain(PREFIX);
    // The same through the order transport (node:http).
    const orderErr = await offline
      .createOrder({ symbol: 'BTCTMN', side: 'BUY', type: 'LIMIT', price: d('1'), quantity: d('1'), clientId: 'k_2' })
      .catch((e: unknown) => e);
    expect(orderErr).toBeInstanceOf(Error);
    expect(allText(orderErr)).not.toContain(PREFIX);

    expect(checked).toBe(failures.length * calls.length);
    expect(lines.length).toBeGreaterThan(failures.length);
    for (const line of lines) expect(line).not.toContain(PREFIX);
    // The debug lines name method, path, status and duration.
    expect(
      lines.some((l) => l.includes('"method":"GET"') && l.includes('"path":"/v1/account/balances"') && l.includes('"status":401') && l.includes('durationMs')),
    ).toBe(true);
  });
});
