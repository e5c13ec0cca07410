/**
 * Order calls go over a kept-alive node:http connection, every other call over ky; both must look
 * the same to the exchange and give the same results and errors. Real HTTP servers on 127.0.0.1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { WallexRestClient } from '../../../src/exchange/rest/client.js';
import { startSampleServer, type SampleReply, type SampleServer } from '../../support/sample-server.js';
import { API_KEY, makeClient } from './helpers.js';

const ORDER = { symbol: 'BTCTMN', side: 'BUY', type: 'LIMIT', price: d('1000'), quantity: d('0.5'), clientId: 'tx_1' } as const;
const CREATED = {
  status: 201,
  body: {
    success: true,
    message: 'ok',
    result: {
      symbol: 'BTCTMN',
      type: 'LIMIT',
      side: 'BUY',
      clientOrderId: 'tx_1',
      price: '1000',
      origQty: '0.5',
      executedQty: '0',
      status: 'NEW',
      active: true,
    },
  },
};

let server: SampleServer;
beforeAll(async () => {
  server = await startSampleServer();
});
afterAll(async () => server.stop());

/** The outcome of a call, comparable across transports: the value's order id, or the error's class and message. */
async function outcome(p: Promise<{ clientOrderId: string }>): Promise<string> {
  return p.then(
    (o) => `ok ${o.clientOrderId}`,
    (e: Error) => `${e.constructor.name}: ${e.message}`,
  );
}

describe('order-call transport', () => {
  const replies: [string, SampleReply][] = [
    ['201', CREATED],
    ['402', { status: 402, body: { success: false, code: 402, message: 'insufficient balance', result: {} } }],
    ['409', { status: 409, body: { success: false, code: 409, message: 'duplicate client id' } }],
    ['422 with fields', { status: 422, body: { success: false, code: 422, message: 'invalid', result: { price: ['too many decimals'] } } }],
    ['429', { status: 429, body: { success: false, message: 'slow down' }, headers: { 'retry-after': '0' } }],
    ['500 HTML', { status: 500, raw: '<html><title>oops</title></html>' }],
    ['malformed 201', { status: 201, raw: '{"success": true, "result": {' }],
    ['HTML 200', { raw: '<html><body>maintenance</body></html>' }],
    ['success:false 200', { body: { success: false, code: 400, message: 'refused', result: null } }],
    ['timeout', { hang: true }],
  ];

  it('node:http and ky give the same result or error for every answer of the exchange', async () => {
    for (const [name, reply] of replies) {
      const got: string[] = [];
      for (const orderTransport of ['node-http', 'ky'] as const) {
        server.reset();
        server.route('POST', '/v1/account/orders', reply).route('DELETE', '/v1/account/orders/tx_1', reply);
        // A short timeout only where the server hangs: on a loaded machine 150 ms is too short for an answer.
        const { client } = makeClient(server, { orderTransport, timeoutMs: name === 'timeout' ? 150 : 10_000, retries: 0 });
        got.push(await outcome(client.createOrder(ORDER)));
        got.push(await outcome(client.cancelOrder('tx_1')));
        client.close();
      }
      expect(got.slice(0, 2), name).toEqual(got.slice(2));
      expect(got[0], name).toMatch(name === '201' ? /^ok tx_1$/ : /Error: /);
    }
  });

  it('sends the same request line, headers and body as ky (key, sub-account, JSON)', async () => {
    const seen: Record<string, unknown>[] = [];
    for (const orderTransport of ['node-http', 'ky'] as const) {
      server.reset();
      server.route('POST', '/v1/account/orders', CREATED);
      const { client } = makeClient(server, { orderTransport });
      await client.withSubAccount('prop_7').createOrder(ORDER);
      const [r] = server.received('POST', '/v1/account/orders');
      seen.push({
        body: r!.body,
        key: r!.headers['x-api-key'],
        sub: r!.headers['sub-account-client-id'],
        type: r!.headers['content-type'],
        accept: r!.headers.accept,
      });
      client.close();
    }
    expect(seen[0]).toEqual(seen[1]);
    expect(seen[0]).toMatchObject({
      key: API_KEY,
      sub: 'prop_7',
      type: 'application/json',
      body: { symbol: 'BTCTMN', side: 'BUY', type: 'LIMIT', price: '1000', quantity: '0.5', client_id: 'tx_1' },
    });
  });

  it('keeps one connection alive across order calls and honours a base URL with a path', async () => {
    const ports: number[] = [];
    const paths: string[] = [];
    const srv = http.createServer((req, res) => {
      ports.push(req.socket.remotePort ?? 0);
      paths.push(`${req.method} ${req.url}`);
      req.resume();
      req.on('end', () => {
        res.writeHead(CREATED.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(CREATED.body));
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/gateway`;
    const client = new WallexRestClient({ baseUrl: base, apiKey: API_KEY, orderRateLimit: { limit: 100, windowMs: 1000 } });
    try {
      for (let i = 0; i < 5; i++) await client.createOrder(ORDER);
      await client.cancelOrder('tx_1');
    } finally {
      client.close();
      srv.closeAllConnections();
      await new Promise<void>((r) => srv.close(() => r()));
    }
    expect(paths).toEqual([...Array(5).fill('POST /gateway/v1/account/orders'), 'DELETE /gateway/v1/account/orders/tx_1']);
    expect(new Set(ports).size).toBe(1);
  });

  it('nothing listening: a create is an unknown outcome naming the client id, never re-sent', async () => {
    const dead = await startSampleServer();
    const url = dead.url;
    await dead.stop();
    const client = new WallexRestClient({ baseUrl: url, apiKey: API_KEY, retries: 2, sleep: async () => {} });
    const err = (await client.createOrder(ORDER).catch((e: unknown) => e)) as Error & { clientId?: string };
    expect(err.constructor.name).toBe('OrderOutcomeUnknownError');
    expect(err.message).toContain('tx_1');
    expect(err.message).toMatch(/ECONNREFUSED/);
  });

  it('refuses an unknown orderTransport by name', () => {
    expect(() => new WallexRestClient({ baseUrl: server.url, orderTransport: 'curl' as 'ky' })).toThrow(
      /orderTransport must be 'node-http' or 'ky', got "curl"/,
    );
  });
});
