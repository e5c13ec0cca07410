import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import { sumDecimals } from '../../src/backtest/breakdowns.js';
import { mulberry32 as rng } from '../strategy/indicators/prng.js';

/** The reference: Decimal.plus one by one (what the breakdowns summed before). */
const slow = (xs: readonly string[]) => xs.reduce((a, x) => a.plus(x), new Decimal(0)).toFixed();

describe('sumDecimals (breakdown pnl sums)', () => {
  it('equals Decimal.plus one by one on pnl-like strings of every magnitude', () => {
    const r = rng(18);
    for (let round = 0; round < 200; round++) {
      const n = Math.floor(r() * 300);
      const xs: string[] = [];
      for (let i = 0; i < n; i++) {
        const v = (r() - 0.45) * 10 ** Math.floor(r() * 30 - 18);
        xs.push(new Decimal(v).toSignificantDigits(1 + Math.floor(r() * 15)).toFixed());
      }
      expect(sumDecimals(xs).toFixed()).toBe(slow(xs));
    }
  });

  it('falls back to Decimal where a partial sum needs more than its 40 digits, and on other notations', () => {
    const wide = ['123456789012345000000000000', '0.000000000000000123456789012345', '-123456789012345000000000000'];
    expect(sumDecimals(wide).toFixed()).toBe(slow(wide));
    const odd = ['1e3', '2', '-0'];
    expect(sumDecimals(odd).toFixed()).toBe(slow(odd));
    expect(sumDecimals([]).toFixed()).toBe('0');
    expect(sumDecimals(['-0', '0.00']).toFixed()).toBe(slow(['-0', '0.00']));
  });
});
