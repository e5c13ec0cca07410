import { describe, it, expect, beforeEach } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { Ledger } from '../../../src/sim/ledger.js';
import { SimError } from '../../../src/sim/errors.js';
import { InstantDesk } from '../../../src/sim/instant.js';
import { D, FakePrices, specs, T0 } from './helpers.js';

let ledger: Ledger;
let prices: FakePrices;
let clock: ManualClock;
let desk: InstantDesk;

const refusal = (fn: () => unknown): { status: number; fields: string[] } | undefined => {
  try {
    fn();
  } catch (e) {
    if (e instanceof SimError) return { status: e.status, fields: Object.keys(e.fields) };
    throw e;
  }
  return undefined;
};

beforeEach(() => {
  ledger = new Ledger();
  ledger.credit('a', 'USDT', D(1000));
  ledger.credit('a', 'BTC', D('0.05'));
  prices = new FakePrices();
  prices.set('BTCUSDT', '49900', '50100');
  clock = new ManualClock(T0);
  desk = new InstantDesk({ ledger, prices, specs, clock });
});

describe('InstantDesk quotes', () => {
  it('quotes the ask plus 0.5% for BUY and the bid minus 0.5% for SELL, valid 10 s', () => {
    expect(desk.quote('a', 'BTCUSDT', 'BUY')).toEqual({
      price: '50350.5', // 50100 * 1.005
      price_expires_at: '2024-01-01T00:00:10Z',
      ttl: 10,
      current_time: '2024-01-01T00:00:00Z',
    });
    expect(desk.quote('a', 'BTCUSDT', 'SELL').price).toBe('49650.5'); // 49900 * 0.995
  });

  it('rounds a BUY quote up and a SELL quote down to the tick', () => {
    prices.set('BTCUSDT', '49999.99', '50000.01');
    expect(desk.quote('a', 'BTCUSDT', 'BUY').price).toBe('50250.02'); // 50250.01005 up
    expect(desk.quote('a', 'BTCUSDT', 'SELL').price).toBe('49749.99'); // 49749.99005 down
  });

  it('refuses unknown markets, bad sides and markets without a price', () => {
    expect(refusal(() => desk.quote('a', 'XXXUSDT', 'BUY'))).toEqual({ status: 422, fields: ['symbol'] });
    expect(refusal(() => desk.quote('a', 'BTCUSDT', 'HOLD' as 'BUY'))).toEqual({ status: 422, fields: ['side'] });
    expect(refusal(() => desk.quote('a', 'ETHUSDT', 'BUY'))).toEqual({ status: 422, fields: ['symbol'] });
  });
});

describe('InstantDesk orders', () => {
  it('fills a BUY at once with the documented shape; fee in the received base', () => {
    const o = desk.place('a', { symbol: 'BTCUSDT', side: 'BUY', quantity: D('0.01') });
    expect(o).toMatchObject({
      symbol: 'BTCUSDT',
      sourceMarket: 'BTC',
      destinationMarket: 'USDT',
      type: 'OTC',
      side: 'BUY',
      transactTime: T0 / 1000,
      price: '50350.5',
      origQty: '0.01',
      executedQty: '0.01',
      executedPrice: '50350.5',
      executedSum: '503.505',
      sum: '503.505',
      executedPercent: 100,
      status: 'FILLED',
      active: false,
    });
    expect(o.clientOrderId).toMatch(/^OTC-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(o.fills).toEqual([
      {
        price: '50350.5',
        quantity: '0.01',
        fee: '0.00002',
        feeCoefficient: '0.002',
        feeAsset: 'BTC',
        timestamp: '2024-01-01T00:00:00Z',
        symbol: 'BTCUSDT',
        sum: '503.505',
        makerFeeCoefficient: '0.001',
        takerFeeCoefficient: '0.002',
        isBuyer: true,
      },
    ]);
    expect(ledger.get('a', 'USDT').value.toFixed()).toBe('496.495'); // 1000 - 503.505
    expect(ledger.get('a', 'BTC').value.toFixed()).toBe('0.05998'); // 0.05 + 0.01 - 0.00002
  });

  it('fills a SELL with the fee in the received quote', () => {
    const o = desk.place('a', { symbol: 'BTCUSDT', side: 'SELL', quantity: D('0.01') });
    expect(o.fills[0]).toMatchObject({ fee: '0.99301', feeAsset: 'USDT', isBuyer: false, sum: '496.505' });
    expect(ledger.get('a', 'BTC').value.toFixed()).toBe('0.04');
    expect(ledger.get('a', 'USDT').value.toFixed()).toBe('1495.51199'); // 1000 + 496.505 - 0.99301
  });

  it('honours a live quote and re-prices after its time-to-live', () => {
    desk.quote('a', 'BTCUSDT', 'BUY');
    prices.set('BTCUSDT', '50900', '51000');
    clock.advance(9_000);
    expect(desk.place('a', { symbol: 'BTCUSDT', side: 'BUY', quantity: D('0.001') }).price).toBe('50350.5');
    desk.quote('a', 'BTCUSDT', 'BUY');
    clock.advance(10_000);
    expect(desk.place('a', { symbol: 'BTCUSDT', side: 'BUY', quantity: D('0.001') }).price).toBe('51255'); // 51000 * 1.005
  });

  it('answers 402 on insufficient balance and moves nothing', () => {
    expect(refusal(() => desk.place('a', { symbol: 'BTCUSDT', side: 'BUY', quantity: D('0.02') }))?.status).toBe(402);
    expect(refusal(() => desk.place('a', { symbol: 'BTCUSDT', side: 'SELL', quantity: D('0.06') }))?.status).toBe(402);
    expect(ledger.balances('a')).toEqual({ USDT: { value: D(1000), locked: D(0) }, BTC: { value: D('0.05'), locked: D(0) } });
  });

  it('refuses a quantity off the step grid or not positive (422 quantity)', () => {
    expect(refusal(() => desk.place('a', { symbol: 'BTCUSDT', side: 'BUY', quantity: D('0.0000001') }))).toEqual({ status: 422, fields: ['quantity'] });
    expect(refusal(() => desk.place('a', { symbol: 'BTCUSDT', side: 'BUY', quantity: D(0) }))).toEqual({ status: 422, fields: ['quantity'] });
  });

  it('refuses an order total outside the market bounds (422 quantity)', () => {
    // 0.00009 * 50350.5 = 4.53 USDT < 5
    expect(refusal(() => desk.place('a', { symbol: 'BTCUSDT', side: 'BUY', quantity: D('0.00009') }))).toEqual({ status: 422, fields: ['quantity'] });
    expect(refusal(() => desk.place('a', { symbol: 'BTCUSDT', side: 'SELL', quantity: D('0.3') }))).toEqual({ status: 422, fields: ['quantity'] });
  });

  it('refuses outside the bounds it is given (paper: the exchange’s) and lists them; a market given none keeps the defaults', () => {
    const d = new InstantDesk({
      ledger,
      prices,
      specs,
      clock,
      symbols: () => ['BTCUSDT', 'USDTTMN'],
      notionalBounds: (symbol) => (symbol === 'BTCUSDT' ? { min: D(20), max: D(100) } : undefined),
    });
    // 0.0003 * 50350.5 = 15.1 USDT < 20; 0.002 * 50350.5 = 100.7 > 100; 0.001: 50.35, inside.
    expect(refusal(() => d.place('a', { symbol: 'BTCUSDT', side: 'BUY', quantity: D('0.0003') }))).toEqual({ status: 422, fields: ['quantity'] });
    expect(refusal(() => d.place('a', { symbol: 'BTCUSDT', side: 'BUY', quantity: D('0.002') }))).toEqual({ status: 422, fields: ['quantity'] });
    expect(d.place('a', { symbol: 'BTCUSDT', side: 'BUY', quantity: D('0.001') }).status).toBe('FILLED');
    prices.set('USDTTMN', '60000', '60100', '60050');
    const listed = d.otcMarkets();
    expect([listed.BTCUSDT?.minNotional, listed.BTCUSDT?.maxNotional]).toEqual([20, 100]);
    expect([listed.USDTTMN?.minNotional, listed.USDTTMN?.maxNotional]).toEqual([100000, 1000000000]);
  });

  it('lists OTC markets in the shape of the current documentation (result keyed by symbol)', () => {
    const d = new InstantDesk({ ledger, prices, specs, clock, symbols: () => ['BTCUSDT', 'USDTTMN'] });
    prices.set('USDTTMN', '60000', '60100', '60050');
    const symbols = d.otcMarkets();
    expect(symbols.BTCUSDT).toMatchObject({
      baseAsset: 'BTC',
      quoteAsset: 'USDT',
      minQty: 0.000001,
      minNotional: 5,
      maxNotional: 10000,
      buyStatus: 'ENABLE',
      exchangeStatus: 'ENABLE',
      stats: { lastPrice: 50000 },
    });
    expect(symbols.USDTTMN).toMatchObject({ minQty: 0.01, minNotional: 100000, stats: { lastPrice: 60050 } });
  });

  it('gives unique client ids, reproducible from the seed, and finds orders by id for their owner only', () => {
    const a = desk.place('a', { symbol: 'BTCUSDT', side: 'BUY', quantity: D('0.001') });
    const b = desk.place('a', { symbol: 'BTCUSDT', side: 'BUY', quantity: D('0.001') });
    expect(a.clientOrderId).not.toBe(b.clientOrderId);
    const again = new InstantDesk({ ledger, prices, specs, clock });
    expect(again.place('a', { symbol: 'BTCUSDT', side: 'BUY', quantity: D('0.001') }).clientOrderId).toBe(a.clientOrderId);
    expect(desk.get('a', b.clientOrderId)).toEqual(b);
    expect(refusal(() => desk.get('z', b.clientOrderId))?.status).toBe(404);
  });
});
