import { describe, it, expect } from 'vitest';
import { EquityRecorder, recordOf } from '../../src/backtest/equity-record.js';
import { EquityFold } from '../../src/backtest/metrics/equity.js';
import { dailyReturns } from '../../src/backtest/metrics/index.js';

const D = 86_400_000;
const M = 60_000;

/** The indexes of the deepest drawdown's peak, trough and recovery, found by a plain scan of the whole curve. */
function drawdownPoints(values: number[]): number[] {
  let peak = 0;
  let best = 0;
  let at: [number, number, number] | undefined; // peak index, trough index, recovery index (-1: none)
  for (let i = 1; i < values.length; i++) {
    if (values[i]! >= values[peak]!) {
      if (at && at[0] === peak && at[2] < 0) at[2] = i;
      peak = i;
    } else if (1 - values[i]! / values[peak]! > best) {
      best = 1 - values[i]! / values[peak]!;
      at = [peak, i, -1];
    }
  }
  return at ? at.filter((i) => i >= 0) : [];
}

/** The indexes downsample keeps, with the drawdown's points added, in order. */
function thinned(times: number[], values: number[], max: number): { times: number[]; values: number[] } {
  const n = times.length;
  const step = Math.max(1, Math.ceil(n / Math.max(2, max)));
  const keep = new Set<number>();
  for (let i = 0; i < n; i += step) keep.add(i);
  if (n > 0 && times[n - 1 - ((n - 1) % step)] !== times[n - 1]) keep.add(n - 1);
  for (const i of drawdownPoints(values)) keep.add(i);
  const at = [...keep].sort((a, b) => a - b);
  return { times: at.map((i) => times[i]!), values: at.map((i) => values[i]!) };
}

/** A curve as the walk makes it: the start point, then one per close (the first close at the start's time). */
function walkCurve(n: number, t0: number, seed: number): { times: number[]; values: number[] } {
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  if (n === 0) return { times: [], values: [] };
  const times = [t0];
  const values = [1000];
  for (let i = 1; i < n; i++) {
    times.push(t0 + (i - 1) * M * (rnd() < 0.01 ? 7 : 1) + (i > 1 ? M : 0));
    values.push(values[i - 1]! * (1 + (rnd() - 0.5) / 50));
  }
  for (let i = 1; i < n; i++) if (times[i]! < times[i - 1]!) times[i] = times[i - 1]!;
  return { times, values };
}

describe('EquityRecorder', () => {
  it("keeps the points the whole curve downsampled to, and its deepest drawdown's, for any length and point budget", () => {
    for (const n of [0, 1, 2, 3, 7, 100, 1999, 2000, 2001, 4001, 12_345]) {
      for (const max of [0, 1, 2, 3, 10, 2000]) {
        const c = walkCurve(n, Date.UTC(2024, 0, 1), n + max);
        const r = recordOf(c.times, c.values, max);
        expect(r.points, `n ${n} max ${max}`).toEqual(thinned(c.times, c.values, max));
        expect(r.fold.n).toBe(n);
      }
    }
  });

  it("the maximum drawdown and its duration computed from the kept points are the whole curve's", () => {
    // result.json's curve is thinned; a user computing the drawdown from it gets the report's metric.
    for (let seed = 1; seed <= 40; seed++) {
      const c = walkCurve(5000 + seed * 97, Date.UTC(2024, 0, 1), seed);
      const whole = new EquityFold();
      for (let i = 0; i < c.times.length; i++) whole.add(c.times[i]!, c.values[i]!);
      const r = recordOf(c.times, c.values, 50);
      const again = new EquityFold();
      for (let i = 0; i < r.points.times.length; i++) again.add(r.points.times[i]!, r.points.values[i]!);
      const [w, a] = [whole.drawdowns(), again.drawdowns()];
      expect(a.maxDrawdownPct, `seed ${seed}`).toEqual(w.maxDrawdownPct);
      expect(a.maxDrawdownDurationMs, `seed ${seed}`).toEqual(w.maxDrawdownDurationMs);
      expect(r.points.times.length).toBeLessThanOrEqual(54);
    }
  });

  it('revalues the last point (close at end) in the fold and in the kept points', () => {
    const c = walkCurve(5001, Date.UTC(2024, 0, 1), 7);
    const rec = new EquityRecorder(c.times.length, 2000);
    for (let i = 0; i < c.times.length; i++) rec.add(c.times[i]!, c.values[i]!);
    rec.setLast(123.5);
    const r = rec.finish();
    const values = c.values.slice();
    values[values.length - 1] = 123.5;
    expect(r.points).toEqual(thinned(c.times, values, 2000));
    expect(r.fold.lastValue).toBe(123.5);
    const whole = new EquityFold();
    for (let i = 0; i < c.times.length; i++) whole.add(c.times[i]!, values[i]!);
    expect(r.fold.drawdowns()).toEqual(whole.drawdowns());
    expect(r.fold.dailyReturns()).toEqual(whole.dailyReturns());
  });

  it('throws when the curve does not have the points counted ahead', () => {
    const rec = new EquityRecorder(3, 2000);
    rec.add(1, 1);
    rec.add(2, 1);
    expect(() => rec.finish()).toThrow(/2 points, 3 were counted ahead/);
    expect(() => new EquityRecorder(1, 10).setLast(1)).toThrow(/no point to revalue/);
  });
});

describe('EquityFold', () => {
  it('gives the daily returns of the whole curve, bit for bit, midnight starts and ends included', () => {
    const t0 = Date.UTC(2024, 0, 1);
    const cases: [number[], number[]][] = [
      [[t0], [100]],
      [
        [t0, t0],
        [100, 101],
      ],
      [[t0 + 5 * M], [100]],
      [
        [t0, t0 + D],
        [100, 90],
      ],
      [
        [t0 + M, t0 + D, t0 + D + M, t0 + 4 * D],
        [100, 0, 50, 75],
      ],
    ];
    for (let s = 1; s < 6; s++) {
      const c = walkCurve(20_000 * s, t0 + (s - 1) * 7 * M, s);
      cases.push([c.times, c.values]);
    }
    for (const [times, values] of cases) {
      const f = new EquityFold();
      for (let i = 0; i < times.length; i++) f.add(times[i]!, values[i]!);
      expect(f.dailyReturns()).toEqual(dailyReturns({ times, values }));
    }
  });

  it('names the first bad point, as the curve check did', () => {
    const f = new EquityFold();
    f.add(10, 100);
    f.add(5, 100);
    f.add(Number.NaN, 100);
    expect(() => f.check()).toThrow(/equity\.times\[1\]/);
    const g = new EquityFold();
    g.add(10, 0);
    g.add(11, Number.POSITIVE_INFINITY);
    expect(() => g.check()).toThrow(/equity\.values\[1\]/);
    const h = new EquityFold();
    h.add(10, 0);
    expect(() => h.check()).toThrow(/equity\.values\[0\]/);
    expect(() => new EquityFold().check()).toThrow(/equity\.times\.length/);
  });
});
