import { RingBuffer, checkFinite, checkPeriod, recomputeInterval, type StreamingIndicator } from './common.js';

/**
 * Linearly weighted moving average: (1*oldest + 2*next + ... + n*newest) / (n(n+1)/2).
 * O(1): keeps the plain sum S and the weighted sum W; sliding one step gives W' = W - S + n*x and
 * S' = S - oldest + x. Both are rebuilt exactly from the buffer every max(period, 1024) updates.
 */
export class Wma implements StreamingIndicator {
  readonly period: number;
  private readonly window: RingBuffer;
  private readonly divisor: number;
  private readonly recomputeEvery: number;
  private sum = 0;
  private weighted = 0;
  private sinceRecompute = 0;
  private current = NaN;

  constructor(period: number) {
    checkPeriod('period', period);
    this.period = period;
    this.window = new RingBuffer(period);
    this.divisor = (period * (period + 1)) / 2;
    this.recomputeEvery = recomputeInterval(period);
  }

  update(x: number): number {
    checkFinite('value', x);
    const n = this.period;
    if (!this.window.full) {
      this.window.push(x);
      this.weighted += this.window.length * x;
      this.sum += x;
      if (!this.window.full) return NaN;
    } else {
      const old = this.window.push(x);
      this.weighted += n * x - this.sum;
      this.sum += x - old;
      if (++this.sinceRecompute >= this.recomputeEvery) {
        this.sinceRecompute = 0;
        let s = 0;
        let w = 0;
        for (let i = 0; i < n; i++) {
          const v = this.window.at(i);
          s += v;
          w += (i + 1) * v;
        }
        this.sum = s;
        this.weighted = w;
      }
    }
    this.current = this.weighted / this.divisor;
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
    this.weighted = 0;
    this.sinceRecompute = 0;
    this.current = NaN;
  }
}
