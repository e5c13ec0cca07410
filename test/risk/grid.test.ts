import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { gridText, onePlusOf, powerOfTenDecimals, roundToStep } from '../../src/risk/grid.js';

describe('grid rounding', () => {
  it('tells powers of ten from other grids', () => {
    expect(powerOfTenDecimals(d('0.01'))).toBe(2);
    expect(powerOfTenDecimals(d('1'))).toBe(0);
    expect(powerOfTenDecimals(d('0.000001'))).toBe(6);
    expect(powerOfTenDecimals(d('0.5'))).toBe(-1);
    expect(powerOfTenDecimals(d('10'))).toBe(-1);
    expect(powerOfTenDecimals(d('0.25'))).toBe(-1);
  });
  it('rounds down and up on power-of-ten grids (by decimals) and others (by division)', () => {
    expect(roundToStep(d('59800.075'), d('0.01'), false).toFixed()).toBe('59800.07');
    expect(roundToStep(d('59800.071'), d('0.01'), true).toFixed()).toBe('59800.08');
    expect(roundToStep(d('59800.07'), d('0.01'), true).toFixed()).toBe('59800.07');
    expect(roundToStep(d('123456.7'), d('1'), true).toFixed()).toBe('123457');
    expect(roundToStep(d('7.3'), d('0.5'), false).toFixed()).toBe('7');
    expect(roundToStep(d('7.3'), d('0.5'), true).toFixed()).toBe('7.5');
    expect(roundToStep(d('1234'), d('10'), false).toFixed()).toBe('1230');
    expect(roundToStep(d('1234'), d('10'), true).toFixed()).toBe('1240');
  });
  it('caches texts and fee factors per instance', () => {
    const fee = d('0.002');
    expect(onePlusOf(fee).toFixed()).toBe('1.002');
    expect(onePlusOf(fee)).toBe(onePlusOf(fee));
    expect(gridText(d('1e-8'))).toBe('0.00000001');
  });
});
