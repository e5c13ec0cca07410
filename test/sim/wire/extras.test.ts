import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { parseBalances, parseCandles, parseOrderList, readEnvelope } from '../../../src/exchange/parse/index.js';
import { startSim } from './harness.js';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe('wire server: candles, order history and the admin account route', () => {
  it('serves candles given with setCandles, aggregated to the asked resolution, and validates the query', async () => {
    const h = await startSim();
    stop = () => h.server.close();
    const c = (time: number, close: string) => ({ time, open: d(close), high: d(close), low: d(close), close: d(close), volume: d('1') });
    h.sim.setCandles('USDTTMN', [c(1_722_470_400, '82000'), c(1_722_474_000, '82100'), c(1_722_477_600, '82200'), c(1_722_481_200, '82300')]);
    const res = await fetch(`${h.server.url}/v1/udf/history?symbol=USDTTMN&resolution=180&from=1722470400&to=1722481200`);
    const candles = parseCandles(await res.json());
    expect(candles.map((x) => [x.time, x.open.toFixed(), x.close.toFixed(), x.volume.toFixed()])).toEqual([
      [1_722_470_400, '82000', '82200', '3'],
      [1_722_481_200, '82300', '82300', '1'],
    ]);
    const bad = await h.call('GET', '/v1/udf/history?symbol=USDTTMN&resolution=7&from=1&to=2', { key: null });
    expect(bad.status).toBe(422);
    const none = await fetch(`${h.server.url}/v1/udf/history?symbol=BTCTMN&resolution=60&from=1&to=2`);
    expect(parseCandles(await none.json())).toEqual([]);
  });

  it('lists the order history with filters and paging', async () => {
    const h = await startSim();
    stop = () => h.server.close();
    for (let i = 0; i < 3; i++) {
      await h.call('POST', '/v1/account/orders', {
        body: { symbol: 'USDTTMN', side: 'BUY', type: 'LIMIT', price: '80000', quantity: '2', client_id: `h${i}` },
      });
    }
    await h.call('POST', '/v1/account/orders', {
      body: { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', price: '70000', quantity: '0.001', client_id: 'h_btc' },
    });
    await h.call('DELETE', '/v1/account/orders/h0');
    const r = await h.call('GET', '/v1/account/orders?market=USDTTMN&per_page=2&page=1');
    const env = readEnvelope(r.json);
    const page = parseOrderList(env.result, env.resultInfo);
    expect(page.items.map((o) => o.clientOrderId)).toEqual(['h2', 'h1']);
    expect(page.pageInfo).toEqual({ page: 1, perPage: 2, count: 2, totalCount: 3 });
    const sells = parseOrderList((await h.call('GET', '/v1/account/orders?side=SELL')).result);
    expect(sells.items.map((o) => o.clientOrderId)).toEqual(['h_btc']);
    expect((await h.call('GET', '/v1/account/orders?per_page=500')).status).toBe(422);
  });

  it('creates a funded account with a key through /__sim/accounts', async () => {
    const h = await startSim();
    stop = () => h.server.close();
    const created = await h.call('POST', '/__sim/accounts', { key: null, body: { id: 'drill', balances: { USDT: '250' } } });
    expect(created.status).toBe(201);
    const { apiKey } = created.result as { apiKey: string };
    const balances = parseBalances((await h.call('GET', '/v1/account/balances', { key: apiKey })).result);
    expect(balances.USDT!.value.toFixed()).toBe('250');
  });

  it('lists every order of an account, open and closed, through /__sim/orders', async () => {
    const h = await startSim();
    stop = () => h.server.close();
    await h.call('POST', '/v1/account/orders', { body: { symbol: 'USDTTMN', side: 'BUY', type: 'LIMIT', price: '80000', quantity: '2', client_id: 'o1' } });
    await h.call('POST', '/v1/account/orders', { body: { symbol: 'USDTTMN', side: 'BUY', type: 'LIMIT', price: '80000', quantity: '3', client_id: 'o2' } });
    await h.call('DELETE', '/v1/account/orders/o1');
    const r = await h.call('GET', `/__sim/orders?accountId=${h.account.accountId}`, { key: null });
    expect(r.status).toBe(200);
    expect(r.result).toEqual([
      expect.objectContaining({ clientOrderId: 'o1', symbol: 'USDTTMN', side: 'BUY', active: false, origQty: '2', executedQty: '0' }),
      expect.objectContaining({ clientOrderId: 'o2', active: true, origQty: '3', executedQty: '0', executedSum: '0', fee: '0' }),
    ]);
    const missing = await h.call('GET', '/__sim/orders', { key: null });
    expect(missing.status).toBe(422);
    expect(JSON.stringify(missing.json)).toContain('accountId: required');
  });
});
