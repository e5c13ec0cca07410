import { checkFinite, checkPeriod, type StreamingIndicator } from './common.js';
import { ParameterError } from '../../core/errors.js';

/**
 * How the first EMA value is chosen.
 * - `'sma'` (default; cinar, TA-Lib, Wilder): no value for the first period-1 inputs; the value at input
 *   `period` is the SMA of the first `period` inputs, then the recursion runs.
 * - `'first'` (pandas `ewm(adjust=False)`, TradingView `ta.ema`): the first input is the seed and a value
 *   exists from the first update; early values are dominated by that one input.
 */
export type EmaSeed = 'sma' | 'first';

export interface EmaOptions {
  seed?: EmaSeed;
  /** Smoothing factor in (0, 1]. Default 2 / (period + 1). Wilder's RMA uses 1 / period. */
  alpha?: number;
}

/**
 * Exponential moving average: ema = ema_prev + alpha * (x - ema_prev), alpha = 2 / (period + 1).
 * O(1), no buffer.
 */
export class Ema implements StreamingIndicator {
  readonly period: number;
  readonly alpha: number;
  readonly seed: EmaSeed;
  private count = 0;
  private seedSum = 0;
  private current = NaN;

  constructor(period: number, options: EmaOptions = {}) {
    checkPeriod('period', period);
    this.period = period;
    this.seed = options.seed ?? 'sma';
    if (this.seed !== 'sma' && this.seed !== 'first') {
      throw new ParameterError('seed', this.seed, "'sma' or 'first'");
    }
    const alpha = options.alpha ?? 2 / (period + 1);
    if (!(alpha > 0 && alpha <= 1)) throw new ParameterError('alpha', alpha, 'a number in (0, 1]');
    this.alpha = alpha;
  }

  update(x: number): number {
    checkFinite('value', x);
    this.count++;
    if (this.seed === 'first') {
      this.current = this.count === 1 ? x : this.current + this.alpha * (x - this.current);
      return this.current;
    }
    if (this.count < this.period) {
      this.seedSum += x;
      return NaN;
    }
    if (this.count === this.period) {
      this.current = (this.seedSum + x) / this.period;
      return this.current;
    }
    this.current += this.alpha * (x - this.current);
    return this.current;
  }

  get ready(): boolean {
    return this.seed === 'first' ? this.count > 0 : this.count >= this.period;
  }

  get value(): number {
    return this.current;
  }

  reset(): void {
    this.count = 0;
    this.seedSum = 0;
    this.current = NaN;
  }
}

/**
 * Wilder's smoothing (RMA, SMMA): an EMA with alpha = 1 / period seeded with the SMA of the first
 * `period` values. Used by RSI and (by default) ATR.
 */
export class Rma extends Ema {
  constructor(period: number, options: { seed?: EmaSeed } = {}) {
    super(period, { seed: options.seed ?? 'sma', alpha: 1 / period });
  }
}
