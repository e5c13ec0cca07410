import { describe, expect, it } from 'vitest';
import { d, type Decimal } from '../../src/core/decimal.js';
import type { MarginPosition } from '../../src/core/types/margin.js';
import { callMarginOf, callPriceOf, collateralForCallPrice, exchangeMarginFormulas, positionAmounts, simMarginFormulas } from '../../src/risk/margin-topup.js';

const W = { callMargin: d('0.1'), quantityPrecision: 4 };

function pos(side: 'long' | 'short', o: { collateral: string; loan: string; k: string; fill: string; interest?: string }): MarginPosition {
  const money = (v: string): { currency: string; value: Decimal } => ({ currency: 'USDT', value: d(v) });
  return {
    id: 1,
    market: 'BTCUSDT',
    side,
    state: 'open',
    callPrice: d(0),
    liquidityPrice: d(0),
    isCalled: false,
    openPrice: d(o.fill),
    openFilledPrice: d(o.fill),
    collateral: money(o.collateral),
    interest: money(o.interest ?? '0'),
    loan: money(o.loan),
    profit: money('0'),
    riskCoef: d(o.k),
  };
}

describe('collateral for a call price (the simulator formula solved for the top-up)', () => {
  // The README's worked example: C = 1000, k = 5, P = 50000 -> L = 4000, Q = 0.1, q = −4000, call 44444.44…
  const long = pos('long', { collateral: '1000', loan: '4000', k: '5', fill: '50000' });

  it('recovers b and q of a long from what the position reports', () => {
    const a = positionAmounts(long, 4)!;
    expect(a.b.toFixed()).toBe('0.1');
    expect(a.q.toFixed()).toBe('-4000');
    expect(callPriceOf(long, W)!.toFixed(2)).toBe('44444.44');
  });

  it('long: moving the call from 44444.44 to 40000 takes 4000 − 40000·0.1·0.9 = 400', () => {
    expect(collateralForCallPrice(long, d('40000'), W).toFixed()).toBe('400');
  });

  it('long with 6 of interest charged: 6 + 4000 − 3600 = 406', () => {
    const p = pos('long', { collateral: '1000', loan: '4000', k: '5', fill: '50000', interest: '6' });
    expect(collateralForCallPrice(p, d('40000'), W).toFixed()).toBe('406');
  });

  it('long after an earlier 500 top-up (collateral 1500): q = −3500, to 30000 needs 3500 − 2700 = 800', () => {
    const p = pos('long', { collateral: '1500', loan: '4000', k: '5', fill: '50000' });
    expect(positionAmounts(p, 4)!.q.toFixed()).toBe('-3500');
    expect(collateralForCallPrice(p, d('30000'), W).toFixed()).toBe('800');
  });

  it('long whose quantity was rounded down to the step: C = 1000, k = 3, P = 70000 -> Q = 0.0428, q = −1996, to 50000: 70', () => {
    const p = pos('long', { collateral: '1000', loan: '2000', k: '3', fill: '70000' });
    const a = positionAmounts(p, 4)!;
    expect(a.b.toFixed()).toBe('0.0428');
    expect(a.q.toFixed()).toBe('-1996');
    expect(collateralForCallPrice(p, d('50000'), W).toFixed()).toBe('70');
  });

  it('short: Lb = 0.1, q = 6000, call 54545.45; to 60000 needs 60000·0.1·1.1 − 6000 = 600', () => {
    const p = pos('short', { collateral: '1000', loan: '0.1', k: '5', fill: '50000' });
    expect(positionAmounts(p, 4)!.q.toFixed()).toBe('6000');
    expect(callPriceOf(p, W)!.toFixed(2)).toBe('54545.45');
    expect(collateralForCallPrice(p, d('60000'), W).toFixed()).toBe('600');
  });

  it('nothing is needed when the call price is already at or beyond the target, or without a loan', () => {
    expect(collateralForCallPrice(long, d('45000'), W).toFixed()).toBe('0');
    expect(collateralForCallPrice(pos('long', { collateral: '1000', loan: '0', k: '1', fill: '50000' }), d('1'), W).toFixed()).toBe('0');
  });

  it('rounds up to the collateral precision', () => {
    // 4000 − 41234.567·0.09 = 288.88897 -> 288.89 at 2 decimals
    expect(collateralForCallPrice(long, d('41234.567'), { ...W, collateralPrecision: 2 }).toFixed()).toBe('288.89');
  });

  it('simMarginFormulas looks the market up and asks nothing for an unknown one', () => {
    const f = simMarginFormulas((m) => (m === 'BTCUSDT' ? W : undefined));
    expect(f.collateralForCallPrice(long, d('40000')).toFixed()).toBe('400');
    expect(f.collateralForCallPrice({ ...long, market: 'XYZ' }, d('40000')).toFixed()).toBe('0');
  });

  it('reads the call margin off the call price the exchange reports (no simulator default)', () => {
    // The exchange reports the call price (rounded to cents): w comes back as 0.1 to 1e-6.
    const reported = { ...long, callPrice: d('44444.44') };
    expect(Math.abs(callMarginOf(reported, 4)!.toNumber() - 0.1)).toBeLessThan(1e-6);
    const short = pos('short', { collateral: '1000', loan: '0.1', k: '5', fill: '50000' });
    const shortReported = { ...short, callPrice: callPriceOf(short, { callMargin: d('0.2'), quantityPrecision: 4 })! };
    expect(callMarginOf(shortReported, 4)!.toFixed(10)).toBe('0.2000000000');
    // No call price reported: no call margin, and no top-up is sized.
    expect(callMarginOf(long, 4)).toBeUndefined();
    const f = exchangeMarginFormulas((m) => (m === 'BTCUSDT' ? 4 : undefined));
    expect(f.collateralForCallPrice(long, d('40000')).toFixed()).toBe('0');
    expect(Number(f.collateralForCallPrice({ ...long, callPrice: callPriceOf(long, W)! }, d('40000')).toFixed(6))).toBeCloseTo(400, 4);
  });
});
