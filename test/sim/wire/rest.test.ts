import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import {
  parseActiveMarkets,
  parseAllDepth,
  parseCandles,
  parseCurrencyStats,
  parseDepth,
  parseMarkets,
  parseTrades,
  readFieldErrors,
} from '../../../src/exchange/parse/index.js';
import { startSim } from './harness.js';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function setup() {
  const h = await startSim();
  stop = () => h.server.close();
  return h;
}

describe('wire server: public endpoints', () => {
  it('serves markets, depth, all depth, trades, candles, currency stats and active markets in the real shapes', async () => {
    const { call, sim, clock, server } = await setup();
    const markets = parseMarkets((await call('GET', '/v1/markets', { key: null })).result);
    const btc = markets.find((m) => m.symbol === 'BTCUSDT')!;
    expect(markets.map((m) => m.symbol).sort()).toEqual(['BTCTMN', 'BTCUSDT', 'ETHTMN', 'ETHUSDT', 'USDTTMN']);
    expect([btc.stepSize, btc.tickSize, btc.minQty.toFixed(), btc.minNotional.toFixed()]).toEqual([6, 2, '0.000001', '10']);
    expect(markets.find((m) => m.symbol === 'BTCTMN')!.tickSize).toBe(0);

    const depthRes = await call('GET', '/v1/depth?symbol=BTCUSDT', { key: null });
    const raw = (depthRes.result as { ask: { price: unknown; quantity: unknown }[] }).ask[0]!;
    expect(typeof raw.price).toBe('string');
    expect(typeof raw.quantity).toBe('number');
    const depth = parseDepth(depthRes.result, 'BTCUSDT');
    expect(depth.asks).toHaveLength(50);
    expect(depth.bids).toHaveLength(50);
    expect(depth.bids[0]!.price.lt(depth.asks[0]!.price)).toBe(true);
    expect(depth.asks[0]!.price.eq(sim.bestAsk('BTCUSDT')!)).toBe(true);

    const all = parseAllDepth((await call('GET', '/v2/depth/all', { key: null })).result);
    expect(Object.keys(all)).toHaveLength(5);

    sim.recordTrade({ symbol: 'BTCUSDT', price: d('62560'), quantity: d('0.01'), isBuyOrder: true, timestamp: clock.now() });
    const trades = parseTrades((await call('GET', '/v1/trades?symbol=BTCUSDT', { key: null })).result);
    expect(trades[0]!.price.toFixed()).toBe('62560');

    const from = Math.floor(clock.now() / 1000) - 3600;
    const candleRes = await fetch(`${server.url}/v1/udf/history?symbol=BTCUSDT&resolution=60&from=${from}&to=${from + 7200}`);
    const candleBody = await candleRes.json();
    expect(candleBody).not.toHaveProperty('success');
    const candles = parseCandles(candleBody);
    expect(candles).toHaveLength(1);
    expect(candles[0]!.close.toFixed()).toBe('62560');

    expect(parseCurrencyStats((await call('GET', '/v1/currencies/stats', { key: null })).result).map((c) => c.key)).toEqual(['BTC', 'ETH']);
    expect(parseActiveMarkets((await call('GET', '/hector/web/v1/markets', { key: null })).result)).toHaveLength(5);

    const bad = await call('GET', '/v1/depth?symbol=NOPE', { key: null });
    expect(bad.status).toBe(422);
    expect(readFieldErrors(bad.result).symbol).toHaveLength(1);
  });

  it('answers 501 for spec endpoints no module serves, 404 for unknown paths and 405 for a wrong method', async () => {
    const { call } = await setup();
    const r = await call('POST', '/v1/account/easy-trade/orders', { body: { symbol: 'BTCUSDT' } });
    expect(r.status).toBe(501);
    expect(r.json.success).toBe(false);
    expect(String(r.json.message)).toContain('/v1/account/easy-trade/orders');
    expect((await call('PATCH', '/margin-trade/v1/positions/12/close', { body: {} })).status).toBe(501);
    expect((await call('GET', '/v1/nothing')).status).toBe(404);
    expect((await call('PUT', '/v1/markets')).status).toBe(405);
  });

  it('takes extra route lists from other modules', async () => {
    const h = await startSim({
      routes: [
        {
          method: 'GET',
          path: '/v1/account/profile',
          auth: 'read',
          handler: (req) => ({ status: 200, body: { success: true, result: { id: req.accountId } } }),
        },
      ],
      adminRoutes: [{ method: 'POST', path: '/__sim/extra/:n', handler: (req) => ({ status: 200, body: { n: req.params.n, body: req.body } }) }],
    });
    stop = () => h.server.close();
    const r = await h.call('GET', '/v1/account/profile');
    expect(r.status).toBe(200);
    expect(r.result).toEqual({ id: 'test' });
    h.server.faults.configure({ failNext: { status: 500, count: 1 } });
    const admin = await h.call('POST', '/__sim/extra/7', { key: null, body: { a: 1 } });
    expect(admin.json).toEqual({ n: '7', body: { a: 1 } }); // admin routes are never failed by faults
    expect((await h.call('GET', '/v1/account/profile')).status).toBe(500);
  });
});
