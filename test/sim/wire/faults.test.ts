import { afterEach, describe, expect, it } from 'vitest';
import { parseSpotOrder } from '../../../src/exchange/parse/index.js';
import { StreamPayloadError, parseDepth } from '../../../src/exchange/stream/parse.js';
import { startSim } from './harness.js';
import { openStream } from './stream-clients.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup(faults = {}) {
  const h = await startSim({ faults });
  cleanup.push(() => h.server.close());
  const admin = (body: unknown) => h.call('POST', '/__sim/faults', { key: null, body });
  return { ...h, admin };
}

const order = (id: string) => ({ symbol: 'USDTTMN', side: 'BUY', type: 'LIMIT', price: '80000', quantity: '2', client_id: id });

describe('wire server: fault injection', () => {
  it('answers the next N requests with 429, 500 or 503, then recovers', async () => {
    const { call, admin } = await setup();
    expect((await admin({ failNext: { status: 503, count: 2 } })).status).toBe(200);
    expect((await call('GET', '/v1/markets', { key: null })).status).toBe(503);
    const second = await call('GET', '/v1/account/balances');
    expect(second.status).toBe(503);
    expect(second.json).toMatchObject({ success: false, code: 503 });
    expect((await call('GET', '/v1/markets', { key: null })).status).toBe(200);
    await admin({ failNext: { status: 429, count: 1 } });
    const limited = await call('GET', '/v1/markets', { key: null });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    await admin({ failNext: { status: 500, count: 1 } });
    expect((await call('GET', '/v1/markets', { key: null })).status).toBe(500);
    expect((await admin({ failNext: { status: 418, count: 1 } })).status).toBe(422);
  });

  it('adds latency from config and from the admin route', async () => {
    const { call, admin, server } = await setup({ latencyMs: 150 });
    expect(server.faults.latencyMs).toBe(150);
    const t0 = performance.now();
    await call('GET', '/v1/markets', { key: null });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140); // a lower bound only: never flaky on a busy machine
    await admin({ latencyMs: 0 });
    expect((await call('GET', '/__sim/faults', { key: null })).result).toMatchObject({ latencyMs: 0 });
  });

  it('executes an order but loses the response: the client times out although the order exists', async () => {
    const { call, admin, server, account, sim } = await setup();
    await admin({ loseOrderResponses: 1 });
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), 300);
    const lost = fetch(`${server.url}/v1/account/orders`, {
      method: 'POST',
      headers: { 'x-api-key': account.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(order('lost_1')),
      signal: ctrl.signal,
    });
    await expect(lost).rejects.toThrow(/abort/i);
    clearTimeout(timer);
    const found = await call('GET', '/v1/account/orders/lost_1');
    expect(found.status).toBe(200);
    expect(parseSpotOrder(found.result).active).toBe(true);
    expect(sim.openOrders(account.accountId)).toHaveLength(1);
    // the next create is answered normally
    expect((await call('POST', '/v1/account/orders', { body: order('lost_2') })).status).toBe(201);
  });

  it('drops every socket connection', async () => {
    const { admin, server } = await setup();
    const a = openStream(server.streamUrl, 4);
    const b = openStream(server.streamUrl, 3);
    cleanup.push(
      () => a.close(),
      () => b.close(),
    );
    await Promise.all([a.connected, b.connected]);
    await admin({ dropConnections: true });
    expect(await a.disconnected).toBe('io server disconnect');
    expect(await b.disconnected).toBe('io server disconnect');
    expect((await admin({})).result).toMatchObject({ droppedConnections: 1 });
  });

  it('stalls one channel while others keep flowing', async () => {
    const { admin, server, sim } = await setup();
    const s = openStream(server.streamUrl, 4);
    cleanup.push(() => s.close());
    await s.connected;
    await admin({ stall: { channel: 'BTCUSDT@sellDepth' } });
    s.subscribe('BTCUSDT@sellDepth');
    s.subscribe('BTCUSDT@buyDepth');
    await s.next('BTCUSDT@buyDepth');
    const bids = sim.book('BTCUSDT').bids;
    sim.replaceBookSide('BTCUSDT', 'ask', sim.book('BTCUSDT').asks.slice(1));
    sim.replaceBookSide('BTCUSDT', 'bid', bids.slice(1));
    await s.next('BTCUSDT@buyDepth');
    expect(s.messages.filter(([c]) => c === 'BTCUSDT@sellDepth')).toHaveLength(0);
    await admin({ stall: { channel: 'BTCUSDT@sellDepth', on: false } });
    sim.replaceBookSide('BTCUSDT', 'ask', sim.book('BTCUSDT').asks.slice(1));
    expect(parseDepth(await s.next('BTCUSDT@sellDepth'))).toHaveLength(48);
  });

  it('sends a malformed stream message that the client parser rejects', async () => {
    const { admin, server, sim } = await setup();
    const s = openStream(server.streamUrl, 3);
    cleanup.push(() => s.close());
    await s.connected;
    s.subscribe('ETHTMN@buyDepth');
    await s.next('ETHTMN@buyDepth');
    await admin({ malformed: { count: 1, channel: 'ETHTMN@buyDepth' } });
    sim.replaceBookSide('ETHTMN', 'bid', sim.book('ETHTMN').bids.slice(2));
    const bad = await s.next('ETHTMN@buyDepth');
    expect(() => parseDepth(bad)).toThrow(StreamPayloadError);
    sim.replaceBookSide('ETHTMN', 'bid', sim.book('ETHTMN').bids.slice(2));
    expect(parseDepth(await s.next('ETHTMN@buyDepth'))).toHaveLength(46);
  });
});
