/**
 * The simulator's plain WebSocket route (`/ws`): the exchange's frames, payload forms, connection
 * lifetime rule, channel limit and stream faults, seen by a raw `ws` client (and by raw socket.io
 * clients for the rules both routes share).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { parseDepth, parseMarketStats, parseTrade } from '../../../src/exchange/stream/parse.js';
import type { StreamServeOptions } from '../../../src/sim/wire/stream.js';
import { startSim } from './harness.js';
import { openStream } from './stream-clients.js';
import { openWs, type TestWs } from './ws-clients.js';
import { waitFor } from '../../support/wait-for.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup(stream: StreamServeOptions = {}) {
  const h = await startSim({ stream });
  cleanup.push(() => h.server.close());
  const open = async (opts: { autoPong?: boolean } = {}): Promise<TestWs> => {
    const s = openWs(h.server.wsUrl!, opts);
    cleanup.push(() => s.close());
    await s.opened;
    return s;
  };
  return { ...h, open };
}

describe('wire server: plain WebSocket stream (/ws)', () => {
  it('sends depth sides as arrays of levels with numbers, and updates them', async () => {
    const { open, sim, call } = await setup();
    const s = await open();
    const first = s.next('BTCUSDT@buyDepth');
    s.subscribe('BTCUSDT@buyDepth');
    const data = (await first) as { price: unknown; quantity: unknown; sum: unknown }[];
    expect(Array.isArray(data)).toBe(true);
    expect(data).toHaveLength(50);
    expect([typeof data[0]!.price, typeof data[0]!.quantity, typeof data[0]!.sum]).toEqual(['number', 'number', 'number']);
    expect(parseDepth(data)[0]!.price.eq(sim.bestBid('BTCUSDT')!)).toBe(true);
    expect(JSON.parse(s.frames[0]!)[0]).toBe('BTCUSDT@buyDepth');
    const update = s.next('BTCUSDT@buyDepth');
    const placed = await call('POST', '/v1/account/orders', { body: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '62549', quantity: '0.5' } });
    expect(placed.status).toBe(201);
    const top = parseDepth(await update)[0]!;
    expect([top.price.toFixed(), top.quantity.toFixed()]).toEqual(['62549', '0.5']);
  });

  it('sends trades and market statistics as [channel, payload], and stops after unsubscribe', async () => {
    const { open, sim, clock } = await setup();
    const s = await open();
    for (const c of ['ETHUSDT@trade', 'ETHUSDT@marketCap']) s.subscribe(c);
    await s.next('ETHUSDT@marketCap');
    const trade = s.next('ETHUSDT@trade');
    const cap = s.next('ETHUSDT@marketCap');
    sim.recordTrade({ symbol: 'ETHUSDT', price: d('2651.5'), quantity: d('0.2'), isBuyOrder: true, timestamp: clock.now() });
    const t = parseTrade('ETHUSDT', await trade);
    expect([t.price.toFixed(), t.quantity.toFixed(), t.isBuyOrder]).toEqual(['2651.5', '0.2', true]);
    expect(parseMarketStats(await cap).lastPrice!.toFixed()).toBe('2651.5');
    // The server reads a connection's frames in order: the answer to a later subscribe (a fresh
    // channel's snapshot) proves the unsubscribe was handled.
    const handled = s.next('ETHUSDT@sellDepth');
    s.unsubscribe('ETHUSDT@trade');
    s.subscribe('ETHUSDT@sellDepth');
    await handled;
    const before = s.frames.length;
    sim.recordTrade({ symbol: 'ETHUSDT', price: d('2652'), quantity: d('0.1'), isBuyOrder: false, timestamp: clock.now() });
    await s.next('ETHUSDT@marketCap');
    expect(s.frames.slice(before).some((f) => f.startsWith('["ETHUSDT@trade"'))).toBe(false);
  });

  it('cuts a connection at its lifetime, extended per pong up to the maximum', async () => {
    const rule = { cutAfterMs: 600, extendMs: 150, maxExtensions: 3 };
    const { open, server } = await setup({ pingIntervalMs: 100, lifetime: rule });
    const silent = await open({ autoPong: false });
    const answering = await open();
    const [cutSilent, cutAnswering] = await Promise.all([silent.closed, answering.closed]);
    expect(cutSilent.lifeMs).toBeGreaterThanOrEqual(rule.cutAfterMs - 20);
    expect(answering.pings()).toBeGreaterThan(rule.maxExtensions);
    // Every answer counted up to the maximum, and no further (else it would never be cut).
    expect(cutAnswering.lifeMs).toBeGreaterThanOrEqual(rule.cutAfterMs + rule.maxExtensions * rule.extendMs - 20);
    expect(server.streamStats().lifetimeCuts).toBe(2);
  });

  it('serves at most maxChannelsPerConnection channels per connection', async () => {
    const { open, server } = await setup({ maxChannelsPerConnection: 2 });
    const s = await open();
    for (const c of ['BTCUSDT@buyDepth', 'BTCUSDT@sellDepth', 'ETHUSDT@buyDepth']) s.subscribe(c);
    await s.next('BTCUSDT@buyDepth');
    await s.next('BTCUSDT@sellDepth');
    // A held channel subscribed again answers with its snapshot, sent after anything the refused one would have sent.
    const before = s.frames.length;
    s.subscribe('BTCUSDT@buyDepth');
    await waitFor(() => s.frames.slice(before).some((f) => f.startsWith('["BTCUSDT@buyDepth"')), { what: 'the held channel answered again', timeout: 5_000 });
    expect(s.frames.some((f) => f.startsWith('["ETHUSDT@buyDepth"'))).toBe(false);
    expect(server.streamStats().refusedSubscriptions).toBe(1);
    // Another connection has room of its own.
    const other = await open();
    other.subscribe('ETHUSDT@buyDepth');
    await other.next('ETHUSDT@buyDepth');
  });

  it('applies stream faults: malformed frames, stalled channels, dropped connections', async () => {
    const { open, server, sim, clock } = await setup();
    const s = await open();
    server.faults.configure({ malformed: { count: 1, channel: 'ETHUSDT@trade' } });
    s.subscribe('ETHUSDT@trade');
    s.subscribe('ETHUSDT@buyDepth');
    await s.next('ETHUSDT@buyDepth');
    sim.recordTrade({ symbol: 'ETHUSDT', price: d('2651.5'), quantity: d('0.2'), isBuyOrder: true, timestamp: clock.now() });
    const good = s.next('ETHUSDT@trade');
    sim.recordTrade({ symbol: 'ETHUSDT', price: d('2651.6'), quantity: d('0.3'), isBuyOrder: true, timestamp: clock.now() });
    expect(parseTrade('ETHUSDT', await good).quantity.toFixed()).toBe('0.3');
    const broken = s.frames.filter((f) => f.startsWith('["ETHUSDT@trade"') && !isJson(f));
    expect(broken).toHaveLength(1);

    server.faults.stall('ETHUSDT@trade');
    const before = s.frames.length;
    sim.recordTrade({ symbol: 'ETHUSDT', price: d('2651.7'), quantity: d('0.4'), isBuyOrder: true, timestamp: clock.now() });
    // A held channel subscribed again answers with its snapshot, sent after the trade would have been.
    s.subscribe('ETHUSDT@buyDepth');
    await waitFor(() => s.frames.slice(before).some((f) => f.startsWith('["ETHUSDT@buyDepth"')), { what: 'the held channel answered again', timeout: 5_000 });
    expect(s.frames.slice(before).some((f) => f.startsWith('["ETHUSDT@trade"'))).toBe(false);
    server.faults.stall('ETHUSDT@trade', false);

    expect(server.streamStats().ws).toBe(1);
    server.faults.dropConnections();
    expect((await s.closed).code).toBe(1006);
    await waitFor(() => server.streamStats().ws === 0, {
      what: 'the simulator to count no /ws connection after the drop',
      timeout: 5_000,
      interval: 10,
      detail: () => `ws connections: ${server.streamStats().ws}`,
    });
  });

  it('answers 404 on /ws when started without it; socket.io still serves', async () => {
    const { server } = await setup({ ws: false });
    expect(server.wsUrl).toBeUndefined();
    const url = server.url.replace('http:', 'ws:') + '/ws';
    const s = openWs(url);
    cleanup.push(() => s.close());
    await expect(s.opened).rejects.toThrow(/404/);
    const io = openStream(server.streamUrl, 4);
    cleanup.push(() => io.close());
    await io.connected;
    const first = io.next('BTCUSDT@buyDepth');
    io.subscribe('BTCUSDT@buyDepth');
    expect(Object.keys((await first) as object)).toHaveLength(50);
  });
});

describe('wire server: the lifetime rule and the channel limit on socket.io', () => {
  for (const protocol of [4, 3] as const) {
    it(`protocol ${protocol}: cuts a connection at its lifetime, extended per heartbeat up to the maximum`, async () => {
      const rule = { cutAfterMs: 600, extendMs: 150, maxExtensions: 3 };
      const { server } = await setup({ pingIntervalMs: 100, lifetime: rule });
      // Timed from before the connection opens: on a loaded machine the client may see its own
      // connect late, so the server's count of extensions is what proves they were granted.
      const t0 = Date.now();
      const s = openStream(server.streamUrl, protocol);
      cleanup.push(() => s.close());
      await s.connected;
      await s.disconnected;
      expect(Date.now() - t0).toBeGreaterThanOrEqual(rule.cutAfterMs + rule.maxExtensions * rule.extendMs - 20);
      expect(server.streamStats()).toMatchObject({ lifetimeCuts: 1, lifetimeExtensions: rule.maxExtensions });
    });
  }

  it('serves at most maxChannelsPerConnection channels per connection', async () => {
    const { server } = await setup({ maxChannelsPerConnection: 2 });
    const s = openStream(server.streamUrl, 4);
    cleanup.push(() => s.close());
    await s.connected;
    for (const c of ['BTCUSDT@buyDepth', 'BTCUSDT@sellDepth', 'ETHUSDT@buyDepth']) s.subscribe(c);
    await s.next('BTCUSDT@buyDepth');
    await s.next('BTCUSDT@sellDepth');
    // A held channel subscribed again answers with its snapshot, sent after anything the refused one would have sent.
    const before = s.messages.length;
    s.subscribe('BTCUSDT@buyDepth');
    await waitFor(() => s.messages.slice(before).some(([c]) => c === 'BTCUSDT@buyDepth'), { what: 'the held channel answered again', timeout: 5_000 });
    expect(s.messages.some(([c]) => c === 'ETHUSDT@buyDepth')).toBe(false);
    expect(server.streamStats().refusedSubscriptions).toBe(1);
  });
});

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
