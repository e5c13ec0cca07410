import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { DuplicateOrderError, ParameterError, RequestTimeoutError, ResponseParseError } from '../../../src/core/errors.js';
import type { NewSpotOrder } from '../../../src/core/types/index.js';
import { OrderOutcomeUnknownError } from '../../../src/exchange/rest/errors.js';
import { startSampleServer, type SampleServer } from '../../support/sample-server.js';
import { API_KEY, makeClient } from './helpers.js';

let server: SampleServer;
beforeAll(async () => {
  server = await startSampleServer();
});
afterAll(async () => server.stop());
beforeEach(() => server.reset());

const limit: NewSpotOrder = { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: d('10000'), quantity: d('0.001'), clientId: 'bot_1_abc' };
const CREATE = 'rest_v1_account_orders_create__api-docs-wallex-ir-crawl.json';

describe('spot orders', () => {
  it('createOrder sends every field as a plain string and parses the 201 answer', async () => {
    const { client } = makeClient(server);
    server.route('POST', '/v1/account/orders', { sample: CREATE, status: 201 });
    const order = await client.createOrder({ ...limit, quantity: d('1e-7') });
    const [req] = server.received('POST', '/v1/account/orders');
    expect(req?.body).toEqual({ symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', price: '10000', quantity: '0.0000001', client_id: 'bot_1_abc' });
    expect(req?.headers['x-api-key']).toBe(API_KEY);
    expect(req?.headers['content-type']).toMatch(/application\/json/);
    expect(order.clientOrderId).toBe('LIMIT-670f7c34-d609-40d3-b98e-0150640d79cb');
    expect(order.price.toFixed()).toBe('10000');
    expect(order.origQty.toFixed()).toBe('0.001');
    expect(order.origSum?.toFixed()).toBe('10');
    expect(order.executedQty.isZero()).toBe(true);
    expect(order.status).toBe('NEW');
    expect(order.active).toBe(true);
    expect(order.fills).toEqual([]);
    expect(order.createdAt).toBe('2022-06-18T13:45:08.000000Z');
  });

  it('createOrder sends stop_Price only for stop orders and validates the combination', async () => {
    const { client } = makeClient(server);
    server.route('POST', '/v1/account/orders', { sample: 'rest_v1_account_orders_create__phinix-docs-en-2022.txt', status: 201 });
    const o = await client.createOrder({
      symbol: 'USDTTMN',
      side: 'SELL',
      type: 'STOP_LIMIT',
      price: d('24828'),
      stopPrice: d('24900.50'),
      quantity: d('10'),
      clientId: 'c2',
    });
    expect(server.received('POST', '/v1/account/orders')[0]?.body).toMatchObject({ type: 'STOP_LIMIT', price: '24828', stop_Price: '24900.5' });
    expect(o.transactTime).toBe(1624846226);
    const bad: [Partial<NewSpotOrder>, RegExp][] = [
      [{ symbol: 'btcusdt' }, /invalid symbol: "btcusdt"/],
      [{ side: 'buy' as never }, /invalid side: "buy" \(one of "BUY", "SELL"\)/],
      [{ type: 'LIMIT_MAKER' as never }, /invalid type: "LIMIT_MAKER"/],
      [{ quantity: d('0') }, /invalid quantity/],
      [{ price: d('-1') }, /invalid price/],
      [{ price: undefined }, /invalid price: nothing \(required for a LIMIT order\)/],
      [{ clientId: 'my-id' }, /invalid clientId: "my-id" \(letters, digits and underscore/],
      [{ clientId: '' }, /invalid clientId/],
      [{ stopPrice: d('1') }, /invalid stopPrice: "1" \(only for STOP_LIMIT and STOP_MARKET/],
      [{ type: 'STOP_MARKET', price: undefined }, /invalid stopPrice: nothing \(required for a STOP_MARKET order\)/],
    ];
    for (const [patch, msg] of bad) {
      await expect(client.createOrder({ ...limit, ...patch } as NewSpotOrder)).rejects.toThrow(msg);
    }
    await expect(client.createOrder({ ...limit, type: 'MARKET', price: undefined })).resolves.toBeDefined();
    const sent = server.received('POST', '/v1/account/orders');
    expect(sent).toHaveLength(2);
    expect(sent[1]?.body).toEqual({ symbol: 'BTCUSDT', type: 'MARKET', side: 'BUY', quantity: '0.001', client_id: 'bot_1_abc' });
  });

  it('createOrder is never resent: a 500 gives OrderOutcomeUnknownError naming the client id', async () => {
    const { client, sleeps } = makeClient(server);
    server.route('POST', '/v1/account/orders', [
      { status: 500, body: { success: false, message: 'Server Error' } },
      { sample: CREATE, status: 201 },
    ]);
    const err = await client.createOrder(limit).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OrderOutcomeUnknownError);
    const e = err as OrderOutcomeUnknownError;
    expect(e.clientId).toBe('bot_1_abc');
    expect(e.retryable).toBe(true);
    expect(e.message).toMatch(/createOrder \(client id bot_1_abc\): outcome unknown/);
    expect(e.message).toMatch(/Look the order up by client id bot_1_abc/);
    expect(server.received('POST', '/v1/account/orders')).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('createOrder after a timeout says the outcome is unknown and does not resend', async () => {
    const { client } = makeClient(server, { timeoutMs: 150 });
    server.route('POST', '/v1/account/orders', { hang: true });
    const err = await client.createOrder(limit).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OrderOutcomeUnknownError);
    expect((err as OrderOutcomeUnknownError).reason).toBeInstanceOf(RequestTimeoutError);
    expect((err as Error).message).toMatch(/no answer within 150 ms/);
    expect(server.received('POST', '/v1/account/orders')).toHaveLength(1);
  });

  it('createOrder with an unreadable 201 body: outcome unknown (the order probably exists)', async () => {
    const { client } = makeClient(server);
    server.route('POST', '/v1/account/orders', {
      status: 201,
      body: {
        success: true,
        result: { symbol: 'BTCUSDT', type: 'LIMIT', side: 'BUY', clientOrderId: 'bot_1_abc', origQty: '1', executedQty: '0', status: 'NEW', active: true },
      },
    });
    const err = await client.createOrder(limit).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OrderOutcomeUnknownError);
    expect((err as OrderOutcomeUnknownError).reason).toBeInstanceOf(ResponseParseError);
    expect((err as Error).message).toMatch(/result\.price: expected a number or numeric string, got nothing/);
  });

  it('createOrder maps 409 to DuplicateOrderError', async () => {
    const { client } = makeClient(server);
    server.route('POST', '/v1/account/orders', { status: 409, body: { success: false, code: 409, message: 'شناسه سفارش تکراری است', result: {} } });
    const err = await client.createOrder(limit).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DuplicateOrderError);
    expect((err as Error).message).toMatch(/duplicate client order id/);
  });

  it('getOrder looks the order up by path', async () => {
    const { client } = makeClient(server);
    const id = 'LIMIT-670f7c34-d609-40d3-b98e-0150640d79cb';
    server.route('GET', `/v1/account/orders/${id}`, { sample: 'rest_v1_account_orders_get__api-docs-wallex-ir-crawl.json' });
    const o = await client.getOrder(id);
    expect(o.clientOrderId).toBe(id);
    expect(o.executedPrice?.toFixed()).toBe('62999995');
    expect(o.executedPercent).toBe(0);
    await expect(client.getOrder('a/b')).rejects.toThrow(ParameterError);
  });

  it('cancelOrder uses DELETE on the path and is retried on 5xx', async () => {
    const { client, sleeps } = makeClient(server);
    const id = 'LIMIT-93c76637-9742-466d-b30a-89926d2cf11c';
    server.route('DELETE', `/v1/account/orders/${id}`, [
      { status: 503, raw: '<html><body>Service Unavailable</body></html>' },
      { sample: 'rest_v1_account_orders_cancel__phinix-docs-en-2022.json' },
    ]);
    const o = await client.cancelOrder(id);
    expect(server.received('DELETE', `/v1/account/orders/${id}`)).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
    expect(o.active).toBe(false);
    expect(o.side).toBe('SELL');
    expect(o.price.toFixed()).toBe('24828');
  });

  it('getOpenOrders sends filters and parses both samples with page info', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/account/openOrders', { sample: 'rest_v1_account_openOrders__phinix-docs-en-2022.txt' });
    const page = await client.getOpenOrders({ symbol: 'BTCTMN', page: 1, perPage: 50 });
    expect(server.received('GET', '/v1/account/openOrders')[0]?.query).toEqual({ symbol: 'BTCTMN', page: '1', per_page: '50' });
    expect(page.pageInfo).toEqual({ page: 1, perPage: 1, count: 1, totalCount: 1 });
    expect(page.items[0]?.price.toFixed()).toBe('700000000');
    expect(page.items[0]?.origQty.toFixed()).toBe('0.05');
    server.route('GET', '/v1/account/openOrders', { sample: 'rest_v1_account_openOrders__api-docs-wallex-ir-crawl.txt' });
    const crawl = await client.getOpenOrders();
    expect(crawl.pageInfo).toBeUndefined();
    expect(crawl.items[0]?.origSum?.toFixed()).toBe('10');
    // The current documentation shows an object of arrays keyed by market.
    server.route('GET', '/v1/account/openOrders', {
      body: {
        success: true,
        result: {
          BTCTMN: [
            {
              symbol: 'BTCTMN',
              type: 'LIMIT',
              side: 'SELL',
              clientOrderId: 'x_1',
              price: '7e8',
              origQty: '1',
              executedQty: '0.5',
              status: 'NEW',
              active: true,
            },
          ],
        },
      },
    });
    const keyed = await client.getOpenOrders();
    expect(keyed.items[0]?.price.toFixed()).toBe('700000000');
    await expect(client.getOpenOrders({ perPage: 0 })).rejects.toThrow(/invalid perPage: 0/);
  });

  it('getAccountTrades parses fills with fee asset and coefficient', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/account/trades', { sample: 'rest_v1_account_trades__phinix-docs-en-2022.txt' });
    const page = await client.getAccountTrades({ symbol: 'LTCTMN', side: 'BUY' });
    expect(server.received('GET', '/v1/account/trades')[0]?.query).toEqual({ symbol: 'LTCTMN', side: 'BUY' });
    expect(page.items).toHaveLength(2);
    expect(page.items[0]?.quantity.toFixed()).toBe('0.02538');
    expect(page.items[0]?.price.toFixed()).toBe('4343723');
    expect(page.items[0]?.feeAsset).toBe('LTC');
    expect(page.items[0]?.timestamp).toBe(Date.UTC(2021, 4, 29, 7, 55, 6));
    expect(page.pageInfo?.totalCount).toBe(2);
    server.route('GET', '/v1/account/trades', { sample: 'rest_v1_account_trades__api-docs-wallex-ir-crawl.txt' });
    const crawl = await client.getAccountTrades();
    expect(crawl.items[0]?.fee.toFixed()).toBe('0.000009702');
    expect(crawl.items[0]?.feeCoefficient?.toFixed()).toBe('0.003');
  });
});
