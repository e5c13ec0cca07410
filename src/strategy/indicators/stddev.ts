import { RingBuffer, checkFinite, checkPeriod, recomputeInterval, type StreamingIndicator } from './common.js';

export interface StdDevOptions {
  /**
   * false (default): population standard deviation, divide by n (cinar, Bollinger's definition, TA-Lib).
   * true: sample standard deviation, divide by n - 1 (pandas `rolling().std()` default); needs period >= 2.
   */
  sample?: boolean;
}

/**
 * Rolling standard deviation of the last `period` values.
 *
 * Numerically stable O(1) update: Welford's running mean and M2 (sum of squared deviations), extended to a
 * sliding window. Replacing the oldest value y by x:
 *   mean' = mean + (x - y) / n
 *   M2'   = M2 + (x - y) * (x - mean' + y - mean)
 * This avoids the catastrophic cancellation of sum(x^2) - n*mean^2 on prices like 6e9 TMN. M2 is clamped
 * at 0 and both are rebuilt with an exact two-pass sum every max(period, 1024) updates.
 */
export class RollingStdDev implements StreamingIndicator {
  readonly period: number;
  readonly sample: boolean;
  private readonly window: RingBuffer;
  private readonly recomputeEvery: number;
  private m = 0;
  private m2 = 0;
  private sinceRecompute = 0;
  private current = NaN;

  constructor(period: number, options: StdDevOptions = {}) {
    this.sample = options.sample ?? false;
    checkPeriod('period', period, this.sample ? 2 : 1);
    this.period = period;
    this.window = new RingBuffer(period);
    this.recomputeEvery = recomputeInterval(period);
  }

  update(x: number): number {
    checkFinite('value', x);
    if (!this.window.full) {
      this.window.push(x);
      const delta = x - this.m;
      this.m += delta / this.window.length;
      this.m2 += delta * (x - this.m);
      if (!this.window.full) return NaN;
    } else {
      const y = this.window.push(x);
      const oldMean = this.m;
      this.m = oldMean + (x - y) / this.period;
      this.m2 += (x - y) * (x - this.m + y - oldMean);
      if (this.m2 < 0) this.m2 = 0;
      if (++this.sinceRecompute >= this.recomputeEvery) {
        this.sinceRecompute = 0;
        this.recompute();
      }
    }
    this.current = Math.sqrt(this.m2 / (this.sample ? this.period - 1 : this.period));
    return this.current;
  }

  private recompute(): void {
    const n = this.period;
    let s = 0;
    for (let i = 0; i < n; i++) s += this.window.at(i);
    const mean = s / n;
    let ss = 0;
    for (let i = 0; i < n; i++) {
      const d = this.window.at(i) - mean;
      ss += d * d;
    }
    this.m = mean;
    this.m2 = ss;
  }

  get ready(): boolean {
    return this.window.full;
  }

  /** The standard deviation (NaN while warming up). */
  get value(): number {
    return this.current;
  }

  /** The window mean (NaN while warming up): the SMA of the same window. */
  get mean(): number {
    return this.window.full ? this.m : NaN;
  }

  /** The window variance (NaN while warming up). */
  get variance(): number {
    return this.current * this.current;
  }

  reset(): void {
    this.window.clear();
    this.m = 0;
    this.m2 = 0;
    this.sinceRecompute = 0;
    this.current = NaN;
  }
}
