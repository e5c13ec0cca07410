import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import {
  parseAccountTrades,
  parseBalances,
  parseFeeRates,
  parseOrderList,
  parseSpotOrder,
  readEnvelope,
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

describe('wire server: account and spot endpoints', () => {
  it('creates (201), looks up, lists and cancels orders; balances and fees parse with the client parsers', async () => {
    const { call, sim } = await setup();
    const bestAsk = sim.bestAsk('BTCUSDT')!;
    const created = await call('POST', '/v1/account/orders', {
      body: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '60000', quantity: '0.01', client_id: 'contract_1' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-ratelimit-limit')).toBe('20');
    expect(created.headers.get('x-ratelimit-remaining')).toBe('19');
    const order = parseSpotOrder(created.result);
    expect([order.clientOrderId, order.status, order.active, order.executedPercent]).toEqual(['contract_1', 'NEW', true, 0]);
    expect(order.price.toFixed()).toBe('60000');

    const bal = parseBalances((await call('GET', '/v1/account/balances')).result);
    expect(bal.USDT!.locked.toFixed()).toBe('600');
    expect(bal.TMN!.fiat).toBe(true);

    const open = await call('GET', '/v1/account/openOrders?symbol=BTCUSDT');
    const env = readEnvelope(open.json);
    expect(parseOrderList(env.result, env.resultInfo).items.map((o) => o.clientOrderId)).toEqual(['contract_1']);
    expect(env.resultInfo?.totalCount).toBe(1);

    const got = parseSpotOrder((await call('GET', '/v1/account/orders/contract_1')).result);
    expect(got.origQty.toFixed()).toBe('0.01');

    const cancelled = await call('DELETE', '/v1/account/orders/contract_1');
    expect(cancelled.status).toBe(200);
    expect(parseSpotOrder(cancelled.result).active).toBe(false);
    expect(parseBalances((await call('GET', '/v1/account/balances')).result).USDT!.locked.toFixed()).toBe('0');

    // A crossing order fills against the book at once; fee in the received asset
    const taker = parseSpotOrder(
      (await call('POST', '/v1/account/orders', { body: { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.001' } })).result,
    );
    expect(taker.status).toBe('FILLED');
    expect(taker.executedPercent).toBe(100);
    expect(taker.executedPrice!.eq(bestAsk)).toBe(true);
    expect(taker.fills[0]!.feeAsset).toBe('BTC');
    expect(taker.fee!.toFixed()).toBe('0.000002');

    const trades = await call('GET', '/v1/account/trades');
    const tEnv = readEnvelope(trades.json);
    expect(parseAccountTrades(tEnv.result, tEnv.resultInfo).items[0]!.price.eq(bestAsk)).toBe(true);

    const fees = parseFeeRates((await call('GET', '/v1/account/fee')).result);
    expect(fees.markets.BTCTMN!.takerFeeRate.toFixed()).toBe('0.004');
    expect(fees.markets.BTCUSDT!.makerFeeRate.toFixed()).toBe('0.002');
    sim.setAccountFees('test', 'BTCUSDT', { makerFee: '0.001', takerFee: '0.0015' });
    expect(parseFeeRates((await call('GET', '/v1/account/fee')).result).markets.BTCUSDT!.takerFeeRate.toFixed()).toBe('0.0015');
    const cheap = parseSpotOrder(
      (await call('POST', '/v1/account/orders', { body: { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.002' } })).result,
    );
    expect(cheap.fills[0]!.feeCoefficient!.toFixed()).toBe('0.0015');
    expect(cheap.fee!.toFixed()).toBe('0.000003');

    // the documented query form of cancel
    await call('POST', '/v1/account/orders', {
      body: { symbol: 'USDTTMN', side: 'SELL', type: 'LIMIT', price: '90000', quantity: '10', client_id: 'q_cancel' },
    });
    const qc = await call('DELETE', '/v1/account/orders?clientOrderId=q_cancel');
    expect(parseSpotOrder(qc.result).status).toBe('CANCELED');
  });

  it('answers every rule with the real status and body', async () => {
    const { call, sim, clock } = await setup();
    const e422 = await call('POST', '/v1/account/orders', {
      body: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '60000.123', quantity: '0.0000001' },
    });
    expect(e422.status).toBe(422);
    expect(e422.json).toMatchObject({ success: false, code: 422 });
    expect(Object.keys(readFieldErrors(e422.result)).sort()).toEqual(['price', 'quantity']);
    const small = await call('POST', '/v1/account/orders', {
      body: { symbol: 'BTCTMN', side: 'BUY', type: 'LIMIT', price: '5000000000', quantity: '0.00001' },
    });
    expect(readFieldErrors(small.result).quantity![0]).toContain('minimum 100000 TMN');
    expect((await call('POST', '/v1/account/orders', { body: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: 'abc', quantity: '1' } })).status).toBe(
      422,
    );
    expect(
      (await call('POST', '/v1/account/orders', { body: { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', price: '70000', quantity: '50' } })).status,
    ).toBe(402);
    await call('POST', '/v1/account/orders', {
      body: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '50000', quantity: '0.001', client_id: 'twice' },
    });
    expect(
      (
        await call('POST', '/v1/account/orders', {
          body: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '50000', quantity: '0.001', client_id: 'twice' },
        })
      ).status,
    ).toBe(409);
    expect((await call('GET', '/v1/account/orders/missing')).status).toBe(404);
    expect((await call('GET', '/v1/account/balances', { key: null })).status).toBe(401);
    expect((await call('GET', '/v1/account/balances', { key: 'sim_wrong' })).status).toBe(401);

    const reader = sim.createAccount({ id: 'reader', balances: { USDT: '100' } });
    const readKey = sim.createApiKey(reader.id, { name: 'ro', permissions: ['read'] }).key;
    const r403 = await call('POST', '/v1/account/orders', {
      key: readKey,
      body: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '50000', quantity: '0.001' },
    });
    expect(r403.status).toBe(403);
    expect(String(r403.json.message)).not.toContain(readKey);
    const ipKey = sim.createApiKey(reader.id, { name: 'ip', permissions: ['read'], ips: ['10.0.0.9'] }).key;
    expect((await call('GET', '/v1/account/balances', { key: ipKey })).status).toBe(403);
    expect((await call('GET', '/v1/account/balances', { key: ipKey, headers: { 'x-sim-client-ip': '10.0.0.9' } })).status).toBe(200);
    sim.createApiKey(reader.id, { name: 'third' });
    expect(() => sim.createApiKey(reader.id, { name: 'fourth' })).toThrow(/at most 3 active/);
    clock.advance(91 * 86_400_000);
    expect((await call('GET', '/v1/account/balances', { key: readKey })).status).toBe(401);
  });

  it('limits order calls to 20 per 10 seconds per account with 429, Retry-After and rate headers', async () => {
    const { call, clock } = await setup();
    const body = (i: number) => ({ symbol: 'USDTTMN', side: 'BUY', type: 'LIMIT', price: '80000', quantity: '2', client_id: `rl_${i}` });
    for (let i = 0; i < 20; i++) expect((await call('POST', '/v1/account/orders', { body: body(i) })).status).toBe(201);
    const limited = await call('POST', '/v1/account/orders', { body: body(20) });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call('GET', '/v1/account/orders/rl_20')).status).toBe(404); // not executed
    expect((await call('GET', '/v1/account/balances')).status).toBe(200); // reads are not order calls
    clock.advance(10_001);
    expect((await call('DELETE', '/v1/account/orders/rl_0')).status).toBe(200);
  });

  it('accepts form-encoded bodies', async () => {
    const { server, account } = await setup();
    const res = await fetch(`${server.url}/v1/account/orders`, {
      method: 'POST',
      headers: { 'x-api-key': account.apiKey, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ symbol: 'ETHUSDT', side: 'BUY', type: 'LIMIT', price: '2000', quantity: '0.01' }).toString(),
    });
    expect(res.status).toBe(201);
    const order = parseSpotOrder(((await res.json()) as { result: unknown }).result);
    expect(order.clientOrderId).toMatch(/^LIMIT-[0-9a-f-]{36}$/);
    expect(order.price.eq(d('2000'))).toBe(true);
  });
});
