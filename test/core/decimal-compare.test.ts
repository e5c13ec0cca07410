import { describe, expect, it } from 'vitest';
import { Decimal as DecimalJs } from 'decimal.js';
import { dcmp, deq, dgt, dgte, dlt, dlte, dmax, dmin, Decimal } from '../../src/core/decimal.js';

/** A deterministic stream of numbers (xorshift), so a failure names a value that reproduces. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

/** Values that cross decimal.js's base-1e7 word boundaries, equal prefixes, signs, zeros and non-finite ones. */
function values(): Decimal[] {
  const r = rng(20261125);
  const out: string[] = [
    '0',
    '-0',
    'NaN',
    'Infinity',
    '-Infinity',
    '1',
    '-1',
    '1e-30',
    '-1e-30',
    '1e30',
    '9999999',
    '10000000',
    '10000001',
    '0.0000001',
    '0.00000010000001',
    '16726.1',
    '16726.10000001',
    '16726.09999999',
  ];
  for (let i = 0; i < 600; i++) {
    const digits = 1 + Math.floor(r() * 24);
    let m = '';
    for (let j = 0; j < digits; j++) m += Math.floor(r() * 10);
    const exp = Math.floor(r() * 40) - 20;
    const sign = r() < 0.3 ? '-' : '';
    out.push(`${sign}${m}e${exp}`);
    // A near neighbour: the same digits with one more at the end, so words compare equal up to a length.
    out.push(`${sign}${m}${Math.floor(r() * 10)}e${exp - 1}`);
  }
  return out.map((s) => new Decimal(s));
}

describe('dcmp and the comparisons built on it answer as decimal.js does', () => {
  const vs = values();

  it('for every pair of ~1,200 values: cmp, gt, gte, lt, lte, eq', () => {
    let checked = 0;
    for (const a of vs) {
      for (const b of vs) {
        const want = a.cmp(b);
        const got = dcmp(a, b);
        if (!(Object.is(got, want) || (Number.isNaN(got) && Number.isNaN(want)))) {
          throw new Error(`dcmp(${a.toString()}, ${b.toString()}) = ${got}, decimal.js says ${want}`);
        }
        if (dgt(a, b) !== a.gt(b) || dgte(a, b) !== a.gte(b) || dlt(a, b) !== a.lt(b) || dlte(a, b) !== a.lte(b) || deq(a, b) !== a.eq(b)) {
          throw new Error(`a comparison of ${a.toString()} and ${b.toString()} differs from decimal.js`);
        }
        checked++;
      }
    }
    expect(checked).toBe(vs.length * vs.length);
  });

  it('dmin and dmax give the value (and the sign of a zero) Decimal.min and Decimal.max give', () => {
    for (const a of vs.slice(0, 300)) {
      for (const b of vs.slice(0, 300)) {
        for (const [mine, theirs, name] of [
          [dmin(a, b), Decimal.min(a, b), 'min'],
          [dmax(a, b), Decimal.max(a, b), 'max'],
        ] as const) {
          const same = mine.isNaN() ? theirs.isNaN() : mine.eq(theirs) && mine.isNeg() === theirs.isNeg();
          if (!same) throw new Error(`d${name}(${a.toString()}, ${b.toString()}) = ${mine.toString()}, Decimal.${name} says ${theirs.toString()}`);
        }
      }
    }
    expect(dmax(new Decimal('-0'), new Decimal(0)).isNeg()).toBe(false);
    expect(dmin(new Decimal(0), new Decimal('-0')).isNeg()).toBe(true);
  });

  it("reads any decimal.js instance, not only mizan's (a strategy may build its own)", () => {
    const theirs = new DecimalJs('16726.10000001');
    expect(dcmp(new Decimal('16726.1'), theirs)).toBe(-1);
    expect(deq(new Decimal('16726.10000001'), theirs)).toBe(true);
  });
});
