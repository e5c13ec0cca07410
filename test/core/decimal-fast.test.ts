/**
 * The fast paths of core/decimal-fast.ts against decimal.js's own methods: on many random operand
 * pairs (short and long coefficients, every scale from 10^-40 to 10^40, both signs, zeros, values that
 * straddle the 2^53 limits) the result must be the same value in the same representation (sign,
 * exponent, words), and neither operand may change.
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import { decimalFromNumber, originalDecimalMethods } from '../../src/core/decimal-fast.js';

/** Deterministic PRNG (mulberry32) so a failure names a reproducible case. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random decimal string: 1 to 24 significant digits, scale −40..40, either sign, sometimes 0 or a special. */
function randomText(r: () => number): string {
  const u = r();
  if (u < 0.02) return '0';
  if (u < 0.03) return '-0';
  if (u < 0.035) return 'Infinity';
  if (u < 0.04) return 'NaN';
  const len = r() < 0.7 ? 1 + Math.floor(r() * 12) : 1 + Math.floor(r() * 24);
  let digits = String(1 + Math.floor(r() * 9));
  for (let i = 1; i < len; i++) digits += String(Math.floor(r() * 10));
  // Often end in zeros (prices and quantities on a grid).
  if (r() < 0.3) digits += '0'.repeat(1 + Math.floor(r() * 8));
  const scale = r() < 0.8 ? Math.floor(r() * 20) - 6 : Math.floor(r() * 80) - 40;
  const sign = r() < 0.3 ? '-' : '';
  return `${sign}${digits}e${-scale}`;
}

interface Raw {
  s: number;
  e: number;
  d: number[] | null;
}
const raw = (x: Decimal): Raw => {
  const v = x as unknown as Raw;
  return { s: v.s, e: v.e, d: v.d ? [...v.d] : v.d };
};

function same(a: unknown, b: unknown, ctx: string): void {
  if (a instanceof Decimal && b instanceof Decimal) {
    expect(raw(a), ctx).toEqual(raw(b));
    expect(a.toString(), ctx).toBe(b.toString());
  } else {
    expect(Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)), `${ctx}: ${String(a)} vs ${String(b)}`).toBe(true);
  }
}

describe('decimal fast paths', () => {
  it('give exactly what decimal.js gives on 50,000 random pairs (plus, minus, times, cmp, cmp with 0)', () => {
    const r = rng(20261123);
    const ops = [
      ['plus', originalDecimalMethods.plus],
      ['minus', originalDecimalMethods.minus],
      ['times', originalDecimalMethods.times],
      ['cmp', originalDecimalMethods.cmp],
    ] as const;
    for (let i = 0; i < 50_000; i++) {
      const xt = randomText(r);
      const yt = r() < 0.1 ? xt : randomText(r);
      const x = new Decimal(xt);
      const y = new Decimal(yt);
      const before = [raw(x), raw(y)];
      for (const [name, original] of ops) {
        const fast = (x as unknown as Record<string, (y: Decimal) => unknown>)[name]!(y);
        const slow = original.call(x, y);
        same(fast, slow, `${xt} ${name} ${yt}`);
      }
      same(x.cmp(0), originalDecimalMethods.cmp.call(x, 0), `${xt} cmp 0`);
      // A number argument (decimal.js reads it as its printed form).
      const yn = Number(yt);
      for (const [name, original] of ops) {
        const fast = (x as unknown as Record<string, (y: number) => unknown>)[name]!(yn);
        same(fast, original.call(x, yn), `${xt} ${name} number ${yn}`);
      }
      // Rounding to decimal places, every mode the fast path takes and two it leaves.
      const dp = Math.floor(r() * 14);
      const rm = [undefined, 0, 1, 4, 6, 2, 3][Math.floor(r() * 7)];
      same(rm === undefined ? x.toDecimalPlaces(dp) : x.toDecimalPlaces(dp, rm as Decimal.Rounding), originalDecimalMethods.toDP.call(x, dp, rm), `${xt} toDP ${dp} ${rm}`);
      expect([raw(x), raw(y)], `operands unchanged: ${xt}, ${yt}`).toEqual(before);
    }
  });

  it('agree at the edges of the exact range (2^53, word boundaries, carries)', () => {
    const texts = [
      '9007199254740991', '9007199254740992', '9007199254740993', '4503599627370496', '0.9007199254740991',
      '9999999', '10000000', '0.0000001', '0.00000001', '99999999999999', '100000000000000', '1e-7', '1e7', '1e14',
      '0.5', '-0.5', '1', '-1', '0.1', '0.2', '0.3', '27123.45', '0.00123456', '1e-300', '1e300', '123456789012345678',
      '0.000000000000000000000000000001', '9e15', '-9e15', '0', '-0', '1.0000001', '0.9999999', '1e-40', '99999.99999',
    ];
    for (const xt of texts) {
      for (const yt of texts) {
        const x = new Decimal(xt);
        const y = new Decimal(yt);
        same(x.plus(y), originalDecimalMethods.plus.call(x, y), `${xt} + ${yt}`);
        same(x.minus(y), originalDecimalMethods.minus.call(x, y), `${xt} - ${yt}`);
        same(x.times(y), originalDecimalMethods.times.call(x, y), `${xt} × ${yt}`);
        same(x.cmp(y), originalDecimalMethods.cmp.call(x, y), `${xt} cmp ${yt}`);
      }
    }
    // Ties and carries when rounding to decimal places.
    for (const t of [...texts, '1.5', '2.5', '-2.5', '0.05', '0.15', '0.25', '9.95', '99.995', '-0.005', '123.4565', '0.9999999']) {
      const x = new Decimal(t);
      for (let dp = 0; dp <= 8; dp++) {
        for (const rm of [undefined, 0, 1, 4, 6]) same(rm === undefined ? x.toDecimalPlaces(dp) : x.toDecimalPlaces(dp, rm as Decimal.Rounding), originalDecimalMethods.toDP.call(x, dp, rm), `${t} toDP ${dp} ${rm}`);
      }
    }
  });

  it('leave numbers and strings as arguments to decimal.js, with the same answers', () => {
    const x = new Decimal('12.5');
    expect(x.plus(0.25).toString()).toBe('12.75');
    expect(x.minus('0.5').toString()).toBe('12');
    expect(x.times(4).toString()).toBe('50');
    expect(x.gt('12.4')).toBe(true);
    expect(x.eq(12.5)).toBe(true);
    expect(x.plus(new Decimal('-12.5')).isZero()).toBe(true);
  });

  it('results are ordinary Decimals (further arithmetic, formatting, rounding)', () => {
    const p = new Decimal('27123.45').times(new Decimal('0.00123456'));
    expect(p.toFixed()).toBe('33.485526432');
    expect(p.toDecimalPlaces(2, Decimal.ROUND_DOWN).toFixed()).toBe('33.48');
    expect(p.div(new Decimal('0.00123456')).toFixed()).toBe('27123.45');
    expect(p.toNumber()).toBe(33.485526432);
    expect(p instanceof Decimal).toBe(true);
  });

  it('make a number into the Decimal of its shortest round-trip text, as new Decimal(String(v)) does (100,000 numbers)', () => {
    const r = rng(7);
    let fast = 0;
    for (let i = 0; i < 100_000; i++) {
      const u = r();
      let v: number;
      if (u < 0.4) v = Math.round(r() * 10 ** (1 + Math.floor(r() * 9))) / 10 ** Math.floor(r() * 9); // grid prices and quantities
      else if (u < 0.7) v = r() * 10 ** (Math.floor(r() * 30) - 12); // any double
      else if (u < 0.8) v = Math.floor(r() * 1e6) * 10 ** Math.floor(r() * 12); // large integers
      else if (u < 0.9) v = Number((r() * 1000).toPrecision(1 + Math.floor(r() * 16)));
      else v = [0, -0, 1e-9, 1e15, 999999999999999.9, 0.1 + 0.2, 5e-324, 2 ** 53, 2 ** 53 + 2, 1.0000000000000002][Math.floor(r() * 10)]!;
      if (r() < 0.3) v = -v;
      const got = decimalFromNumber(v);
      if (got === undefined) continue;
      fast++;
      const want = new Decimal(String(v));
      expect(raw(got), String(v)).toEqual(raw(want));
    }
    expect(fast).toBeGreaterThan(60_000);
  });
});
