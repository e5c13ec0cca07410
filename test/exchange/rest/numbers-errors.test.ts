/**
 * Numbers and errors as the exchange sends them: `"-"` in a numeric field, and the error bodies
 * `{success: false, code, message}`, `{detail: …}` and `{message: …}`, each mapped to a typed error
 * that names the field; a number the exchange did not give is never read as 0.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  ExchangeRejectedError,
  InsufficientBalanceError,
  ResponseParseError,
  ValidationError,
  type MizanError,
} from '../../../src/core/errors.js';
import { d } from '../../../src/core/decimal.js';
import { parseActiveMarkets, parseBalances, parseDepth, parseSpotOrder, parseTrades } from '../../../src/exchange/parse/index.js';
import { readDetail } from '../../../src/exchange/rest/errors.js';
import { StreamPayloadError, parseDepth as parseStreamDepth, parseMarketStats, parseTrade } from '../../../src/exchange/stream/parse.js';
import { startSampleServer, type SampleServer } from '../../support/sample-server.js';
import { activeMarketsBody } from './fixtures.js';
import { makeClient } from './helpers.js';

const order = {
  symbol: 'BTCTMN',
  type: 'LIMIT',
  side: 'BUY',
  clientOrderId: 'x_1',
  price: '6500000000.0000000000000000',
  origQty: '0.0100000000000000',
  executedQty: '0.0000000000000000',
  status: 'NEW',
  active: true,
};
const thrown = (fn: () => unknown): Error => {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('did not throw');
};

describe('"-" in a numeric field', () => {
  it('is a typed parse error naming the field in every required amount, never 0', () => {
    const cases: [() => unknown, string][] = [
      [() => parseSpotOrder({ ...order, price: '-' }), 'order.price'],
      [() => parseSpotOrder({ ...order, executedQty: '-' }), 'order.executedQty'],
      [() => parseBalances({ balances: { TMN: { asset: 'TMN', fiat: true, value: '-', locked: '0' } } }), 'TMN'],
      [() => parseDepth({ bid: [{ price: '-', quantity: '1', sum: '1' }], ask: [] }, 'BTCTMN'), 'price'],
      [
        () => parseTrades({ latestTrades: [{ symbol: 'BTCTMN', quantity: '-', price: '1', sum: '1', isBuyOrder: true, timestamp: '2024-01-01T00:00:00Z' }] }),
        'quantity',
      ],
    ];
    for (const [fn, field] of cases) {
      const err = thrown(fn);
      expect(err, field).toBeInstanceOf(ResponseParseError);
      expect(err.message, field).toContain(field);
      expect(err.message, field).toContain('"-"');
    }
  });

  it('is malformed on the stream, naming the field (trades, depth levels, statistics and counts)', () => {
    const cases: [() => unknown, string][] = [
      [() => parseTrade('BTCTMN', { isBuyOrder: true, quantity: '-', price: '1', timestamp: '2024-01-01T00:00:00Z' }), 'trade.quantity'],
      [() => parseStreamDepth([{ price: 100, quantity: '-', sum: 1 }]), 'depth[0].quantity'],
      [() => parseMarketStats({ lastPrice: '-' }), 'marketCap.lastPrice'],
      [() => parseMarketStats({ bidCount: '-' }), 'marketCap.bidCount'],
      // Number('  ') is 0 in JavaScript: a blank count must not become one.
      [() => parseMarketStats({ askCount: '  ' }), 'marketCap.askCount'],
    ];
    for (const [fn, field] of cases) {
      const err = thrown(fn);
      expect(err, field).toBeInstanceOf(StreamPayloadError);
      expect((err as StreamPayloadError).field, field).toBe(field);
    }
  });

  it('means "no value" where the exchange documents it (market list leverage): absent, never 0; other text is an error', () => {
    const [m] = parseActiveMarkets(activeMarketsBody.result);
    expect(m!.leverageStep).toBeUndefined();
    expect(m!.maxLeverage).toBeUndefined();
    const numeric = structuredClone(activeMarketsBody.result);
    Object.assign(numeric.markets[0]!, { leverage_step: '0.5', max_leverage: 5 });
    expect(parseActiveMarkets(numeric)[0]!.maxLeverage!.toFixed()).toBe('5');
    const junk = structuredClone(activeMarketsBody.result);
    Object.assign(junk.markets[0]!, { max_leverage: 'five' });
    const err = thrown(() => parseActiveMarkets(junk));
    expect(err).toBeInstanceOf(ResponseParseError);
    expect(err.message).toMatch(/max_leverage: expected a number or numeric string, got "five"/);
  });
});

describe('error bodies', () => {
  let server: SampleServer;
  beforeAll(async () => {
    server = await startSampleServer();
  });
  afterAll(async () => server.stop());
  beforeEach(() => server.reset());
  const fail = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e as MizanError,
    );
  const createOrder = (client: ReturnType<typeof makeClient>['client']) =>
    fail(client.createOrder({ symbol: 'BTCTMN', side: 'BUY', type: 'LIMIT', price: d('1'), quantity: d('1'), clientId: 'x_1' }));

  it('{detail: [{loc, msg}]} with 422: a ValidationError with the fields named', async () => {
    const { client } = makeClient(server);
    server.route('POST', '/v1/account/orders', {
      status: 422,
      body: {
        detail: [
          { loc: ['body', 'price'], msg: 'ensure this value is greater than 0', type: 'value_error' },
          { loc: ['body', 'quantity'], msg: 'field required' },
        ],
      },
    });
    const err = await createOrder(client);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).fields).toEqual({ price: ['ensure this value is greater than 0'], quantity: ['field required'] });
    expect(err?.message).toMatch(/HTTP 422: invalid values .*\[price: ensure this value is greater than 0; quantity: field required\]/);
  });

  it('{detail: "…"} with 400, and with 200: typed errors carrying the exchange\'s words', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/account/balances', { status: 400, body: { detail: 'symbol is not valid' } });
    const bad = await fail(client.getBalances());
    expect(bad).toBeInstanceOf(BadRequestError);
    expect(bad?.context.exchangeMessage).toBe('symbol is not valid');
    server.route('GET', '/v1/account/balances', { body: { detail: 'Authentication credentials were not provided.' } });
    const ok200 = await fail(client.getBalances());
    expect(ok200).toBeInstanceOf(ExchangeRejectedError);
    expect(ok200?.message).toMatch(/HTTP 200: the exchange answered with an error body \(exchange said: Authentication credentials were not provided\.\)/);
  });

  it('{message: "…"} with 401: AuthenticationError with the message', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/account/balances', { status: 401, body: { message: 'Unauthenticated.' } });
    const err = await fail(client.getBalances());
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err?.context.exchangeMessage).toBe('Unauthenticated.');
  });

  it('{success: false, code, message} with HTTP 200: the code picks the class, a string code too', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/account/balances', { body: { success: false, code: 402, message: 'موجودی کافی نیست', result: null } });
    expect(await fail(client.getBalances())).toBeInstanceOf(InsufficientBalanceError);
    server.route('GET', '/v1/account/balances', { body: { success: 'false', code: '422', message: 'invalid', result: { quantity: ['must be positive'] } } });
    const err = await fail(client.getBalances());
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).fields).toEqual({ quantity: ['must be positive'] });
  });

  it('readDetail reads strings, per-field lists and maps', () => {
    expect(readDetail('nope')).toEqual({ message: 'nope', fields: {} });
    expect(readDetail([{ field: 'symbol', message: 'unknown' }, 'also bad'])).toEqual({ message: 'also bad', fields: { symbol: ['unknown'] } });
    expect(readDetail({ price: ['too low'] })).toEqual({ message: 'price: too low', fields: { price: ['too low'] } });
  });
});
