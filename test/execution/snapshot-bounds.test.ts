/** Bounds of an order answer before booking (issue 16.5): tracked-order and the balance parser. */
import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { SpotOrder } from '../../src/core/types/order.js';
import { parseBalances } from '../../src/exchange/parse/index.js';
import { applySnapshot, applyTradeDetail, type TrackedOrder } from '../../src/execution/tracked-order.js';

function order(): TrackedOrder {
  return {
    clientOrderId: 'c1',
    strategy: 's',
    account: 'main',
    symbol: 'BTCUSDT',
    side: 'BUY',
    type: 'LIMIT',
    price: d('60000'),
    quantity: d('0.001'),
    filled: d('0'),
    filledQuote: d('0'),
    fee: d('0'),
    feeAsset: 'BTC',
    state: 'open',
    createdAt: 0,
    updatedAt: 0,
    quietPolls: 0,
  };
}

function snap(over: Partial<SpotOrder>): SpotOrder {
  return {
    symbol: 'BTCUSDT',
    type: 'LIMIT',
    side: 'BUY',
    clientOrderId: 'c1',
    price: d('60000'),
    origQty: d('0.001'),
    executedQty: d('0'),
    status: 'NEW',
    active: true,
    fills: [],
    ...over,
  };
}

const fill = (over: Partial<SpotOrder['fills'][number]>) => ({
  symbol: 'BTCUSDT',
  price: d('60000'),
  quantity: d('0.001'),
  sum: d('60'),
  fee: d('0.000001'),
  feeAsset: 'BTC',
  isBuyer: true,
  timestamp: 1,
  ...over,
});

describe('order snapshots out of bounds are refused, never booked', () => {
  const cases: [string, Partial<SpotOrder>, string][] = [
    ['executed above the quantity', { executedQty: d('5'), executedSum: d('0') }, "executedQty 5 is above the order's quantity 0.001"],
    ['negative executed', { executedQty: d('-0.001') }, 'executedQty -0.001 is negative'],
    ['negative price', { price: d('-1') }, 'price -1 is negative'],
    ['a fill at price 0', { executedQty: d('0.001'), executedSum: d('0'), executedPrice: d('0') }, 'the new fill of 0.001 would be booked at a price of 0'],
    ['negative fee', { executedQty: d('0.001'), executedSum: d('60'), fee: d('-0.1') }, 'fee -0.1 is negative'],
    [
      'negative fee rate',
      { executedQty: d('0.001'), executedSum: d('60'), fills: [fill({ feeCoefficient: d('-0.002') })] },
      "a fill's fee rate -0.002 is negative",
    ],
    ['a fill priced 0', { executedQty: d('0.001'), executedSum: d('60'), fills: [fill({ price: d('0') })] }, "a fill's price 0 is not above 0"],
  ];
  for (const [name, over, reason] of cases) {
    it(name, () => {
      const o = order();
      const r = applySnapshot(o, snap(over), 10);
      expect(r.refused?.reason).toBe(reason);
      expect(r.fills).toEqual([]);
      expect(o.filled.toFixed()).toBe('0');
      expect(o.state).toBe('open');
    });
  }

  it('a sound snapshot still books', () => {
    const o = order();
    const r = applySnapshot(o, snap({ executedQty: d('0.001'), executedSum: d('60'), active: false, status: 'FILLED' }), 10);
    expect(r.refused).toBeUndefined();
    expect(r.fills[0]?.price.toFixed()).toBe('60000');
    expect(o.state).toBe('filled');
  });

  it('a trade detail with a price of 0 or a negative fee is refused', () => {
    const o = order();
    expect(applyTradeDetail(o, { quantity: d('0.001'), price: d('0'), sum: d('0'), fee: d('0'), feeAsset: 'BTC', timestamp: 1 }, 1).refused).toBeDefined();
    expect(
      applyTradeDetail(o, { quantity: d('0.001'), price: d('60000'), sum: d('60'), fee: d('-1'), feeAsset: 'BTC', timestamp: 1 }, 1).refused,
    ).toBeDefined();
    expect(o.filled.toFixed()).toBe('0');
  });

  it('a balance locked above its value, or negative, is refused with the field', () => {
    const bal = (value: string, locked: string) => ({ balances: { USDT: { asset: 'USDT', fiat: false, value, locked } } });
    expect(() => parseBalances(bal('10', '11'))).toThrow(/result\.balances\.USDT\.locked: expected a locked amount not above the value 10, got "11"/);
    expect(() => parseBalances(bal('-1', '0'))).toThrow(/result\.balances\.USDT\.value/);
    expect(parseBalances(bal('10', '10')).USDT?.locked.toFixed()).toBe('10');
  });
});
