import { afterEach, describe, it, expect } from 'vitest';
import { StreamClient, type StreamClientOptions } from '../../../src/exchange/stream/index.js';
import { startFakeStreamServer, waitFor, type FakeStreamServer } from './fake-stream-server.js';
import { captureLogger } from './capture-logger.js';
import { loadSample } from './samples.js';

const SELL_DEPTH = loadSample('ws_socketio_sellDepth_Broadcaster_data__api-docs-wallex-ir-crawl.txt');
const TRADE = loadSample('ws_socketio_trade_Broadcaster_data__api-docs-wallex-ir-crawl.json');
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function setup(options: Partial<StreamClientOptions> = {}): Promise<{ server: FakeStreamServer; client: StreamClient }> {
  const server = await startFakeStreamServer();
  cleanups.push(() => server.stop());
  const client = new StreamClient({ url: server.url, transport: 'socketio', ...options });
  cleanups.push(() => client.close());
  return { server, client };
}

function record(client: StreamClient): string[] {
  const log: string[] = [];
  client.on('channelStale', (ch, why) => log.push(`stale ${ch} ${why}`));
  client.on('channelFresh', (ch) => log.push(`fresh ${ch}`));
  client.on('connectionDown', (i) => log.push(`down ${i}`));
  client.on('connectionUp', (i) => log.push(`up ${i}`));
  client.on('resubscribed', (chs) => log.push(`resubscribed ${chs.join(',')}`));
  return log;
}

describe('StreamClient resilience', () => {
  it.each([3, 4] as const)('protocol %i: after the server drops every connection it reconnects at once and resubscribes', async (protocol) => {
    const { server, client } = await setup({ protocol, maxChannelsPerConnection: 2, reconnect: { initialMs: 50, maxMs: 200 } });
    const channels = ['AAATMN@buyDepth', 'AAATMN@sellDepth', 'BBBTMN@sellDepth'];
    for (const ch of channels) client.subscribe(ch);
    const depths: string[] = [];
    client.on('depth', (s, side) => depths.push(`${s}:${side}`));
    const delays: number[] = [];
    client.on('reconnectScheduled', (_i, _attempt, ms) => delays.push(ms));
    await client.connect();
    await waitFor(() => channels.every((c) => server.subscribeCount(c) === 1), 'subscriptions');
    for (const ch of channels) server.broadcast(ch, SELL_DEPTH);
    await waitFor(() => depths.length === 3, 'first snapshots');
    const log = record(client);

    server.io.disconnectSockets(true);
    await waitFor(() => channels.every((c) => server.subscribeCount(c) === 2), 'resubscribed on the server');
    await waitFor(() => log.filter((l) => l.startsWith('up')).length === 2, 'both connections up');
    // First retry after a drop has no delay.
    expect(delays).toEqual([0, 0]);
    expect(server.protocols().every((p) => p === protocol)).toBe(true);
    // Stale between the drop and the next snapshot, for every channel.
    for (const ch of channels) {
      expect(log).toContain(`stale ${ch} disconnected`);
      expect(client.isStale(ch)).toBe(true);
    }
    expect(log.indexOf('stale AAATMN@buyDepth disconnected')).toBeLessThan(log.indexOf('down 0'));
    expect(log).toContain('resubscribed AAATMN@buyDepth,AAATMN@sellDepth');
    expect(log).toContain('resubscribed BBBTMN@sellDepth');

    for (const ch of channels) server.broadcast(ch, SELL_DEPTH);
    await waitFor(() => depths.length === 6, 'snapshots after reconnect');
    await waitFor(() => channels.every((c) => !client.isStale(c)), 'fresh again');
    for (const ch of channels) expect(log).toContain(`fresh ${ch}`);
    expect(client.stats()).toMatchObject({ connectionsUp: 2, staleChannels: 0, resubscribes: 3 });
  });

  it('backs off exponentially up to the cap while connecting fails, then recovers', async () => {
    const { server, client } = await setup({ reconnect: { initialMs: 20, maxMs: 80, jitter: 0 } });
    client.subscribe('AAATMN@trade');
    const scheduled: Array<[number, number]> = [];
    client.on('reconnectScheduled', (_i, attempt, ms) => scheduled.push([attempt, ms]));
    const log = record(client);
    await client.connect();
    await waitFor(() => server.subscribeCount('AAATMN@trade') === 1, 'subscribe');
    server.refuse(true);
    server.io.disconnectSockets(true);
    await waitFor(() => scheduled.length >= 7, 'seven reconnect attempts');
    expect(scheduled.slice(0, 7)).toEqual([
      [0, 0],
      [1, 20],
      [2, 40],
      [3, 80],
      [4, 80],
      [5, 80],
      [6, 80],
    ]);
    expect(client.stats().connectionsUp).toBe(0);
    server.refuse(false);
    await waitFor(() => log.includes('up 0'), 'reconnected');
    await waitFor(() => server.subscribeCount('AAATMN@trade') === 2, 'resubscribed');
    expect(log).toContain('down 0');
    expect(log).toContain('resubscribed AAATMN@trade');
  });

  it('jittered delays never exceed the cap', async () => {
    const { server, client } = await setup({ reconnect: { initialMs: 10, maxMs: 40, jitter: 1 } });
    client.subscribe('AAATMN@trade');
    const delays: number[] = [];
    client.on('reconnectScheduled', (_i, _a, ms) => delays.push(ms));
    await client.connect();
    server.refuse(true);
    server.io.disconnectSockets(true);
    await waitFor(() => delays.length >= 10, 'ten attempts');
    expect(Math.max(...delays)).toBeLessThanOrEqual(40);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
  });

  it('watchdog: a silent channel is flagged stale, resubscribed, and fresh on the next message', async () => {
    const { server, client } = await setup({ staleAfterMs: { trade: 150 }, watchdogIntervalMs: 20 });
    const trades: number[] = [];
    client.on('trade', (t) => trades.push(t.timestamp));
    client.subscribe('USDTTMN@trade');
    client.subscribe('USDTTMN@sellDepth');
    await client.connect();
    const log = record(client);
    await waitFor(() => server.subscribeCount('USDTTMN@trade') === 1, 'subscribe');
    server.broadcast('USDTTMN@trade', TRADE);
    await waitFor(() => trades.length === 1, 'trade');
    expect(log).toEqual(['fresh USDTTMN@trade']);
    await waitFor(() => log.includes('stale USDTTMN@trade silent'), 'stale', 5000);
    await waitFor(() => server.subscribeCount('USDTTMN@trade') >= 2, 'resubscribed by the watchdog', 5000);
    expect(log).toContain('resubscribed USDTTMN@trade');
    expect(client.isStale('USDTTMN@trade')).toBe(true);
    // The depth channel's limit is the default 10 s: untouched.
    expect(server.subscribeCount('USDTTMN@sellDepth')).toBe(1);
    server.broadcast('USDTTMN@trade', TRADE);
    await waitFor(() => log.at(-1) === 'fresh USDTTMN@trade' && trades.length === 2, 'fresh again');
    expect(client.isStale('USDTTMN@trade')).toBe(false);
    // Only one 'stale' per silence, however many resubscribes.
    expect(log.filter((l) => l === 'stale USDTTMN@trade silent').length).toBe(1);
  });

  it('counts malformed messages per kind, logs each kind once, and keeps streaming', async () => {
    const logger = captureLogger();
    const { server, client } = await setup({ logger });
    const depths: string[] = [];
    const trades: string[] = [];
    const malformed: string[] = [];
    client.on('depth', (s) => depths.push(s));
    client.on('trade', (t) => trades.push(t.price.toString()));
    client.on('malformed', (kind, detail) => malformed.push(`${kind}: ${detail}`));
    client.subscribe('USDTTMN@sellDepth');
    client.subscribe('USDTTMN@trade');
    await client.connect();
    await waitFor(() => server.subscribeCount('USDTTMN@trade') === 1, 'subscribe');
    server.broadcast('USDTTMN@sellDepth', { 0: { price: 'abc', quantity: 1 } });
    server.broadcast('USDTTMN@sellDepth', 'garbage');
    server.broadcast('USDTTMN@sellDepth', { 0: { price: '5' } });
    server.broadcast('USDTTMN@trade', { price: '1', quantity: '1', isBuyOrder: true });
    server.broadcast('USDTTMN@trade', null);
    server.io.emit('Broadcaster', 42, {});
    server.broadcast('USDTTMN@sellDepth', SELL_DEPTH);
    server.broadcast('USDTTMN@trade', TRADE);
    await waitFor(() => depths.length === 1 && trades.length === 1, 'valid messages after the bad ones');
    expect(client.stats().malformed).toEqual({ depth: 3, trade: 2, envelope: 1 });
    expect(client.stats().malformedTotal).toBe(6);
    expect(malformed).toHaveLength(6);
    expect(malformed[0]).toMatch(/^depth: depth\[0\]\.price.*"abc"/);
    const warnings = logger.entries.filter((e) => e.level === 'warn' && e.msg?.startsWith('malformed'));
    expect(warnings.map((w) => (w.obj as { kind: string }).kind)).toEqual(['depth', 'trade', 'envelope']);
    expect(client.isStale('USDTTMN@trade')).toBe(false);
    // Another bad depth: counted, not logged again.
    server.broadcast('USDTTMN@sellDepth', []);
    server.broadcast('USDTTMN@sellDepth', [{ price: -1, quantity: 1 }]);
    await waitFor(() => client.stats().malformed.depth === 4, 'counted');
    expect(logger.entries.filter((e) => e.level === 'warn' && e.msg?.startsWith('malformed'))).toHaveLength(3);
  });

  it('a listener that throws does not break the stream', async () => {
    const logger = captureLogger();
    const { server, client } = await setup({ logger });
    let calls = 0;
    client.on('depth', () => {
      calls++;
      throw new Error('strategy bug');
    });
    client.subscribe('USDTTMN@sellDepth');
    await client.connect();
    await waitFor(() => server.subscribeCount('USDTTMN@sellDepth') === 1, 'subscribe');
    server.broadcast('USDTTMN@sellDepth', SELL_DEPTH);
    server.broadcast('USDTTMN@sellDepth', SELL_DEPTH);
    await waitFor(() => calls === 2, 'both delivered');
    expect(client.stats().listenerErrors).toBe(2);
    expect(client.stats().connectionsUp).toBe(1);
    expect(logger.entries.some((e) => e.level === 'error' && e.msg === 'stream listener threw')).toBe(true);
  });

  it('close() rejects a pending connect and stops reconnecting', async () => {
    const { server, client } = await setup({ reconnect: { initialMs: 10, maxMs: 20 } });
    server.refuse(true);
    client.subscribe('AAATMN@trade');
    const pending = client.connect();
    await waitFor(() => client.stats().reconnects >= 2, 'retrying');
    client.close();
    await expect(pending).rejects.toThrow(/closed/);
    const accepted = client.stats().reconnects;
    // A witness with the same backoff, started after the close, retrying twice against the same
    // refusing server: the closed client had as long to retry, and did not.
    const witness = new StreamClient({ url: server.url, transport: 'socketio', reconnect: { initialMs: 10, maxMs: 20 } });
    cleanups.push(() => witness.close());
    witness.subscribe('AAATMN@trade');
    witness.connect().catch(() => undefined);
    await waitFor(() => witness.stats().reconnects >= 2, 'the witness retrying twice');
    expect(client.stats().reconnects).toBe(accepted);
    expect(client.stats().connections).toBe(0);
  });
});
