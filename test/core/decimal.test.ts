import { describe, expect, it } from 'vitest';
import {
  cleanFloat,
  d,
  DecimalParseError,
  fitsDecimals,
  incrementFromDecimals,
  perUnit,
  productIsExact,
  roundToDecimals,
  roundToIncrement,
  toDecimal,
  toDecimalOrUndefined,
  toPlain,
} from '../../src/core/decimal.js';

describe('toDecimal', () => {
  it('parses numeric strings exactly', () => {
    expect(toDecimal('21300.0000000000000000').toFixed()).toBe('21300');
    expect(toDecimal('0.1').plus(toDecimal('0.2')).toFixed()).toBe('0.3');
  });
  it('parses JSON numbers from their printed form, not the binary float', () => {
    expect(toDecimal(3.51436).toFixed()).toBe('3.51436');
    expect(toDecimal(0.1).toFixed()).toBe('0.1');
  });
  it('parses exponent notation as number and as string', () => {
    expect(toDecimal(1e-6).toFixed()).toBe('0.000001');
    expect(toDecimal('1e-06').toFixed()).toBe('0.000001');
    expect(toDecimal('0E-8').isZero()).toBe(true);
    expect(toDecimal('2.5E+3').toFixed()).toBe('2500');
  });
  it('rejects what is not a number, naming the field and value', () => {
    for (const bad of [null, undefined, '', 'abc', '1,5', NaN, Infinity, {}, [], true]) {
      expect(() => toDecimal(bad, 'price')).toThrow(DecimalParseError);
    }
    expect(() => toDecimal('abc', 'order.price')).toThrow(/order\.price: .*"abc"/);
    expect(() => toDecimal(undefined, 'price')).toThrow(/price: .*missing/);
  });
  it('toDecimalOrUndefined treats null, undefined and empty as absent', () => {
    expect(toDecimalOrUndefined(null)).toBeUndefined();
    expect(toDecimalOrUndefined('')).toBeUndefined();
    expect(toDecimalOrUndefined('5')?.toFixed()).toBe('5');
  });
});

describe('float artifacts and rounding', () => {
  it('cleans socket.io sum artifacts', () => {
    expect(cleanFloat(10499856.950000001).toFixed()).toBe('10499856.95');
  });
  it('derives increments from decimal counts', () => {
    expect(incrementFromDecimals(0).toFixed()).toBe('1');
    expect(incrementFromDecimals(6).toFixed()).toBe('0.000001');
    expect(() => incrementFromDecimals(-1)).toThrow(RangeError);
  });
  it('rounds to decimals and increments in the named direction', () => {
    expect(roundToDecimals('1.23456789', 6, 'down').toFixed()).toBe('1.234567');
    expect(roundToDecimals('1.2345671', 6, 'up').toFixed()).toBe('1.234568');
    expect(roundToDecimals('1323000001.7', 0, 'down').toFixed()).toBe('1323000001');
    expect(roundToIncrement('10.07', '0.05', 'down').toFixed()).toBe('10.05');
    expect(roundToIncrement('10.07', '0.05', 'up').toFixed()).toBe('10.1');
  });
  it('checks decimal places and prints plain strings', () => {
    expect(fitsDecimals('0.001000', 3)).toBe(true);
    expect(fitsDecimals('0.0011', 3)).toBe(false);
    expect(toPlain(d('1e-8'))).toBe('0.00000001');
  });
});

describe("perUnit: total / qty, the one fill's price when the total is exactly that fill", () => {
  it('takes the fill price only when it is what the division gives', () => {
    const fill = { price: d('61234.57'), quantity: d('0.0123'), sum: d('61234.57').mul('0.0123') };
    const got = perUnit(fill.sum, fill.quantity, fill);
    expect(got).toBe(fill.price);
    expect(got.eq(fill.sum.div(fill.quantity))).toBe(true);
  });

  it('divides when the fill is not the whole total, has no sum, or its sum is not price × quantity', () => {
    const price = d('100');
    const qty = d('3');
    expect(perUnit(d('301'), qty, { price, quantity: qty, sum: d('301') }).toFixed()).toBe(d('301').div(3).toFixed());
    expect(perUnit(d('300'), d('4'), { price, quantity: qty, sum: d('300') }).toFixed()).toBe('75');
    expect(perUnit(d('300'), qty, { price, quantity: qty })).not.toBe(price);
    expect(perUnit(d('300'), qty, undefined).toFixed()).toBe('100');
  });

  it('refuses the shortcut when price × quantity has more digits than the precision', () => {
    // 25 + 25 significant digits: the product is rounded at 40, so (p × q) / q is not p.
    const p = d('1.234567890123456789012345');
    const q = d('9.876543210987654321098765');
    expect(productIsExact(p, q)).toBe(false);
    const sum = p.mul(q);
    const got = perUnit(sum, q, { price: p, quantity: q, sum });
    expect(got).not.toBe(p);
    expect(got.eq(sum.div(q))).toBe(true);
    expect(productIsExact(d('61234.57'), d('0.0123'))).toBe(true);
  });
});
