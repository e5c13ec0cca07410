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
 * The error naming the bad point `p` (index `i`, after a point at `prevTime`), built out of line:
 * with these calls inside EquityFold.addPoint, V8 kept the point's numbers boxed there, a heap
 * number per point that the young generation then promoted (16 MB more per million candles).
 */
function badPoint(p: Float64Array, i: number, prevTime: number): ParameterError {
  const t = p[0]!;
  const v = p[1]!;
  if (!Number.isFinite(t)) return new ParameterError(`equity.times[${i}]`, String(t), 'a finite ms timestamp');
  if (i > 0 && t < prevTime) return new ParameterError(`equity.times[${i}]`, t, `>= equity.times[${i - 1}] ${prevTime}`);
  return new ParameterError(`equity.values[${i}]`, String(v), 'a finite number');
}

/** EquityFold's running numbers (indexes into its Float64Array). */
const FIRST_TIME = 0;
const FIRST_VALUE = 1;
const LAST_TIME = 2;
const LAST_VALUE = 3;
const PEAK = 4;
const PEAK_TIME = 5;
const MAX_DD = 6;
const MAX_DD_PEAK_TIME = 7;
const MAX_DD_DURATION = 8;
const LONGEST = 9;
const PREV = 10;
const CLOSE = 11;
/** The running peak's point index; the deepest drawdown's points: its peak, its trough and its recovery (NaN: none yet). */
const PEAK_INDEX = 12;
const MAX_DD_PEAK_INDEX = 13;
const MAX_DD_PEAK_VALUE = 14;
const TROUGH_INDEX = 15;
const TROUGH_TIME = 16;
const TROUGH_VALUE = 17;
const RECOVERY_INDEX = 18;
const RECOVERY_TIME = 19;
const RECOVERY_VALUE = 20;
const STATE_SIZE = 21;

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
  /** The first bad point (thrown by `check`). */
  private error: ParameterError | undefined;
  private underWater = false;
  /** The UTC day the points are in. */
  private day = 0;
  private readonly returns: number[] = [];
  /**
   * The running numbers, in a Float64Array: a double stored into an object's field can allocate a
   * heap number per store (a million in a run, promoted with the long-lived fold), a typed array's
   * element never does.
   */
  private readonly x = new Float64Array(STATE_SIZE).fill(Number.NaN);

  constructor() {
    this.x[MAX_DD] = 0;
    this.x[MAX_DD_DURATION] = 0;
    this.x[LONGEST] = 0;
  }

  get firstTime(): number {
    return this.x[FIRST_TIME]!;
  }
  get firstValue(): number {
    return this.x[FIRST_VALUE]!;
  }
  get lastTime(): number {
    return this.x[LAST_TIME]!;
  }
  get lastValue(): number {
    return this.x[LAST_VALUE]!;
  }

  /** A point of the curve (time in ms, value). */
  add(t: number, v: number): void {
    const p = this.point;
    p[0] = t;
    p[1] = v;
    this.addPoint(p);
  }

  private readonly point = new Float64Array(2);

  /**
   * A point given as `p[0]` (time) and `p[1]` (value): a caller's hot loop passes its own small
   * Float64Array, so no number crosses the call (a double argument of a call not inlined is boxed
   * into a new heap number: two per candle in a backtest's walk).
   */
  addPoint(p: Float64Array): void {
    const t = p[0]!;
    const v = p[1]!;
    const x = this.x;
    const i = this.n++;
    // After a bad point the curve's metrics are never read (check throws): nothing more is folded.
    if (this.error !== undefined) return;
    if (!Number.isFinite(t) || (i > 0 && t < x[LAST_TIME]!) || !Number.isFinite(v)) {
      this.error = badPoint(p, i, x[LAST_TIME]!);
      return;
    }
    if (i === 0) {
      x[FIRST_TIME] = t;
      x[FIRST_VALUE] = v;
      x[PEAK] = v;
      x[PEAK_TIME] = t;
      x[PEAK_INDEX] = 0;
      this.day = Math.floor(t / DAY_MS);
      x[PREV] = v;
      x[CLOSE] = v;
    } else {
      // The days this point is past are closed (their close: the last point before it).
      while (t > (this.day + 1) * DAY_MS) this.closeDay();
      x[CLOSE] = v;
      if (v >= x[PEAK]!) {
        if (this.underWater) {
          const d = t - x[PEAK_TIME]!;
          if (d > x[LONGEST]!) x[LONGEST] = d;
          if (x[MAX_DD_PEAK_TIME] === x[PEAK_TIME]) {
            x[MAX_DD_DURATION] = d;
            x[RECOVERY_INDEX] = i;
            x[RECOVERY_TIME] = t;
            x[RECOVERY_VALUE] = v;
          }
          this.underWater = false;
        }
        x[PEAK] = v;
        x[PEAK_TIME] = t;
        x[PEAK_INDEX] = i;
      } else {
        this.underWater = true;
        const dd = 1 - v / x[PEAK]!;
        if (dd > x[MAX_DD]!) {
          x[MAX_DD] = dd;
          x[MAX_DD_PEAK_TIME] = x[PEAK_TIME]!;
          x[MAX_DD_PEAK_INDEX] = x[PEAK_INDEX]!;
          x[MAX_DD_PEAK_VALUE] = x[PEAK]!;
          x[TROUGH_INDEX] = i;
          x[TROUGH_TIME] = t;
          x[TROUGH_VALUE] = v;
          x[RECOVERY_INDEX] = Number.NaN;
        }
      }
    }
    x[LAST_TIME] = t;
    x[LAST_VALUE] = v;
  }

  private closeDay(): void {
    const x = this.x;
    this.returns.push(x[PREV] !== 0 ? x[CLOSE]! / x[PREV]! - 1 : 0);
    x[PREV] = x[CLOSE]!;
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
    const x = this.x;
    let longest = x[LONGEST]!;
    let maxDdDuration = x[MAX_DD_DURATION]!;
    if (this.underWater) {
      const d = x[LAST_TIME]! - x[PEAK_TIME]!;
      if (d > longest) longest = d;
      if (x[MAX_DD_PEAK_TIME] === x[PEAK_TIME]) maxDdDuration = d;
    }
    return {
      maxDrawdownPct: ok(x[MAX_DD]! * 100),
      maxDrawdownDurationMs: ok(maxDdDuration),
      longestDrawdownMs: ok(longest),
      maxDrawdown: x[MAX_DD]!,
    };
  }

  /**
   * The points that make the deepest drawdown and its duration, in order (index among the points
   * taken, time ms, value): its peak, its trough and the first point back at the peak (none while
   * still under water). A curve thinned for a file keeps them, so the two metrics computed again
   * from it are these.
   */
  drawdownPoints(): Array<[number, number, number]> {
    const x = this.x;
    if (this.error !== undefined || !(x[MAX_DD]! > 0)) return [];
    const out: Array<[number, number, number]> = [
      [x[MAX_DD_PEAK_INDEX]!, x[MAX_DD_PEAK_TIME]!, x[MAX_DD_PEAK_VALUE]!],
      [x[TROUGH_INDEX]!, x[TROUGH_TIME]!, x[TROUGH_VALUE]!],
    ];
    if (!Number.isNaN(x[RECOVERY_INDEX]!)) out.push([x[RECOVERY_INDEX]!, x[RECOVERY_TIME]!, x[RECOVERY_VALUE]!]);
    return out;
  }

  /** The daily returns: the days closed so far, then the last point's day (none when it is at 00:00 of the first day). */
  dailyReturns(): number[] {
    const out = this.returns.slice();
    if (this.n === 0) return out;
    const close = this.x[CLOSE]!;
    let prev = this.x[PREV]!;
    const lastDay = Math.ceil(this.lastTime / DAY_MS) - 1;
    for (let d = this.day; d <= lastDay; d++) {
      out.push(prev !== 0 ? close / prev - 1 : 0);
      prev = close;
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
