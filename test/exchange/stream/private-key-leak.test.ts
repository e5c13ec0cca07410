/**
 * The stream key never leaves the PrivateStreamClient except inside `subscribe`: not in log lines,
 * errors, malformed details or event arguments, on every path that could carry it (a bad key, a
 * server echoing the key in a payload, a listener throwing with it, drops and reconnects).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PrivateStreamClient, validateStreamKey } from '../../../src/exchange/stream/private-client.js';
import { captureLogger } from '../rest/helpers.js';
import { startFakeStreamServer, type FakeStreamServer } from './fake-stream-server.js';
import { waitFor as waitForCondition } from '../../support/wait-for.js';

const KEY = 'skLEAKCANARY_5b4a39281706abcdef';
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});
async function until(cond: () => boolean, ms = 5000) {
  await waitForCondition(cond, { what: String(cond), timeout: ms, interval: 10 });
}

describe('the stream key never leaks', () => {
  it('is refused with an error that hides it', () => {
    for (const bad of ['with@at_sign_key', 'has space key', 'Zq7w9']) {
      let err: unknown;
      try {
        validateStreamKey(bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(Error);
      expect(String((err as Error).message)).toMatch(/streamKey.*value hidden/);
      expect(JSON.stringify(err) + (err as Error).message + (err as Error).stack).not.toContain(bad);
    }
  });

  it('appears in no log line, error or event on the message, failure and reconnect paths', async () => {
    const server: FakeStreamServer = await startFakeStreamServer();
    cleanup.push(() => server.stop());
    const { logger, lines } = captureLogger();
    const client = new PrivateStreamClient({ url: server.url, transport: 'socketio', streamKey: KEY, logger, reconnect: { initialMs: 10, maxMs: 20 } });
    cleanup.push(() => client.close());
    const events: string[] = [];
    client.on('malformed', (kind, detail) => events.push(`${kind} ${detail}`));
    client.on('down', (reason) => events.push(reason));
    client.on('orderSaved', (o) => {
      events.push(o.clientOrderId);
      throw new Error(`listener failed near ${KEY}`);
    });
    await client.connect();
    await until(() => [...server.subscriptions().values()].some((s) => s.has(KEY) && s.has(`${KEY}@tradeDetails`)));
    // A server echoing the key inside payloads, of every kind, and a listener that throws with it.
    server.broadcast(KEY, {
      event: 'orderSaved',
      timestamp: 1,
      data: { clientOrderId: KEY, symbol: 'USDTTMN', side: 'BUY', price: KEY, origQty: '1', executedQty: '0', status: 'NEW', active: true },
    });
    server.broadcast(`${KEY}@tradeDetails`, {
      event: 'tradeDetails',
      data: { clientOrderID: 'a_1', feeAmount: KEY, feeCurrency: 'USDT', price: '1', quantity: '1', side: 'BUY', sum: '1', symbol: 'USDTTMN' },
    });
    server.broadcast(KEY, { event: KEY, data: {} });
    server.broadcast(KEY, KEY);
    server.broadcast(KEY, {
      event: 'orderSaved',
      timestamp: 1,
      data: { clientOrderId: 'a_2', symbol: 'USDTTMN', side: 'BUY', price: '1', origQty: '1', executedQty: '0', status: 'NEW', active: true },
    });
    await until(() => client.stats().malformedTotal === 4 && client.stats().orderSaved === 1);
    expect(client.stats().listenerErrors).toBe(1);
    server.io.disconnectSockets(true);
    await until(() => events.length >= 6 && client.isUp);
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.some((l) => l.includes('<stream_key>'))).toBe(true);
    for (const text of [...lines, ...events]) expect(text).not.toContain(KEY.slice(0, 14));
    expect(client.stats().malformed).toEqual({ orderSaved: 1, tradeDetails: 1, privateEnvelope: 2 });
  });
});
