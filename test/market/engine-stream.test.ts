/**
 * The engine behind the real StreamClient, over a real socket.io server on 127.0.0.1 that speaks the
 * exchange's protocol (`subscribe {channel}`, data on `Broadcaster (channel, data)`, depth sides as
 * objects keyed "0", "1", …). REST depth is served in-process from the same reference books.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import { SystemClock } from '../../src/core/clock.js';
import { StreamClient } from '../../src/exchange/stream/client.js';
import { MarketDataEngine } from '../../src/market/engine.js';
import type { BookSide, DepthSource, RawLevel } from '../../src/market/ports.js';
import { RefBook } from './support/ref-book.js';
import { waitFor as waitForCondition } from '../support/wait-for.js';

async function startServer() {
  const http = createServer();
  const io = new Server(http, { allowEIO3: true, serveClient: false });
  io.on('connection', (socket) => {
    socket.on('subscribe', (msg: { channel?: unknown }) => {
      if (typeof msg?.channel === 'string') void socket.join(msg.channel);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url,
    io,
    send: (channel: string, data: unknown) => io.to(channel).emit('Broadcaster', channel, data),
    subscribers: (channel: string) => io.sockets.adapter.rooms.get(channel)?.size ?? 0,
    stop: () => io.close(),
  };
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  await waitForCondition(check, { what, timeout: timeoutMs, interval: 10 });
}

/** Socket.io shape of a side: `{"0": {price: "…", quantity: n, sum: n}, …}`. */
function keyed(levels: RawLevel[]): Record<string, unknown> {
  return Object.fromEntries(levels.map((l, i) => [String(i), { price: l.price, quantity: l.quantity, sum: 1 }]));
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('MarketDataEngine over the real StreamClient and a socket.io server', () => {
  it('local books equal the server books after thousands of updates; a dropped stream goes stale, then healthy', async () => {
    const server = await startServer();
    cleanups.push(server.stop);
    const symbols = ['BTCTMN', 'USDTTMN'];
    const refs = new Map(symbols.map((s, i) => [s, new RefBook(101 + i)]));
    let restCalls = 0;
    const depth: DepthSource = {
      getDepth: async (s) => {
        restCalls++;
        return (refs.get(s) as RefBook).snapshot();
      },
    };
    const clock = new SystemClock();
    const stream = new StreamClient({ url: server.url, transport: 'socketio', clock, reconnect: { initialMs: 20, maxMs: 200 } });
    cleanups.push(() => stream.close());
    const engine = new MarketDataEngine({ stream, depth, clock });
    cleanups.push(() => engine.stop());
    const health: { symbol: string; healthy: boolean; at: number }[] = [];
    engine.on('health', (symbol, h) => health.push({ symbol, healthy: h.healthy, at: Date.now() }));

    await engine.start(symbols);
    await stream.connect();
    await waitFor(() => symbols.every((s) => server.subscribers(`${s}@buyDepth`) > 0 && server.subscribers(`${s}@sellDepth`) > 0), 'subscriptions');

    const push = (s: string, side: BookSide) => server.send(`${s}@${side === 'bid' ? 'buyDepth' : 'sellDepth'}`, keyed((refs.get(s) as RefBook).levels(side)));
    for (let i = 0; i < 2500; i++) {
      for (const s of symbols) push(s, (refs.get(s) as RefBook).change());
      if (i === 1000) server.send('BTCTMN@buyDepth', { 0: { price: 'not a price', quantity: 1 } }); // malformed
      if (i % 250 === 0) await new Promise((r) => setImmediate(r));
    }
    for (const s of symbols) {
      push(s, 'bid');
      push(s, 'ask');
    }
    const same = (s: string) => {
      const local = engine.book(s).snapshot();
      const want = (refs.get(s) as RefBook).snapshot();
      const fmt = (l: { price: unknown; quantity: unknown }) => `${Number(l.price)}x${Number(l.quantity)}`;
      return local.bids.map(fmt).join() === want.bids.map(fmt).join() && local.asks.map(fmt).join() === want.asks.map(fmt).join();
    };
    await waitFor(() => symbols.every(same), 'local books equal to the server books');
    expect(symbols.every((s) => engine.health(s).healthy)).toBe(true);

    // Drop every connection; meanwhile the books move on the server.
    const restBefore = restCalls;
    health.length = 0;
    const dropAt = Date.now();
    server.io.disconnectSockets(true);
    for (const s of symbols) for (let i = 0; i < 20; i++) (refs.get(s) as RefBook).change();
    await waitFor(() => symbols.every((s) => health.some((h) => h.symbol === s && h.healthy)), 'books healthy again');
    for (const s of symbols) {
      const mine = health.filter((h) => h.symbol === s);
      expect(mine[0]?.healthy).toBe(false); // stale first, then healthy
      expect(mine.at(-1)?.healthy).toBe(true);
      expect(same(s)).toBe(true); // resynced to the books as they are now
    }
    expect(restCalls).toBeGreaterThan(restBefore);
    const recoveredMs = Math.max(...symbols.map((s) => (health.filter((h) => h.symbol === s).at(-1)?.at ?? 0) - dropAt));
    // Reported, not asserted tightly (a busy machine must not fail the test): see the report.
    console.log(`books healthy again ${recoveredMs} ms after the drop`);
  });
});
