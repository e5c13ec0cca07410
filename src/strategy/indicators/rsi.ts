import { checkFinite, checkPeriod, type StreamingIndicator } from './common.js';
import { Rma } from './ema.js';

/**
 * Relative strength index (Wilder): change = x - previous x; average gain and average loss are Wilder
 * (RMA, alpha = 1/period) averages of max(change, 0) and max(-change, 0), each seeded with the SMA of the
 * first `period` changes. RSI = 100 - 100 / (1 + avgGain / avgLoss).
 * The first value comes at input index `period` (it needs period changes, so period + 1 inputs), as in
 * cinar and TA-Lib. Edge cases: avgLoss = 0 gives 100 (or 50 when avgGain is also 0: a flat market).
 */
export class Rsi implements StreamingIndicator {
  readonly period: number;
  private readonly gains: Rma;
  private readonly losses: Rma;
  private prev = NaN;
  private current = NaN;

  constructor(period = 14) {
    checkPeriod('period', period);
    this.period = period;
    this.gains = new Rma(period);
    this.losses = new Rma(period);
  }

  update(x: number): number {
    checkFinite('value', x);
    const prev = this.prev;
    this.prev = x;
    if (prev !== prev) return NaN; // first input: no change yet
    const change = x - prev;
    const g = this.gains.update(change > 0 ? change : 0);
    const l = this.losses.update(change < 0 ? -change : 0);
    if (!this.gains.ready) return NaN;
    if (l === 0) this.current = g === 0 ? 50 : 100;
    else this.current = 100 - 100 / (1 + g / l);
    return this.current;
  }

  get ready(): boolean {
    return this.gains.ready;
  }

  get value(): number {
    return this.current;
  }

  reset(): void {
    this.gains.reset();
    this.losses.reset();
    this.prev = NaN;
    this.current = NaN;
  }
}
