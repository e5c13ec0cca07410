import { describe, it, expect } from 'vitest';
import { Decimal } from '../../../src/core/decimal.js';
import { equity, loanFor, openAmounts, triggerPrice } from '../../../src/sim/margin/math.js';

const D = (v: string | number) => new Decimal(v);
const m = D('0.05');
const w = D('0.1');
const r = D('0.0005');

describe('margin math (worked by hand)', () => {
  it('long: C=1000 USDT, k=5 at 50000 -> L=4000, Q=0.1, liq 42105.27, call 44444.45', () => {
    const a = openAmounts('long', D(1000), D(5), D(50000), 6, r);
    expect(a.loan.toFixed()).toBe('4000'); // 1000 * (5 - 1)
    expect(a.baseQty.toFixed()).toBe('0.1'); // 5000 / 50000
    expect(a.quoteNet.toFixed()).toBe('-4000'); // no change left, owes 4000
    expect(a.interestPerPeriod.toFixed()).toBe('2'); // 4000 * 0.0005
    // 4000 / (0.1 * 0.95) = 42105.263..., rounded up to the cent
    expect(triggerPrice(a.baseQty, a.quoteNet, D(0), m, 2).toFixed()).toBe('42105.27');
    // 4000 / (0.1 * 0.9) = 44444.444..., rounded up
    expect(triggerPrice(a.baseQty, a.quoteNet, D(0), w, 2).toFixed()).toBe('44444.45');
    // at the liquidation price equity is 5% of the position value (just above, from the rounding up)
    const p = D('42105.27');
    expect(equity(a.baseQty, a.quoteNet, D(0), p).div(a.baseQty.mul(p)).gte(m)).toBe(true);
  });

  it('short: C=1000 USDT, k=5 at 50000 -> Lb=0.1 BTC, cash 6000, liq 57142.85, call 54545.45', () => {
    const a = openAmounts('short', D(1000), D(5), D(50000), 6, r);
    expect(a.loan.toFixed()).toBe('0.1'); // 1000 * 5 / 50000 borrowed in BTC
    expect(a.baseQty.toFixed()).toBe('-0.1');
    expect(a.quoteNet.toFixed()).toBe('6000'); // collateral 1000 + proceeds 5000
    expect(a.interestPerPeriod.toFixed()).toBe('2.5'); // 0.1 * 50000 * 0.0005
    // 6000 / (0.1 * 1.05) = 57142.857..., rounded down
    expect(triggerPrice(a.baseQty, a.quoteNet, D(0), m, 2).toFixed()).toBe('57142.85');
    // 6000 / (0.1 * 1.1) = 54545.4545..., rounded down
    expect(triggerPrice(a.baseQty, a.quoteNet, D(0), w, 2).toFixed()).toBe('54545.45');
  });

  it('interest raises a long liquidation price and lowers a short one', () => {
    // long after 3 periods: I = 6 -> 4006 / 0.095 = 42168.421... -> 42168.43
    expect(triggerPrice(D('0.1'), D(-4000), D(6), m, 2).toFixed()).toBe('42168.43');
    // short after 2 periods: I = 5 -> 5995 / 0.105 = 57095.238... -> 57095.23
    expect(triggerPrice(D('-0.1'), D(6000), D(5), m, 2).toFixed()).toBe('57095.23');
  });

  it('a long whose cash covers the loan cannot be liquidated (price 0)', () => {
    expect(triggerPrice(D('0.1'), D(10), D(0), m, 2).toFixed()).toBe('0');
  });

  it('loan for the bounds call: quote for a long, base (rounded down to the step) for a short', () => {
    expect(loanFor('long', D(1000), D('2.5'), D(50000), 6).toFixed()).toBe('1500');
    expect(loanFor('short', D(1000), D(3), D(70000), 6).toFixed()).toBe('0.042857'); // 3000/70000 = 0.0428571...
  });

  it('a short fill leaves the step remainder out of the loan', () => {
    const a = openAmounts('short', D(1000), D(3), D(70000), 6, r);
    expect(a.loan.toFixed()).toBe('0.042857');
    expect(a.quoteNet.toFixed()).toBe('3999.99'); // 1000 + 0.042857 * 70000
  });
});
