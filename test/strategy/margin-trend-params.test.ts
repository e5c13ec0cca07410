/**
 * Issue 33 item 9: margin-trend's takeProfitPct stays below 100 (from 100 on a short's take profit,
 * entry × (1 − pct/100), is 0 or less: the strategy would silently go long-only). The declared range
 * refuses it wherever parameters are checked (mizan check/run/backtest, an optimiser's sampling:
 * test/e2e/bad-input.test.ts); create() refuses it too when handed unchecked parameters.
 */
import { describe, expect, it } from 'vitest';
import marginTrend from '../../strategies/margin-trend.js';
import { resolveParams } from '../../src/strategy/params.js';

describe('margin-trend takeProfitPct', () => {
  it('declares a range below 100', () => {
    const spec = marginTrend.params.takeProfitPct;
    expect(spec?.type === 'number' && spec.max).toBe(99);
    expect(resolveParams(marginTrend.params, { takeProfitPct: 100 })).toEqual({
      ok: false,
      issues: [{ path: 'params.takeProfitPct', message: '100 is above the maximum 99' }],
    });
  });

  it('create() refuses 100 or more with a clear error', () => {
    const ctx = { params: { fast: 12, slow: 26, collateral: 100, riskCoef: 2, stopLossPct: 2, takeProfitPct: 150 }, markets: ['BTCUSDT'] };
    expect(() => marginTrend.create(ctx as unknown as Parameters<typeof marginTrend.create>[0])).toThrow(
      'takeProfitPct: 150 must be greater than 0 and below 100',
    );
  });
});
