import { describe, it, expect } from 'vitest';
import {
  computeMetrics,
  formatMetrics,
  formatDuration,
  formatMetricValue,
  METRIC_DEFINITIONS,
  type ClosedTrade,
  type Metrics,
} from '../../../src/backtest/metrics/index.js';

const H = 3_600_000;
const D = 86_400_000;
const T0 = Date.UTC(2023, 5, 1, 13, 0); // starts mid-day on purpose

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** 200 days of hourly equity and random trades. */
function randomRun(seed: number) {
  const rnd = lcg(seed);
  const times: number[] = [];
  const values: number[] = [];
  let e = 1_000_000_000; // TMN
  for (let i = 0; i < 200 * 24; i++) {
    e *= 1 + (rnd() - 0.49) * 0.01;
    times.push(T0 + i * H);
    values.push(e);
  }
  const trades: ClosedTrade[] = [];
  for (let i = 0; i < 60; i++) {
    const entry = T0 + i * 3 * D;
    const pct = (rnd() - 0.45) * 10;
    trades.push({
      side: i % 2 ? 'short' : 'long',
      entryTime: entry,
      exitTime: entry + Math.floor(rnd() * 2 * D),
      entryPrice: 100,
      exitPrice: 100 + pct,
      quantity: 1,
      pnl: pct * 1e5,
      pnlPct: pct,
      fees: 300,
    });
  }
  return { equity: { times, values }, trades, feesPaid: 18_000, benchmark: { firstPrice: 2_000_000, lastPrice: 2_500_000 } };
}

describe('determinism and an independent Sharpe/Sortino/drawdown', () => {
  it('same input -> bit-identical output', () => {
    const a = computeMetrics(randomRun(42));
    const b = computeMetrics(randomRun(42));
    expect(b).toEqual(a);
    expect(Object.is(a.sharpe.value, b.sharpe.value)).toBe(true);
    expect(formatMetrics(a)).toBe(formatMetrics(b));
  });

  it('matches a straightforward re-implementation (Map of UTC day -> last equity)', () => {
    const run = randomRun(7);
    const m = computeMetrics(run);
    const { times, values } = run.equity;
    const closes = new Map<number, number>();
    // each point after the first closes the UTC day (d·D, (d + 1)·D] it lies in: a point at 00:00 closes the day before
    for (let i = 1; i < times.length; i++) closes.set(Math.ceil(times[i]! / D) - 1, values[i]!);
    const days = [...closes.keys()].sort((x, y) => x - y);
    // hourly points cover every day, so no carrying is needed here
    const r: number[] = [];
    let prev = values[0]!;
    for (const d of days) {
      r.push(closes.get(d)! / prev - 1);
      prev = closes.get(d)!;
    }
    const mean = r.reduce((s, x) => s + x, 0) / r.length;
    const sd = Math.sqrt(r.reduce((s, x) => s + (x - mean) ** 2, 0) / (r.length - 1));
    const down = Math.sqrt(r.reduce((s, x) => s + Math.min(0, x) ** 2, 0) / r.length);
    expect(m.dailyReturns).toHaveLength(r.length);
    expect(m.sharpe.value).toBeCloseTo((mean / sd) * Math.sqrt(365), 10);
    expect(m.sortino.value).toBeCloseTo((mean / down) * Math.sqrt(365), 10);
    let peak = -Infinity;
    let mdd = 0;
    for (const x of values) {
      peak = Math.max(peak, x);
      mdd = Math.max(mdd, 1 - x / peak);
    }
    expect(m.maxDrawdownPct.value).toBeCloseTo(mdd * 100, 10);
    const days200 = (times[times.length - 1]! - times[0]!) / D;
    expect(m.cagrPct.value).toBeCloseTo(((values[values.length - 1]! / values[0]!) ** (365 / days200) - 1) * 100, 8);
    expect(m.sqn.value).not.toBeNull(); // 60 trades >= 30
    expect(m.buyAndHoldReturnPct.value).toBeCloseTo(25, 12);
  });
});

describe('definitions and formatting', () => {
  it('every Metric field of Metrics has exactly one definition with a formula and an n/a rule', () => {
    const m = computeMetrics(randomRun(1));
    const metricKeys = Object.entries(m)
      .filter(([, x]) => typeof x === 'object' && x !== null && !Array.isArray(x) && 'value' in x)
      .map(([k]) => k)
      .sort();
    expect(METRIC_DEFINITIONS.map((d) => d.key).sort()).toEqual(metricKeys);
    for (const d of METRIC_DEFINITIONS) {
      expect(d.formula.length).toBeGreaterThan(10);
      expect(d.na.length).toBeGreaterThan(3);
    }
    expect(METRIC_DEFINITIONS.find((d) => d.key === 'sharpe')!.formula).toMatch(/sqrt\(365\)/);
  });

  it('formatMetrics prints every metric, n/a with its reason', () => {
    const short: Metrics = computeMetrics({
      equity: { times: [T0, T0 + 3 * D], values: [1000, 1500] },
      trades: [],
      feesPaid: 12.5,
    });
    const text = formatMetrics(short);
    for (const d of METRIC_DEFINITIONS) expect(text).toContain(d.name);
    expect(text).toMatch(/CAGR\s+n\/a \(3 days of data; annualising needs at least 90 days\)/);
    expect(text).toMatch(/Total return\s+50\.00 %/);
    expect(text).toMatch(/Fees paid\s+12\.50/);
    expect(text).toMatch(/Trades\s+0/);
    expect(text).toContain('2023-06-01 13:00 UTC');
    expect(text).toMatch(/Duration\s+3d/);
  });

  it('value formatting by unit', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(45 * 60_000)).toBe('45m');
    expect(formatDuration(3 * D + 4 * H + 5 * 60_000)).toBe('3d 4h 5m');
    expect(formatMetricValue({ value: 1234567.891 }, 'money')).toBe('1,234,567.89');
    expect(formatMetricValue({ value: -0.00012345 }, 'money')).toBe('-0.00012345');
    expect(formatMetricValue({ value: 1.23456 }, 'ratio')).toBe('1.23');
    expect(formatMetricValue({ value: null, reason: 'no closed trades' }, 'pct')).toBe('n/a (no closed trades)');
  });
});
