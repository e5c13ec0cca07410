import { checkFinite, type StreamingIndicator } from './common.js';
import { RollingStdDev } from './stddev.js';
import { ParameterError } from '../../core/errors.js';

export interface BollingerOptions {
  /** Band width in standard deviations. Default 2. */
  k?: number;
  /** Use the sample (n - 1) standard deviation instead of the population one. Default false. */
  sample?: boolean;
}

/**
 * Bollinger bands: middle = SMA(period), upper/lower = middle ± k * population std(period).
 * Defaults period 20, k 2 (Bollinger; cinar). Results are fields (`upper`, `middle`, `lower`,
 * `bandwidth`, `percentB`) so `update` allocates nothing; `update` returns `middle`.
 */
export class BollingerBands implements StreamingIndicator {
  readonly period: number;
  readonly k: number;
  upper = NaN;
  middle = NaN;
  lower = NaN;
  /** (upper - lower) / middle (NaN when middle is 0). */
  bandwidth = NaN;
  /** (x - lower) / (upper - lower); NaN when the bands have zero width. */
  percentB = NaN;
  private readonly std: RollingStdDev;

  constructor(period = 20, options: BollingerOptions = {}) {
    const k = options.k ?? 2;
    if (!(k > 0 && Number.isFinite(k))) throw new ParameterError('k', k, 'a positive number');
    this.std = new RollingStdDev(period, { sample: options.sample ?? false });
    this.period = period;
    this.k = k;
  }

  update(x: number): number {
    checkFinite('value', x);
    const sd = this.std.update(x);
    if (!this.std.ready) return NaN;
    const mid = this.std.mean;
    const w = this.k * sd;
    this.middle = mid;
    this.upper = mid + w;
    this.lower = mid - w;
    this.bandwidth = mid !== 0 ? (2 * w) / mid : NaN;
    this.percentB = w > 0 ? (x - this.lower) / (2 * w) : NaN;
    return mid;
  }

  get ready(): boolean {
    return this.std.ready;
  }

  get value(): number {
    return this.middle;
  }

  reset(): void {
    this.std.reset();
    this.upper = this.middle = this.lower = this.bandwidth = this.percentB = NaN;
  }
}
