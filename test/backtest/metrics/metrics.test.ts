import { describe, it, expect } from 'vitest';
import { ParameterError } from '../../../src/core/errors.js';
import { computeMetrics, dailyReturns, type ClosedTrade, type Metric, type MetricsInput } from '../../../src/backtest/metrics/index.js';

const H = 3_600_000;
const D = 86_400_000;
const T0 = Date.UTC(2024, 0, 1); // 2024-01-01 00:00 UTC

function v(m: Metric): number {
  if (m.value === null) throw new Error(`expected a value, got n/a: ${m.reason}`);
  return m.value;
}
function reason(m: Metric): string {
  if (m.value !== null) throw new Error(`expected n/a, got ${m.value}`);
  return m.reason;
}

function curve(points: [number, number][]): MetricsInput['equity'] {
  return { times: points.map((p) => p[0]), values: points.map((p) => p[1]) };
}

function trade(pnl: number, pnlPct: number, entry: number, exit: number): ClosedTrade {
  return { side: 'long', entryTime: entry, exitTime: exit, entryPrice: 100, exitPrice: 100 * (1 + pnlPct / 100), quantity: 10, pnl, pnlPct, fees: 0.1 };
}

// Five daily points: 100, 110, 99, 121, 115.5 at 00:00 UTC of days 0..4.
const FIVE = curve([
  [T0, 100],
  [T0 + D, 110],
  [T0 + 2 * D, 99],
  [T0 + 3 * D, 121],
  [T0 + 4 * D, 115.5],
]);

describe('equity metrics, hand-worked', () => {
  it('total return, drawdown depth and durations on the five-point curve', () => {
    const m = computeMetrics({ equity: FIVE, trades: [], feesPaid: 0 });
    // total return: 115.5 / 100 - 1 = 15.5 %
    expect(v(m.totalReturnPct)).toBeCloseTo(15.5, 12);
    // peaks 100 -> 110 (day 1); 99 is 1 - 99/110 = 10 % under; 121 (day 3) regains it: 2 days under water.
    // then 115.5 is 1 - 115.5/121 = 4.545 % under 121 until the end (day 4): 1 day.
    expect(v(m.maxDrawdownPct)).toBeCloseTo(10, 12);
    expect(v(m.maxDrawdownDurationMs)).toBe(2 * D);
    expect(v(m.longestDrawdownMs)).toBe(2 * D);
    expect(m.days).toBe(4);
  });

  it('daily returns resampled to UTC days: last point of each day, empty days carried', () => {
    // A point at exactly 00:00 UTC closes the day that ends there: T0 + D is day 0's close.
    // day 0: 110 / 100 - 1; day 1: 99 / 110 - 1; day 2: 121 / 99 - 1; day 3: 115.5 / 121 - 1 (4 days, 4 returns)
    const r = dailyReturns(FIVE);
    expect(r).toHaveLength(4);
    expect(r[0]).toBeCloseTo(0.1, 12);
    expect(r[1]).toBeCloseTo(-0.1, 12);
    expect(r[2]).toBeCloseTo(121 / 99 - 1, 12);
    expect(r[3]).toBeCloseTo(115.5 / 121 - 1, 12);
    // intraday points: only the last one of the day counts; a day with no point repeats the close (return 0)
    const intraday = curve([
      [T0, 100],
      [T0 + 5 * H, 130],
      [T0 + 20 * H, 105],
      [T0 + 2 * D + H, 84],
    ]);
    const r2 = dailyReturns(intraday);
    expect(r2).toHaveLength(3);
    expect(r2[0]).toBeCloseTo(0.05, 12); // 105 / 100 - 1
    expect(r2[1]).toBe(0); // day 1 has no point: close stays 105
    expect(r2[2]).toBeCloseTo(-0.2, 12); // 84 / 105 - 1
  });

  it('a sample at 00:00 UTC closes the day that ends there (no extra day of minutes)', () => {
    // 5-minute samples from day 0 00:00 to day 37 00:00 (a 37-day run): 37 daily returns, not 38
    const pts: [number, number][] = [];
    for (let t = T0; t <= T0 + 37 * D; t += 5 * 60_000) pts.push([t, 100 + ((t - T0) / D) * (t % 3 === 0 ? 1 : -1)]);
    expect(dailyReturns(curve(pts))).toHaveLength(37);
    // the last day's return covers the whole day: its close is the point at T0 + 37 D
    const tail = curve([
      [T0, 100],
      [T0 + D - 5 * 60_000, 100],
      [T0 + D, 120],
    ]);
    expect(dailyReturns(tail)).toEqual([0.19999999999999996]);
    // 29 days of samples (day 0 00:00 .. day 29 00:00) give 29 returns: Sharpe stays n/a
    const p29: [number, number][] = [];
    for (let i = 0; i <= 29 * 24; i++) p29.push([T0 + i * H, 100 + (i % 7)]);
    const m = computeMetrics({ equity: curve(p29), trades: [], feesPaid: 0 });
    expect(reason(m.sharpe)).toBe('29 daily returns; needs at least 30');
    // ... the same ending at 23:00 of day 28 also gives 29 (the last day is partial)
    const m2 = computeMetrics({ equity: curve(p29.slice(0, -1)), trades: [], feesPaid: 0 });
    expect(m2.dailyReturns).toHaveLength(29);
  });

  it('Sharpe and Sortino on the four daily returns (threshold lowered to 2)', () => {
    // r = [0.1, -0.1, 0.222222, -0.0454545]; mean = 0.0441919; sample stdev = 0.1456447
    // Sharpe = 0.0441919 / 0.1456447 * sqrt(365) = 5.79688
    // downside deviation = sqrt((0.1^2 + 0.0454545^2) / 4) = 0.0549229 -> Sortino = 0.0441919 / 0.0549229 * sqrt(365) = 15.37218
    const m = computeMetrics({ equity: FIVE, trades: [], feesPaid: 0 }, { minDailyReturns: 2 });
    expect(v(m.sharpe)).toBeCloseTo(5.7968843182, 8);
    expect(v(m.sortino)).toBeCloseTo(15.37218307, 8);
    // risk-free 5 %/year: rf_d = 1.05^(1/365) - 1 subtracted from every day -> 5.77935
    const rf = computeMetrics({ equity: FIVE, trades: [], feesPaid: 0 }, { minDailyReturns: 2, riskFreeRate: 0.05 });
    expect(v(rf.sharpe)).toBeCloseTo(5.7793487351, 8);
  });

  it('CAGR and Calmar over two years: 100 -> 80 -> 121', () => {
    // CAGR = (121/100)^(365/730) - 1 = 10 %; max drawdown 20 %; Calmar = 0.10 / 0.20 = 0.5
    // the 20 % drawdown starts at the first point and ends when 121 >= 100: 730 days
    const eq = curve([
      [T0, 100],
      [T0 + 365 * D, 80],
      [T0 + 730 * D, 121],
    ]);
    const m = computeMetrics({ equity: eq, trades: [], feesPaid: 0 });
    expect(v(m.cagrPct)).toBeCloseTo(10, 10);
    expect(v(m.maxDrawdownPct)).toBeCloseTo(20, 10);
    expect(v(m.calmar)).toBeCloseTo(0.5, 10);
    expect(v(m.maxDrawdownDurationMs)).toBe(730 * D);
    // 730 UTC days (day 0 .. day 729, the point at day 730 00:00 closes day 729): all zero except the two jumps
    expect(m.dailyReturns).toHaveLength(730);
    expect(v(m.sharpe)).toBeGreaterThan(0);
  });

  it('the freqtrade anchor: +50 % in 3 days gives CAGR n/a, not 5e28 %', () => {
    const eq = curve([
      [T0, 1000],
      [T0 + 3 * D, 1500],
    ]);
    const m = computeMetrics({ equity: eq, trades: [], feesPaid: 0 });
    expect(reason(m.cagrPct)).toBe('3 days of data; annualising needs at least 90 days');
    expect(reason(m.calmar)).toMatch(/^CAGR is n\/a/);
    expect(reason(m.sharpe)).toBe('3 daily returns; needs at least 30');
    expect(reason(m.sortino)).toBe('3 daily returns; needs at least 30');
    expect(v(m.totalReturnPct)).toBeCloseTo(50, 12);
    // with the threshold lowered the number exists and is the huge one
    const low = computeMetrics({ equity: eq, trades: [], feesPaid: 0 }, { minDaysForCagr: 1 });
    expect(v(low.cagrPct)).toBeGreaterThan(1e20);
  });

  it('n/a cases of the equity metrics', () => {
    const one = computeMetrics({ equity: curve([[T0, 100]]), trades: [], feesPaid: 0 });
    expect(reason(one.totalReturnPct)).toBe('needs at least 2 equity points');
    expect(reason(one.maxDrawdownPct)).toBe('needs at least 2 equity points');
    expect(reason(one.exposurePct)).toBe('the equity curve spans no time');
    // rising every day: no drawdown, no losing day
    const pts: [number, number][] = [];
    for (let i = 0; i <= 120; i++) pts.push([T0 + i * D, 100 * 1.001 ** i]);
    const up = computeMetrics({ equity: curve(pts), trades: [], feesPaid: 0 });
    expect(v(up.maxDrawdownPct)).toBe(0);
    expect(v(up.longestDrawdownMs)).toBe(0);
    expect(reason(up.calmar)).toBe('no drawdown (max drawdown is 0)');
    expect(reason(up.sortino)).toBe('no daily return below the risk-free rate (downside deviation is 0)');
    // flat: zero variance
    const flat = computeMetrics({ equity: curve(pts.map(([t]) => [t, 100])), trades: [], feesPaid: 0 });
    expect(reason(flat.sharpe)).toBe('daily returns have zero variance');
    // wiped out
    const dead = computeMetrics({
      equity: curve([
        [T0, 100],
        [T0 + 200 * D, 0],
      ]),
      trades: [],
      feesPaid: 0,
    });
    expect(reason(dead.cagrPct)).toBe('equity ended at or below 0');
    expect(v(dead.maxDrawdownPct)).toBe(100);
  });
});

describe('trade metrics, hand-worked', () => {
  // pnl +30, -10, +20, -20 (pnl % 3, -1, 2, -2), durations 1h, 2h, 3h, 6h
  const trades = [trade(30, 3, T0, T0 + H), trade(-10, -1, T0 + H, T0 + 3 * H), trade(20, 2, T0 + 4 * H, T0 + 7 * H), trade(-20, -2, T0 + 8 * H, T0 + 14 * H)];
  const eq = curve([
    [T0, 1000],
    [T0 + 20 * H, 1020],
  ]);

  it('win rate, profit factor, expectancy, average/best/worst, durations, fees, SQN', () => {
    const m = computeMetrics({ equity: eq, trades, feesPaid: 0.8 }, { minTradesForSqn: 2 });
    expect(v(m.trades)).toBe(4);
    expect(v(m.winRatePct)).toBe(50); // 2 of 4
    expect(v(m.profitFactor)).toBeCloseTo(50 / 30, 12); // (30 + 20) / (10 + 20)
    expect(v(m.expectancy)).toBe(5); // 20 / 4
    expect(v(m.avgTradePct)).toBe(0.5); // (3 - 1 + 2 - 2) / 4
    expect(v(m.bestTradePct)).toBe(3);
    expect(v(m.worstTradePct)).toBe(-2);
    expect(v(m.avgTradeDurationMs)).toBe(3 * H); // (1 + 2 + 3 + 6) / 4
    expect(v(m.maxTradeDurationMs)).toBe(6 * H);
    expect(v(m.feesPaid)).toBe(0.8);
    // SQN: deviations from 5 are 25, -15, 15, -25 -> stdev sqrt(1700/3) = 23.8048; sqrt(4) * 5 / 23.8048 = 0.420084
    expect(v(m.sqn)).toBeCloseTo(0.4200840252, 9);
    // exposure from the trades: 1 + 2 + 3 + 6 = 12h of 20h = 60 %
    expect(v(m.exposurePct)).toBeCloseTo(60, 12);
  });

  it('n/a: SQN under 30 trades, profit factor without a losing trade, everything without trades', () => {
    const m = computeMetrics({ equity: eq, trades, feesPaid: 0 });
    expect(reason(m.sqn)).toBe('4 closed trades; needs at least 30');
    const winners = computeMetrics({ equity: eq, trades: [trade(5, 1, T0, T0 + H)], feesPaid: 0 });
    expect(reason(winners.profitFactor)).toBe('no losing trades (gross loss is 0)');
    expect(v(winners.winRatePct)).toBe(100);
    const none = computeMetrics({ equity: eq, trades: [], feesPaid: 0 });
    expect(v(none.trades)).toBe(0);
    for (const k of [
      'winRatePct',
      'profitFactor',
      'expectancy',
      'avgTradePct',
      'bestTradePct',
      'worstTradePct',
      'avgTradeDurationMs',
      'maxTradeDurationMs',
    ] as const) {
      expect(reason(none[k])).toBe('no closed trades');
    }
    expect(v(none.exposurePct)).toBe(0);
    const same = computeMetrics({ equity: eq, trades: [trade(1, 1, T0, T0), trade(1, 1, T0, T0)], feesPaid: 0 }, { minTradesForSqn: 2 });
    expect(reason(same.sqn)).toMatch(/standard deviation 0/);
  });

  it('exposure: union of overlapping intervals clipped to the run', () => {
    // run 0..10h; [0,1h] u [0.5h,2h] = 2h, [5h,6h] = 1h, [9h,12h] clipped to 1h -> 4h / 10h = 40 %
    const run = curve([
      [T0, 100],
      [T0 + 10 * H, 100],
    ]);
    const exposure = [
      { start: T0 + 9 * H, end: T0 + 12 * H },
      { start: T0, end: T0 + H },
      { start: T0 + 5 * H, end: T0 + 6 * H },
      { start: T0 + H / 2, end: T0 + 2 * H },
    ];
    const m = computeMetrics({ equity: run, trades: [], feesPaid: 0, exposure });
    expect(v(m.exposurePct)).toBeCloseTo(40, 12);
  });

  it('buy and hold over the same range', () => {
    const m = computeMetrics({ equity: eq, trades: [], feesPaid: 0, benchmark: { firstPrice: 100, lastPrice: 90 } });
    expect(v(m.buyAndHoldReturnPct)).toBeCloseTo(-10, 12);
    expect(reason(computeMetrics({ equity: eq, trades: [], feesPaid: 0 }).buyAndHoldReturnPct)).toBe('no benchmark prices given');
  });
});

describe('input checks', () => {
  it('malformed input is a ParameterError naming the field and index', () => {
    const bad = (input: Partial<MetricsInput>) => () => computeMetrics({ equity: FIVE, trades: [], feesPaid: 0, ...input });
    expect(bad({ equity: { times: [T0, T0 - 1], values: [1, 2] } })).toThrow(/equity\.times\[1\]/);
    expect(bad({ equity: { times: [T0, T0 + 1], values: [1, NaN] } })).toThrow(/equity\.values\[1\]: "NaN"/);
    expect(bad({ equity: { times: [T0], values: [0] } })).toThrow(/equity\.values\[0\]/);
    expect(bad({ equity: { times: [], values: [] } })).toThrow(ParameterError);
    expect(bad({ trades: [trade(1, 1, T0 + H, T0)] })).toThrow(/trades\[0\]\.exitTime/);
    expect(bad({ feesPaid: -1 })).toThrow(/feesPaid/);
    expect(bad({ benchmark: { firstPrice: 0, lastPrice: 1 } })).toThrow(/benchmark\.firstPrice/);
    expect(bad({ exposure: [{ start: 5, end: 1 }] })).toThrow(/exposure\[0\]/);
  });
});
