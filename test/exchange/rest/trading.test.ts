import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { d } from '../../../src/core/decimal.js';
import { ParameterError } from '../../../src/core/errors.js';
import type { MarginRequest } from '../../../src/core/types/index.js';
import { OrderOutcomeUnknownError } from '../../../src/exchange/rest/errors.js';
import { startSampleServer, type SampleServer } from '../../support/sample-server.js';
import { closedPropBody, createdPositionBody, dryRunBody, loanBody, position, propHistoryBody, propPackageBody } from './fixtures.js';
import { makeClient } from './helpers.js';

let server: SampleServer;
beforeAll(async () => {
  server = await startSampleServer();
});
afterAll(async () => server.stop());
beforeEach(() => server.reset());

const req: MarginRequest = {
  market: 'BTCUSDT',
  side: 'long',
  collateral: d('300'),
  riskCoef: d('10'),
  openPrice: d('62500'),
  stopLoss: d('60000'),
  takeProfit: d('70000'),
};

describe('instant orders', () => {
  it('createInstantOrder sends symbol, side, quantity, from=otc and parses the order with fills', async () => {
    const { client } = makeClient(server);
    server.route('POST', '/v1/account/easy-trade/orders', { sample: 'rest_v1_account_otc_orders_create__api-docs-wallex-ir-crawl.json', status: 201 });
    const o = await client.createInstantOrder({ symbol: 'BTCUSDT', side: 'BUY', quantity: d('0.01') });
    expect(server.received('POST', '/v1/account/easy-trade/orders')[0]?.body).toEqual({ symbol: 'BTCUSDT', side: 'BUY', quantity: 0.01, from: 'otc' });
    expect(o.type).toBe('OTC');
    expect(o.status).toBe('FILLED');
    expect(o.executedPercent).toBe(100);
    expect(o.fills[0]?.makerFeeCoefficient?.isZero()).toBe(true); // "0E-8"
    expect(o.fills[0]?.fee.toFixed()).toBe('0.1988');
    expect(o.fills[0]?.feeAsset).toBe('BTC');
  });

  it('createInstantOrder accepts the bare documented form and a feeAsset object', async () => {
    const { client } = makeClient(server);
    const bare = {
      symbol: 'USDTTMN',
      sourceMarket: 'USDT',
      destinationMarket: 'TMN',
      type: 'OTC',
      side: 'SELL',
      clientOrderId: 'OTC-1',
      transactTime: 1716000000,
      price: '58000',
      origQty: '10',
      executedSum: '580000',
      executedQty: '10',
      executedPrice: '58000',
      sum: '580000',
      executedPercent: 100,
      status: 'FILLED',
      active: false,
      fills: [
        {
          price: '58000',
          quantity: '10',
          fee: '2320',
          feeCoefficient: '0.004',
          feeAsset: {},
          timestamp: '2024-05-18T11:10:30Z',
          symbol: 'USDTTMN',
          sum: '580000',
          makerFeeCoefficient: '0',
          takerFeeCoefficient: '0.004',
          isBuyer: false,
        },
      ],
    };
    server.route('POST', '/v1/account/easy-trade/orders', { body: bare, status: 201 });
    const o = await client.createInstantOrder({ symbol: 'USDTTMN', side: 'SELL', quantity: d('10') });
    expect(o.sourceMarket).toBe('USDT');
    // `{}` names no asset: left unset, never split from the symbol; the kernel books it in the
    // order's received asset from the market catalog (instantFills).
    expect(o.fills[0]?.feeAsset).toBeUndefined();
  });

  it('createInstantOrder is not resent after a lost answer', async () => {
    const { client } = makeClient(server);
    server.route('POST', '/v1/account/easy-trade/orders', { status: 502, raw: '<html>Bad Gateway</html>' });
    const err = await client.createInstantOrder({ symbol: 'BTCUSDT', side: 'BUY', quantity: d('0.01') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OrderOutcomeUnknownError);
    expect((err as Error).message).toMatch(/Check the account state/);
    expect(server.requests).toHaveLength(1);
  });

  it('getInstantQuote parses the price and derives the ttl when the exchange leaves it out', async () => {
    const clock = new ManualClock(Date.UTC(2022, 7, 30, 9, 20, 48));
    const { client } = makeClient(server, { clock });
    server.route('GET', '/v1/account/otc/price', { sample: 'rest_v1_account_otc_price__api-docs-wallex-ir-crawl.json' });
    const q = await client.getInstantQuote('BTCUSDT', 'BUY');
    expect(server.received('GET', '/v1/account/otc/price')[0]?.query).toEqual({ symbol: 'BTCUSDT', side: 'BUY' });
    expect(q).toMatchObject({ symbol: 'BTCUSDT', side: 'BUY', expiresAt: Date.UTC(2022, 7, 30, 9, 21, 8), ttlSeconds: 20, currentTime: clock.now() });
    expect(q.price.toFixed()).toBe('20288.99471291');
    server.route('GET', '/v1/account/otc/price', {
      body: { success: true, result: { price: '20000', price_expires_at: '2022-08-30T09:21:08Z', ttl: 15, current_time: '2022-08-30T09:20:53Z' } },
    });
    const q2 = await client.getInstantQuote('BTCUSDT', 'SELL');
    expect(q2.ttlSeconds).toBe(15);
    expect(q2.currentTime).toBe(Date.UTC(2022, 7, 30, 9, 20, 53));
  });
});

describe('margin', () => {
  it('marginDryRun sends strings and parses the preview', async () => {
    const { client } = makeClient(server);
    server.route('POST', '/margin-trade/v1/public/dry-run', { body: dryRunBody });
    const r = await client.marginDryRun(req);
    expect(server.received('POST', '/margin-trade/v1/public/dry-run')[0]?.body).toEqual({
      market: 'BTCUSDT',
      side: 'long',
      collateral: '300',
      risk_coef: '10',
      open_price: '62500',
      stop_loss: '60000',
      take_profit: '70000',
    });
    expect(r.callPrice.toFixed()).toBe('58210.55');
    expect(r.openFee).toEqual({ currency: 'USDT', value: d('0.81') });
    expect(r.maxAge).toBe(1814400);
  });

  it('marginLoan parses collateral bounds; bare response accepted', async () => {
    const { client } = makeClient(server);
    server.route('POST', '/margin-trade/v1/public/loan', { body: loanBody.result });
    const b = await client.marginLoan({ market: 'BTCUSDT', side: 'short', riskCoef: '5' });
    expect(server.received('POST', '/margin-trade/v1/public/loan')[0]?.body).toEqual({ market: 'BTCUSDT', side: 'short', risk_coef: '5' });
    expect(b.collateralMin.toFixed()).toBe('5');
    expect(b.collateralMax.toFixed()).toBe('25000');
    expect(b.loan.value.toFixed()).toBe('2700');
    await expect(client.marginLoan({ market: 'BTCUSDT', side: 'up' as never, riskCoef: '5' })).rejects.toThrow(/invalid side: "up"/);
  });

  it('getMarginPositions sends the filter and accepts bare and wrapped lists', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/margin-trade/v1/positions', { body: [position] });
    const [p] = await client.getMarginPositions({ active: true, positionSide: 'long', market: 'BTCUSDT' });
    expect(server.received('GET', '/margin-trade/v1/positions')[0]?.query).toEqual({ active: 'true', position_side: 'long', market: 'BTCUSDT' });
    expect(p?.id).toBe(1842);
    expect(p?.liquidityPrice.toFixed()).toBe('56100.1');
    expect(p?.profit.value.toFixed()).toBe('-1.5');
    expect(p?.closeReason).toBeNull();
    server.route('GET', '/margin-trade/v1/positions', { body: { success: true, result: [position, { ...position, id: 2 }] } });
    expect((await client.getMarginPositions()).map((x) => x.id)).toEqual([1842, 2]);
  });

  it('openMarginPosition accepts plain-value money fields and is never resent', async () => {
    const { client } = makeClient(server);
    server.route('POST', '/margin-trade/v1/positions', { body: createdPositionBody, status: 201 });
    const p = await client.openMarginPosition(req);
    expect(p.collateral).toEqual({ value: d('300') });
    expect(p.interest.value.isZero()).toBe(true);
    expect(p.state).toBe('pending');
    server.route('POST', '/margin-trade/v1/positions', { status: 504, body: { success: false, message: 'Gateway Timeout' } });
    await expect(client.openMarginPosition(req)).rejects.toThrow(OrderOutcomeUnknownError);
    expect(server.received('POST', '/margin-trade/v1/positions')).toHaveLength(2);
    await expect(client.openMarginPosition({ ...req, riskCoef: d('0') })).rejects.toThrow(/invalid riskCoef/);
  });

  it('addMarginCollateral patches {change} and parses the position wrapped in result', async () => {
    const { client } = makeClient(server);
    server.route('PATCH', '/margin-trade/v1/positions/1842/collateral', {
      body: { success: true, result: { ...position, collateral: { currency: 'USDT', value: '350' } } },
    });
    const p = await client.addMarginCollateral(1842, '50');
    expect(server.received('PATCH', '/margin-trade/v1/positions/1842/collateral')[0]?.body).toEqual({ change: '50' });
    expect(p.collateral.value.toFixed()).toBe('350');
    await expect(client.addMarginCollateral(1.5, '50')).rejects.toThrow(/invalid id: 1.5/);
  });

  it('closeMarginPosition patches {price} and parses closing data', async () => {
    const { client } = makeClient(server);
    const closed = { ...position, state: 'closed', close_price: '63000', close_filled_price: 62990.5, close_reason: 'user', closed_at: '2024-05-02T10:00:00Z' };
    server.route('PATCH', '/margin-trade/v1/positions/1842/close', { body: closed });
    const p = await client.closeMarginPosition(1842, d('63000'));
    expect(server.received('PATCH', '/margin-trade/v1/positions/1842/close')[0]?.body).toEqual({ price: '63000' });
    expect(p.state).toBe('closed');
    expect(p.closeFilledPrice?.toFixed()).toBe('62990.5');
    expect(p.closeReason).toBe('user');
  });
});

describe('trading credit', () => {
  it('getPropHistory parses entries and page info', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/prop/user/packages/history', { body: propHistoryBody });
    const h = await client.getPropHistory();
    expect(h.pageInfo).toEqual({ page: 1, perPage: 10, count: 1, totalCount: 1 });
    const e = h.items[0];
    expect(e?.clientId).toBe('sub_9001');
    expect(e?.finalBalance).toBeNull();
    expect(e?.profit?.toFixed()).toBe('1250000.5');
    expect(e?.dailyFee?.toFixed()).toBe('100000');
  });

  it('getPropPackage parses the detail and the unavailable markets', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/prop/packages/12', { body: propPackageBody });
    const p = await client.getPropPackage(12);
    expect(p.detail.loan.toFixed()).toBe('90000000');
    expect(p.detail.usageCountStep).toBe(2);
    expect(p.unavailableMarkets).toEqual(['SHIBTMN', 'PEPEUSDT']);
    await expect(client.getPropPackage(-1)).rejects.toThrow(ParameterError);
  });

  it('closePropAccount sends sub-account-client-id; withSubAccount sends it on every call', async () => {
    const { client } = makeClient(server);
    server.route('DELETE', '/v1/prop/user/packages', { body: closedPropBody });
    await expect(client.closePropAccount()).rejects.toThrow(/invalid subAccountId: nothing/);
    const closed = await client.closePropAccount('sub_9001');
    expect(server.received('DELETE', '/v1/prop/user/packages')[0]?.headers['sub-account-client-id']).toBe('sub_9001');
    expect(closed.finalBalance.toFixed()).toBe('101250000.5');
    expect(closed.propPackageId).toBe(12);

    const sub = client.withSubAccount('sub_9001');
    server.route('GET', '/v1/account/balances', { sample: 'rest_v1_account_balances__api-docs-wallex-ir-crawl.txt' });
    await sub.getBalances();
    await sub.closePropAccount();
    await client.getBalances();
    const balances = server.received('GET', '/v1/account/balances');
    expect(balances[0]?.headers['sub-account-client-id']).toBe('sub_9001');
    expect(balances[1]?.headers['sub-account-client-id']).toBeUndefined();
    expect(server.received('DELETE', '/v1/prop/user/packages')[1]?.headers['sub-account-client-id']).toBe('sub_9001');
    expect(() => client.withSubAccount('bad id\r\nx: y')).toThrow(/invalid subAccountId/);
  });
});
