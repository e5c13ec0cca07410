/**
 * The plain WebSocket transport against a small `ws` server: frames that are not `[channel, payload]`
 * JSON are counted and skipped; a server that pinged and then went silent without closing is detected
 * and the connection reopened; `auto` keeps the route it connected on.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { StreamClient } from '../../../src/exchange/stream/index.js';
import { captureLogger } from './capture-logger.js';
import { waitFor } from './fake-stream-server.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function wsServer(onConnection: (ws: WebSocket, subscribed: Promise<string>) => void) {
  const http = createServer();
  const wss = new WebSocketServer({ server: http, path: '/ws' });
  let accepted = 0;
  wss.on('connection', (ws) => {
    accepted++;
    const subscribed = new Promise<string>((resolve) =>
      ws.on('message', (raw) => {
        const frame = JSON.parse(raw.toString()) as [string, { channel: string }];
        if (frame[0] === 'subscribe') resolve(frame[1].channel);
      }),
    );
    onConnection(ws, subscribed);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        http.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, accepted: () => accepted };
}

const TRADE = { isBuyOrder: true, quantity: '2', price: '100', timestamp: '2025-06-01T09:33:41Z' };

describe('plain WebSocket transport', () => {
  it('counts and skips frames that are not [channel, payload] JSON, logging the first only', async () => {
    const server = await wsServer((ws, subscribed) => {
      void subscribed.then((channel) => {
        ws.send('not json');
        ws.send('{"a":1}');
        ws.send('["only-one"]');
        ws.send(JSON.stringify([channel, TRADE]));
      });
    });
    const logger = captureLogger();
    const client = new StreamClient({ url: server.url, transport: 'ws', logger });
    cleanups.push(() => client.close());
    const trades: string[] = [];
    client.on('trade', (t) => trades.push(t.quantity.toFixed()));
    client.subscribe('AAATMN@trade');
    await client.connect();
    await waitFor(() => trades.length === 1, 'the good frame');
    expect(client.stats()).toMatchObject({ malformedTotal: 3, malformed: { envelope: 3 } });
    const warned = logger.entries.filter((e) => e.level === 'warn' && /malformed/.test(e.msg ?? ''));
    expect(warned).toHaveLength(1);
    expect(JSON.stringify(warned[0]!.obj)).toContain('frame is not JSON');
  });

  it('reopens a connection whose server pinged and then went silent without closing', async () => {
    let first = true;
    const server = await wsServer((ws) => {
      if (!first) return;
      first = false;
      // Three pings 100 ms apart, then nothing at all: a peer that vanished.
      let n = 0;
      const t = setInterval(() => (n++ < 3 ? ws.ping() : clearInterval(t)), 100);
      cleanups.push(() => clearInterval(t));
    });
    const client = new StreamClient({ url: server.url, transport: 'ws', lifetime: false });
    cleanups.push(() => client.close());
    const downs: string[] = [];
    client.on('connectionDown', (_i, why) => downs.push(why));
    client.subscribe('AAATMN@trade');
    await client.connect();
    await waitFor(() => downs.length === 1 && server.accepted() === 2, 'the silent connection to be replaced', 5000);
    expect(downs[0]).toMatch(/no ping or frame from the server for \d+ ms \(it pinged every \d+ ms\)/);
  });

  it("keeps a connection through a stall of its own process (the silence was ours, not the server's)", async () => {
    // Pings every 100 ms all along: a live server. The client's process then blocks for 2 s (a long
    // GC pause, a starved CPU): when it runs again its silence check fires before the queued frames
    // are read. Before, that check took the silence for a dead server and cut a healthy connection.
    let beats = 0;
    const server = await wsServer((ws) => {
      ws.on('pong', () => beats++);
      const t = setInterval(() => ws.ping(), 100);
      cleanups.push(() => clearInterval(t));
    });
    const client = new StreamClient({ url: server.url, transport: 'ws', lifetime: false });
    cleanups.push(() => client.close());
    const downs: string[] = [];
    client.on('connectionDown', (_i, why) => downs.push(why));
    client.subscribe('AAATMN@trade');
    await client.connect();
    await waitFor(() => beats >= 5, 'the client answering pings', 5000);
    const until = Date.now() + 2000;
    while (Date.now() < until) {
      // blocks the event loop, as a stalled process does
    }
    const after = beats;
    await waitFor(() => beats >= after + 10, 'pings answered again after the stall', 5000);
    expect(downs).toEqual([]);
    expect(server.accepted()).toBe(1);
  });
});
