import { afterEach, describe, it, expect } from 'vitest';
import { StreamClient, type StreamClientOptions } from '../../../src/exchange/stream/index.js';
import type { BookLevel } from '../../../src/core/types/market.js';
import { startFakeStreamServer, waitFor, type FakeStreamServer } from './fake-stream-server.js';
import { loadSample } from './samples.js';

const SELL_DEPTH = loadSample('ws_socketio_sellDepth_Broadcaster_data__api-docs-wallex-ir-crawl.txt');
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

describe('StreamClient', () => {
  it.each([3, 4] as const)('protocol %i receives depth snapshots from Broadcaster', async (protocol) => {
    const { server, client } = await setup({ protocol });
    const got: Array<[string, string, BookLevel[]]> = [];
    const raw: string[] = [];
    client.on('depth', (symbol, side, levels) => got.push([symbol, side, levels]));
    client.on('message', (channel) => raw.push(channel));
    const fresh: string[] = [];
    client.on('channelFresh', (ch) => fresh.push(ch));
    expect(client.subscribe('USDTTMN@sellDepth')).toBe('USDTTMN@sellDepth');
    await client.connect();
    await waitFor(() => server.subscribeCount('USDTTMN@sellDepth') === 1, 'subscribe');
    expect(client.isStale('USDTTMN@sellDepth')).toBe(true);
    server.broadcast('USDTTMN@sellDepth', SELL_DEPTH);
    await waitFor(() => got.length === 1, 'depth');
    const [symbol, side, levels] = got[0]!;
    expect(symbol).toBe('USDTTMN');
    expect(side).toBe('ask');
    expect(levels.map((l) => [l.price.toString(), l.quantity.toString()])).toEqual([
      ['31695', '214.86'],
      ['31669', '331.55'],
    ]);
    expect(raw).toEqual(['USDTTMN@sellDepth']);
    expect(fresh).toEqual(['USDTTMN@sellDepth']);
    expect(client.isStale('USDTTMN@sellDepth')).toBe(false);
    expect(server.protocols()).toEqual([protocol]);
    expect(client.stats()).toMatchObject({ messages: 1, channels: 1, staleChannels: 0, connections: 1, connectionsUp: 1 });
  });

  it('cleans non-ASCII marks from channel names before subscribing', async () => {
    const { server, client } = await setup();
    const trades: string[] = [];
    client.on('trade', (t) => trades.push(`${t.symbol} ${t.price.toString()} ${t.quantity.toString()} ${t.isBuyOrder}`));
    expect(client.subscribe(' usdttmn@\u064Etrade\u200f')).toBe('USDTTMN@trade');
    await client.connect();
    await waitFor(() => server.subscribeCount('USDTTMN@trade') === 1, 'subscribe');
    expect([...server.subscriptions().values()].map((s) => [...s])).toEqual([['USDTTMN@trade']]);
    const [, trade] = loadSample('ws_raw_trade__developers-wallex-ir.json') as [string, unknown];
    server.broadcast('USDTTMN@trade', trade);
    await waitFor(() => trades.length === 1, 'trade');
    expect(trades).toEqual(['USDTTMN 82131 255.75 true']);
    expect(() => client.subscribe('USDTTMN@sellbuyDepth')).toThrow(/channel/);
  });

  it('spreads 120 channels over 3 connections with at most 50 each', async () => {
    const { server, client } = await setup();
    const symbols = Array.from({ length: 40 }, (_, i) => `C${String(i).padStart(2, '0')}TMN`);
    const channels = symbols.flatMap((s) => [`${s}@buyDepth`, `${s}@sellDepth`, `${s}@trade`]);
    for (const ch of channels) client.subscribe(ch);
    expect(client.connectionChannels().map((c) => c.length)).toEqual([50, 50, 20]);
    await client.connect();
    await waitFor(() => [...server.subscriptions().values()].reduce((n, s) => n + s.size, 0) === 120, 'all subscriptions');
    const perSocket = [...server.subscriptions().values()].map((s) => s.size).sort((a, b) => b - a);
    expect(perSocket).toEqual([50, 50, 20]);
    expect(server.connectionsAccepted()).toBe(3);
    const union = new Set([...server.subscriptions().values()].flatMap((s) => [...s]));
    expect(union.size).toBe(120);
    // One message per connection arrives once.
    const seen: string[] = [];
    client.on('depth', (symbol, side) => seen.push(`${symbol}:${side}`));
    for (const ch of ['C00TMN@buyDepth', 'C20TMN@sellDepth', 'C39TMN@buyDepth']) server.broadcast(ch, SELL_DEPTH);
    await waitFor(() => seen.length === 3, 'depth on every connection');
    expect(seen.sort()).toEqual(['C00TMN:bid', 'C20TMN:ask', 'C39TMN:bid']);
    expect(client.stats().connectionsUp).toBe(3);
  });

  it('opens another connection when a subscribe after connect finds every connection full', async () => {
    const { server, client } = await setup({ maxChannelsPerConnection: 2 });
    await client.connect(); // nothing subscribed yet: resolves at once
    expect(client.stats().connections).toBe(0);
    for (const ch of ['AAATMN@trade', 'BBBTMN@trade', 'CCCTMN@trade']) client.subscribe(ch);
    expect(client.subscribe('aaatmn@trade')).toBe('AAATMN@trade'); // idempotent
    await waitFor(() => server.subscribeCount('CCCTMN@trade') === 1 && server.subscribeCount('BBBTMN@trade') === 1, 'subscribed');
    expect(client.connectionChannels()).toEqual([['AAATMN@trade', 'BBBTMN@trade'], ['CCCTMN@trade']]);
    expect(server.connectionsAccepted()).toBe(2);
    expect(client.isStale('DDDTMN@trade')).toBe(true);
  });

  it('unsubscribes and closes a connection left without channels', async () => {
    const { server, client } = await setup({ maxChannelsPerConnection: 1 });
    client.subscribe('AAATMN@trade');
    client.subscribe('BBBTMN@trade');
    await client.connect();
    await waitFor(() => server.subscriptions().size === 2, 'two sockets');
    client.unsubscribe('BBBTMN@trade');
    await waitFor(() => server.subscriptions().size === 1, 'empty connection closed');
    expect(client.stats()).toMatchObject({ channels: 1, connections: 1 });
    // The freed slot is reused.
    client.subscribe('CCCTMN@trade');
    await waitFor(() => server.subscribeCount('CCCTMN@trade') === 1, 'reuse');
    expect(client.connectionChannels()).toEqual([['AAATMN@trade'], ['CCCTMN@trade']]);
  });

  it('rejects bad options with errors naming the field', () => {
    expect(() => new StreamClient({ url: 'ftp://x' })).toThrow(/url/);
    expect(() => new StreamClient({ url: 'http://127.0.0.1:1', protocol: 5 as 4 })).toThrow(/protocol/);
    expect(() => new StreamClient({ url: 'http://127.0.0.1:1', maxChannelsPerConnection: 0 })).toThrow(/maxChannelsPerConnection/);
    expect(() => new StreamClient({ url: 'http://127.0.0.1:1', staleAfterMs: { depth: 0 } })).toThrow(/staleAfterMs.depth/);
  });
});
