import { describe, it, expect } from 'vitest';
import { mulberry32, randomWalk } from './prng.js';
import { RollingStdDev, Sma, Wma, RollingExtreme, RingBuffer, RollingVwap, BollingerBands } from '../../../src/strategy/indicators/index.js';

function naiveStd(xs: ArrayLike<number>, end: number, n: number, sample: boolean): number {
  let s = 0;
  for (let i = end - n + 1; i <= end; i++) s += xs[i]!;
  const m = s / n;
  let ss = 0;
  for (let i = end - n + 1; i <= end; i++) ss += (xs[i]! - m) ** 2;
  return Math.sqrt(ss / (sample ? n - 1 : n));
}

describe('rolling standard deviation: stable O(1) update vs naive two-pass', () => {
  it('matches on 200k prices near 6e9 (TMN-scale BTC) with tiny relative moves', () => {
    // sum(x^2) - n*mean^2 would lose every digit here: x^2 ~ 3.6e19, variance ~ 1e8.
    const xs = randomWalk(200_000, 6e9, 1e-4, 7);
    for (const [n, sample] of [
      [20, false],
      [50, true],
      [1500, false],
    ] as const) {
      const sd = new RollingStdDev(n, { sample });
      let worst = 0;
      for (let i = 0; i < xs.length; i++) {
        const v = sd.update(xs[i]!);
        if (i < n - 1) {
          expect(Number.isNaN(v)).toBe(true);
          continue;
        }
        if (i % 97 === 0 || i === xs.length - 1) {
          const ref = naiveStd(xs, i, n, sample);
          worst = Math.max(worst, Math.abs(v - ref) / ref);
        }
      }
      expect(worst).toBeLessThan(1e-6);
    }
  });

  it('gives exactly 0 for a constant series and recovers after a spike leaves the window', () => {
    const sd = new RollingStdDev(5);
    for (let i = 0; i < 10; i++) sd.update(100);
    expect(sd.value).toBe(0);
    sd.update(1e6);
    expect(sd.value).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) sd.update(100);
    expect(sd.value).toBeLessThan(1e-6); // within drift until the exact rebuild
    expect(sd.mean).toBeCloseTo(100, 6);
  });

  it('sample std of 2,4,4,4,5,5,7,9 (population 2, sample sqrt(32/7))', () => {
    const pop = new RollingStdDev(8);
    const smp = new RollingStdDev(8, { sample: true });
    for (const x of [2, 4, 4, 4, 5, 5, 7, 9]) {
      pop.update(x);
      smp.update(x);
    }
    expect(pop.value).toBeCloseTo(2, 12);
    expect(smp.value).toBeCloseTo(Math.sqrt(32 / 7), 12);
    expect(pop.mean).toBe(5);
    expect(() => new RollingStdDev(1, { sample: true })).toThrow(/period/);
  });

  it('Bollinger(3, k=1) by hand: closes 1,2,3 -> mid 2, std sqrt(2/3)', () => {
    const bb = new BollingerBands(3, { k: 1 });
    bb.update(1);
    bb.update(2);
    expect(bb.ready).toBe(false);
    bb.update(3);
    const s = Math.sqrt(2 / 3);
    expect(bb.middle).toBe(2);
    expect(bb.upper).toBeCloseTo(2 + s, 12);
    expect(bb.lower).toBeCloseTo(2 - s, 12);
    expect(bb.percentB).toBeCloseTo((3 - (2 - s)) / (2 * s), 12);
  });
});

describe('running sums vs naive windows on long random input', () => {
  const xs = randomWalk(100_000, 50_000, 0.01, 11);

  it('SMA and WMA (n = 7 and 300) stay within 1e-9 relative of the naive sums', () => {
    for (const n of [7, 300]) {
      const sma = new Sma(n);
      const wma = new Wma(n);
      let worst = 0;
      for (let i = 0; i < xs.length; i++) {
        const a = sma.update(xs[i]!);
        const b = wma.update(xs[i]!);
        if (i >= n - 1 && i % 53 === 0) {
          let s = 0;
          let w = 0;
          for (let j = 0; j < n; j++) {
            const v = xs[i - n + 1 + j]!;
            s += v;
            w += (j + 1) * v;
          }
          worst = Math.max(worst, Math.abs(a - s / n) / (s / n), Math.abs(b - w / ((n * (n + 1)) / 2)) / (s / n));
        }
      }
      expect(worst).toBeLessThan(1e-9);
    }
  });

  it('rolling max/min deque equals the naive window max/min', () => {
    const rnd = mulberry32(3);
    for (const n of [1, 2, 5, 64]) {
      const mx = new RollingExtreme(n, 'max');
      const mn = new RollingExtreme(n, 'min');
      const vals: number[] = [];
      for (let i = 0; i < 2000; i++) {
        const x = Math.floor(rnd() * 20); // many ties
        vals.push(x);
        const a = mx.push(x);
        const b = mn.push(x);
        const w = vals.slice(Math.max(0, i - n + 1));
        expect(a).toBe(Math.max(...w));
        expect(b).toBe(Math.min(...w));
      }
    }
  });

  it('rolling VWAP equals sum(p*v)/sum(v) of the window, NaN when the window has no volume', () => {
    const rnd = mulberry32(5);
    const n = 10;
    const vw = new RollingVwap(n);
    const ps: number[] = [];
    const vs: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const p = xs[i]!;
      const v = rnd() < 0.2 ? 0 : rnd() * 5;
      ps.push(p);
      vs.push(v);
      const got = vw.update(p, v);
      if (i < n - 1) {
        expect(Number.isNaN(got)).toBe(true);
        continue;
      }
      let a = 0;
      let b = 0;
      for (let j = i - n + 1; j <= i; j++) {
        a += ps[j]! * vs[j]!;
        b += vs[j]!;
      }
      expect(got).toBeCloseTo(a / b, 6);
    }
    const z = new RollingVwap(2);
    z.update(100, 0);
    expect(Number.isNaN(z.update(101, 0))).toBe(true);
    expect(z.ready).toBe(true);
  });

  it('ring buffer evicts in FIFO order', () => {
    const r = new RingBuffer(3);
    expect(Number.isNaN(r.push(1))).toBe(true);
    r.push(2);
    r.push(3);
    expect(r.full).toBe(true);
    expect(r.push(4)).toBe(1);
    expect([r.at(0), r.at(1), r.at(2), r.last()]).toEqual([2, 3, 4, 4]);
  });
});
