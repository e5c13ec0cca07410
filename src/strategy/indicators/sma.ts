import { RingBuffer, checkFinite, checkPeriod, recomputeInterval, type StreamingIndicator } from './common.js';

/**
 * Simple moving average of the last `period` values: sum / period.
 * Ready after `period` updates (first value at index period-1, like cinar's SMA).
 * O(1): running sum, rebuilt exactly from the buffer every max(period, 1024) updates against drift.
 */
export class Sma implements StreamingIndicator {
  readonly period: number;
  private readonly window: RingBuffer;
  private sum = 0;
  private sinceRecompute = 0;
  private readonly recomputeEvery: number;
  private current = NaN;

  constructor(period: number) {
    checkPeriod('period', period);
    this.period = period;
    this.window = new RingBuffer(period);
    this.recomputeEvery = recomputeInterval(period);
  }

  update(x: number): number {
    checkFinite('value', x);
    const old = this.window.push(x);
    if (old === old)
      this.sum += x - old; // old is NaN until the window is full
    else this.sum += x;
    if (!this.window.full) return NaN;
    if (++this.sinceRecompute >= this.recomputeEvery) {
      this.sinceRecompute = 0;
      let s = 0;
      for (let i = 0; i < this.period; i++) s += this.window.at(i);
      this.sum = s;
    }
    this.current = this.sum / this.period;
    return this.current;
  }

  get ready(): boolean {
    return this.window.full;
  }

  get value(): number {
    return this.current;
  }

  reset(): void {
    this.window.clear();
    this.sum = 0;
    this.sinceRecompute = 0;
    this.current = NaN;
  }
}
