/**
 * The engine over the real StreamClient takes depth levels unparsed (`depthRaw`): shape errors are
 * counted by the client, bad numbers are refused by the book (side `malformed`, resync), and exact
 * Decimals come out of the book as the exchange wrote them. (Placed with the CLI tests, whose
 * commands run on this path.)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterEach, describe, expect, it } from 'vitest';
import { SystemClock } from '../../../src/core/clock.js';
import { rawDepth, StreamPayloadError } from '../../../src/exchange/stream/parse.js';
import { StreamClient } from '../../../src/exchange/stream/client.js';
import { MarketDataEngine } from '../../../src/market/engine.js';
import { waitFor } from '../../support/wait-for.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('rawDepth', () => {
  it('returns the level objects themselves and names a bad field', () => {
    const l0 = { price: '100.5000000000000000', quantity: 0.25, sum: 25.125 };
    const l1 = { price: 100.25, quantity: '1' };
    const out = rawDepth({ 0: l0, 1: l1 });
    expect(out).toHaveLength(2);
    expect(out[0]).toBe(l0);
    expect(out[1]).toBe(l1);
    expect(rawDepth([])).toEqual([]);
    expect(() => rawDepth({ 0: { price: null, quantity: 1 } })).toThrow(StreamPayloadError);
    expect(() => rawDepth({ 0: { price: null, quantity: 1 } })).toThrow(/depth\[0\]\.price/);
    expect(() => rawDepth({ 0: { price: '1', quantity: {} } })).toThrow(/depth\[0\]\.quantity/);
    expect(() => rawDepth({ bids: [] })).toThrow(/found key "bids"/);
    expect(() => rawDepth('x')).toThrow(/expected an object or array of levels/);
  });
});

describe('MarketDataEngine over StreamClient (depthRaw)', () => {
  it('keeps exact values, refuses bad numbers in the book, counts bad shapes in the client', async () => {
    const http = createServer();
    const io = new Server(http, { serveClient: false });
    const joined = new Set<string>();
    io.on('connection', (s) =>
      s.on('subscribe', (m: { channel: string }) => {
        void s.join(m.channel);
        joined.add(m.channel);
      }),
    );
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => void io.close(() => r())));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const side = (prices: string[], qty: number) => Object.fromEntries(prices.map((p, i) => [String(i), { price: p, quantity: qty + i, sum: 0 }]));
    const stream = new StreamClient({ url });
    const engine = new MarketDataEngine({
      stream,
      depth: { getDepth: async () => ({ bids: [{ price: '99', quantity: '1' }], asks: [{ price: '101', quantity: '1' }] }) },
      clock: new SystemClock(),
      options: { subscribeStats: false, tickMs: 0 },
    });
    cleanups.push(() => {
      engine.stop();
      stream.close();
    });
    expect(stream.emitsRawDepth).toBe(true);
    await engine.start(['ABCTMN']);
    await stream.connect();
    await waitFor(() => joined.has('ABCTMN@sellDepth') && joined.has('ABCTMN@buyDepth'), {
      what: 'both depth channels of ABCTMN subscribed',
      timeout: 10_000,
      interval: 10,
      detail: () => `joined: ${[...joined].join(', ')}`,
    });
    const next = (pred: () => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!pred()) return;
          engine.off('book', check);
          engine.off('health', check);
          resolve();
        };
        engine.on('book', check);
        engine.on('health', check);
      });

    let seen = next(() => engine.book('ABCTMN').bestAsk()?.price.toFixed() === '100.1234567890123456789');
    io.to('ABCTMN@sellDepth').emit('Broadcaster', 'ABCTMN@sellDepth', side(['100.1234567890123456789', '100.2000000000000000'], 0.000001));
    io.to('ABCTMN@buyDepth').emit('Broadcaster', 'ABCTMN@buyDepth', side(['99.5000000000000000', '99.4'], 3));
    await seen;
    const book = engine.book('ABCTMN');
    expect(book.bestAsk()!.quantity.toFixed()).toBe('0.000001');
    expect(book.levels('ask').map((l) => l.price.toFixed())).toEqual(['100.1234567890123456789', '100.2']);

    seen = next(() => engine.health('ABCTMN').reasons.includes('malformed'));
    io.to('ABCTMN@buyDepth').emit('Broadcaster', 'ABCTMN@buyDepth', side(['99.6', 'ninety'], 1));
    await seen;
    expect(engine.health('ABCTMN').sideReasons.bid).toContain('malformed');
    expect(book.bestBid()!.price.toFixed()).toBe('99.5'); // the refused side left the previous one

    const malformed = new Promise<string>((r) => stream.once('malformed', (_k, detail) => r(detail)));
    io.to('ABCTMN@buyDepth').emit('Broadcaster', 'ABCTMN@buyDepth', { 0: { price: true, quantity: 1 } });
    expect(await malformed).toMatch(/depth\[0\]\.price/);
    expect(stream.stats().malformedTotal).toBe(1);
  });
});
