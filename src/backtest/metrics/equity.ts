/** Metrics of the equity curve: return, CAGR, drawdowns, daily returns, Sharpe, Sortino. */
import { ParameterError } from '../../core/errors.js';
import { DAY_MS, DAYS_PER_YEAR, na, ok, type EquityCurve, type Metric } from './types.js';

/** Throws a ParameterError naming the bad point unless the curve is non-empty, finite, ascending, starts > 0. */
export function checkEquity(curve: EquityCurve): void {
  const { times, values } = curve;
  if (times.length !== values.length) {
    throw new ParameterError('equity.values.length', values.length, `equal to equity.times.length ${times.length}`);
  }
  if (times.length === 0) throw new ParameterError('equity.times.length', 0, 'at least 1 point');
  for (let i = 0; i < times.length; i++) {
    const t = times[i]!;
    const v = values[i]!;
    if (!Number.isFinite(t)) throw new ParameterError(`equity.times[${i}]`, String(t), 'a finite ms timestamp');
    if (i > 0 && t < times[i - 1]!) throw new ParameterError(`equity.times[${i}]`, t, `>= equity.times[${i - 1}] ${times[i - 1]}`);
    if (!Number.isFinite(v)) throw new ParameterError(`equity.values[${i}]`, String(v), 'a finite number');
  }
  if (!(values[0]! > 0)) throw new ParameterError('equity.values[0]', values[0], 'a starting equity > 0');
}

export function totalReturnPct(curve: EquityCurve): Metric {
  const n = curve.values.length;
  if (n < 2) return na('needs at least 2 equity points');
  return ok((curve.values[n - 1]! / curve.values[0]! - 1) * 100);
}

/** CAGR = (end / start)^(365 / days) - 1, n/a under `minDays`. */
export function cagrPct(curve: EquityCurve, minDays: number): Metric {
  const n = curve.values.length;
  const days = (curve.times[n - 1]! - curve.times[0]!) / DAY_MS;
  if (days < minDays) {
    return na(`${fmtDays(days)} of data; annualising needs at least ${minDays} days`);
  }
  const end = curve.values[n - 1]!;
  if (end <= 0) return na('equity ended at or below 0');
  return ok((Math.pow(end / curve.values[0]!, DAYS_PER_YEAR / days) - 1) * 100);
}

export interface Drawdowns {
  maxDrawdownPct: Metric;
  maxDrawdownDurationMs: Metric;
  longestDrawdownMs: Metric;
  /** The deepest drawdown as a fraction (0 when none), for Calmar. */
  maxDrawdown: number;
}

/**
 * Drawdown at i = 1 - equity[i] / max(equity[0..i]). An episode under water runs from a peak until the
 * equity is back at or above that peak; an episode still open at the end runs to the last point.
 */
export function drawdowns(curve: EquityCurve): Drawdowns {
  const { times, values } = curve;
  const n = values.length;
  if (n < 2) {
    const r = na('needs at least 2 equity points');
    return { maxDrawdownPct: r, maxDrawdownDurationMs: r, longestDrawdownMs: r, maxDrawdown: 0 };
  }
  let peak = values[0]!;
  let peakTime = times[0]!;
  let underWater = false;
  let maxDd = 0;
  let maxDdPeakTime = NaN;
  let maxDdDuration = 0;
  let longest = 0;
  for (let i = 1; i < n; i++) {
    const v = values[i]!;
    const t = times[i]!;
    if (v >= peak) {
      if (underWater) {
        const d = t - peakTime;
        if (d > longest) longest = d;
        if (maxDdPeakTime === peakTime) maxDdDuration = d;
        underWater = false;
      }
      peak = v;
      peakTime = t;
      continue;
    }
    underWater = true;
    const dd = 1 - v / peak;
    if (dd > maxDd) {
      maxDd = dd;
      maxDdPeakTime = peakTime;
    }
  }
  if (underWater) {
    const d = times[n - 1]! - peakTime;
    if (d > longest) longest = d;
    if (maxDdPeakTime === peakTime) maxDdDuration = d;
  }
  return {
    maxDrawdownPct: ok(maxDd * 100),
    maxDrawdownDurationMs: ok(maxDdDuration),
    longestDrawdownMs: ok(longest),
    maxDrawdown: maxDd,
  };
}

/**
 * Resamples the curve to UTC days. Day d is the interval (d·24h, (d + 1)·24h]: a point at exactly
 * 00:00 UTC (e.g. the close of the previous day's last candle) is the close of the day that ends
 * there, not part of the new day. The close of day d is the last point with time <= (d + 1)·24h
 * (carried forward over days without points). Returns close[d] / close[d - 1] - 1 for every UTC day
 * from the day the first point starts in (floor(t_0 / 24h)) to the day the last point closes
 * (ceil(t_end / 24h) - 1), the first day measured from the first point.
 */
export function dailyReturns(curve: EquityCurve): number[] {
  const { times, values } = curve;
  const n = values.length;
  const out: number[] = [];
  const firstDay = Math.floor(times[0]! / DAY_MS);
  const lastDay = Math.ceil(times[n - 1]! / DAY_MS) - 1;
  let prev = values[0]!;
  let close = prev;
  let i = 0;
  for (let d = firstDay; d <= lastDay; d++) {
    const dayEnd = (d + 1) * DAY_MS;
    while (i < n && times[i]! <= dayEnd) close = values[i++]!;
    out.push(prev !== 0 ? close / prev - 1 : 0);
    prev = close;
  }
  return out;
}

/** Daily rate equivalent to an annual risk-free rate, compounded over 365 days. */
export function dailyRiskFree(annual: number): number {
  return Math.pow(1 + annual, 1 / DAYS_PER_YEAR) - 1;
}

/** Sharpe = mean(r - rf) / sampleStd(r - rf) * sqrt(365) over daily returns r. */
export function sharpe(returns: readonly number[], rfDaily: number, minReturns: number): Metric {
  const n = returns.length;
  if (n < minReturns) return na(`${n} daily returns; needs at least ${minReturns}`);
  let sum = 0;
  for (const r of returns) sum += r - rfDaily;
  const mean = sum / n;
  let ss = 0;
  for (const r of returns) ss += (r - rfDaily - mean) ** 2;
  const sd = Math.sqrt(ss / (n - 1));
  if (!(sd > 0)) return na('daily returns have zero variance');
  return ok((mean / sd) * Math.sqrt(DAYS_PER_YEAR));
}

/** Sortino = mean(r - rf) / sqrt(mean(min(0, r - rf)^2)) * sqrt(365) over daily returns r. */
export function sortino(returns: readonly number[], rfDaily: number, minReturns: number): Metric {
  const n = returns.length;
  if (n < minReturns) return na(`${n} daily returns; needs at least ${minReturns}`);
  let sum = 0;
  let down = 0;
  for (const r of returns) {
    const x = r - rfDaily;
    sum += x;
    if (x < 0) down += x * x;
  }
  const dd = Math.sqrt(down / n);
  if (!(dd > 0)) return na('no daily return below the risk-free rate (downside deviation is 0)');
  return ok((sum / n / dd) * Math.sqrt(DAYS_PER_YEAR));
}

function fmtDays(days: number): string {
  return `${Math.round(days * 100) / 100} days`;
}
