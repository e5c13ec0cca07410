/** Metrics of the equity curve: return, CAGR, drawdowns, daily returns, Sharpe, Sortino. */
import { ParameterError } from '../../core/errors.js';
import { DAY_MS, DAYS_PER_YEAR, na, ok, type EquityCurve, type Metric } from './types.js';

/** The drawdowns of a curve, from `EquityFold`. */
export interface Drawdowns {
  maxDrawdownPct: Metric;
  maxDrawdownDurationMs: Metric;
  longestDrawdownMs: Metric;
  /** The deepest drawdown as a fraction (0 when none), for Calmar. */
  maxDrawdown: number;
}

/**
 * The equity curve's metrics taken one point at a time (`add`), so a backtest need not keep a sample
 * per candle to compute them: the checks, the drawdowns and the daily returns are running states,
 * the return and the CAGR need only the first and the last point. computeMetrics folds a curve given
 * as arrays through the same code, so both give bit-identical numbers.
 *
 * Checks: the curve is non-empty, every time finite and ascending, every value finite, the first
 * value > 0; the first bad point is thrown (a ParameterError naming it) by `check`.
 *
 * Drawdown at i = 1 - equity[i] / max(equity[0..i]). An episode under water runs from a peak until the
 * equity is back at or above that peak; an episode still open at the end runs to the last point.
 *
 * Daily returns: the curve resampled to UTC days. Day d is the interval (d·24h, (d + 1)·24h]: a point
 * at exactly 00:00 UTC (e.g. the close of the previous day's last candle) is the close of the day that
 * ends there, not part of the new day. The close of day d is the last point with time <= (d + 1)·24h
 * (carried forward over days without points). close[d] / close[d - 1] - 1 for every UTC day from the
 * day the first point starts in (floor(t_0 / 24h)) to the day the last point closes
 * (ceil(t_end / 24h) - 1), the first day measured from the first point.
 */
export class EquityFold {
  /** Points taken. */
  n = 0;
  firstTime = Number.NaN;
  firstValue = Number.NaN;
  lastTime = Number.NaN;
  lastValue = Number.NaN;
  /** The first bad point (thrown by `check`). */
  private error: ParameterError | undefined;
  private peak = Number.NaN;
  private peakTime = Number.NaN;
  private underWater = false;
  private maxDd = 0;
  private maxDdPeakTime = Number.NaN;
  private maxDdDuration = 0;
  private longest = 0;
  /** The UTC day the points are in, the close of the day before it and its close so far. */
  private day = 0;
  private prev = 0;
  private close = 0;
  private readonly returns: number[] = [];

  add(t: number, v: number): void {
    const i = this.n++;
    if (this.error === undefined) {
      if (!Number.isFinite(t)) this.error = new ParameterError(`equity.times[${i}]`, String(t), 'a finite ms timestamp');
      else if (i > 0 && t < this.lastTime) this.error = new ParameterError(`equity.times[${i}]`, t, `>= equity.times[${i - 1}] ${this.lastTime}`);
      else if (!Number.isFinite(v)) this.error = new ParameterError(`equity.values[${i}]`, String(v), 'a finite number');
      // After a bad point the curve's metrics are never read (check throws): nothing more is folded.
      if (this.error !== undefined) return;
    } else return;
    if (i === 0) {
      this.firstTime = t;
      this.firstValue = v;
      this.peak = v;
      this.peakTime = t;
      this.day = Math.floor(t / DAY_MS);
      this.prev = v;
      this.close = v;
    } else {
      // The days this point is past are closed (their close: the last point before it).
      while (t > (this.day + 1) * DAY_MS) this.closeDay();
      this.close = v;
      if (v >= this.peak) {
        if (this.underWater) {
          const d = t - this.peakTime;
          if (d > this.longest) this.longest = d;
          if (this.maxDdPeakTime === this.peakTime) this.maxDdDuration = d;
          this.underWater = false;
        }
        this.peak = v;
        this.peakTime = t;
      } else {
        this.underWater = true;
        const dd = 1 - v / this.peak;
        if (dd > this.maxDd) {
          this.maxDd = dd;
          this.maxDdPeakTime = this.peakTime;
        }
      }
    }
    this.lastTime = t;
    this.lastValue = v;
  }

  private closeDay(): void {
    this.returns.push(this.prev !== 0 ? this.close / this.prev - 1 : 0);
    this.prev = this.close;
    this.day++;
  }

  /** Throws a ParameterError naming the bad point unless the curve is non-empty, finite, ascending, starts > 0. */
  check(): void {
    if (this.error) throw this.error;
    if (this.n === 0) throw new ParameterError('equity.times.length', 0, 'at least 1 point');
    if (!(this.firstValue > 0)) throw new ParameterError('equity.values[0]', this.firstValue, 'a starting equity > 0');
  }

  totalReturnPct(): Metric {
    if (this.n < 2) return na('needs at least 2 equity points');
    return ok((this.lastValue / this.firstValue - 1) * 100);
  }

  /** CAGR = (end / start)^(365 / days) - 1, n/a under `minDays`. */
  cagrPct(minDays: number): Metric {
    const days = (this.lastTime - this.firstTime) / DAY_MS;
    if (days < minDays) {
      return na(`${fmtDays(days)} of data; annualising needs at least ${minDays} days`);
    }
    const end = this.lastValue;
    if (end <= 0) return na('equity ended at or below 0');
    return ok((Math.pow(end / this.firstValue, DAYS_PER_YEAR / days) - 1) * 100);
  }

  drawdowns(): Drawdowns {
    if (this.n < 2) {
      const r = na('needs at least 2 equity points');
      return { maxDrawdownPct: r, maxDrawdownDurationMs: r, longestDrawdownMs: r, maxDrawdown: 0 };
    }
    let { longest, maxDdDuration } = this;
    if (this.underWater) {
      const d = this.lastTime - this.peakTime;
      if (d > longest) longest = d;
      if (this.maxDdPeakTime === this.peakTime) maxDdDuration = d;
    }
    return {
      maxDrawdownPct: ok(this.maxDd * 100),
      maxDrawdownDurationMs: ok(maxDdDuration),
      longestDrawdownMs: ok(longest),
      maxDrawdown: this.maxDd,
    };
  }

  /** The daily returns: the days closed so far, then the last point's day (none when it is at 00:00 of the first day). */
  dailyReturns(): number[] {
    const out = this.returns.slice();
    if (this.n === 0) return out;
    let prev = this.prev;
    const lastDay = Math.ceil(this.lastTime / DAY_MS) - 1;
    for (let d = this.day; d <= lastDay; d++) {
      out.push(prev !== 0 ? this.close / prev - 1 : 0);
      prev = this.close;
    }
    return out;
  }
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
