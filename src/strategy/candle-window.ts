/**
 * A fixed-capacity window of closed candles as plain numbers (no Decimal per candle), oldest first.
 * `at(-1)` is the last closed candle.
 */
import type { Candle } from '../core/types/market.js';

export interface CandleNumbers {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

export class CandleWindow {
  private readonly t: Float64Array;
  private readonly o: Float64Array;
  private readonly h: Float64Array;
  private readonly l: Float64Array;
  private readonly c: Float64Array;
  private readonly v: Float64Array;
  private start = 0;
  private size = 0;

  constructor(readonly capacity = 500) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.t = new Float64Array(capacity);
    this.o = new Float64Array(capacity);
    this.h = new Float64Array(capacity);
    this.l = new Float64Array(capacity);
    this.c = new Float64Array(capacity);
    this.v = new Float64Array(capacity);
  }

  get length(): number {
    return this.size;
  }

  /** A bar's numbers (read here, so they go from the bar's columns to the window unboxed). */
  pushBar(bar: { readonly time: number; readonly o: number; readonly h: number; readonly l: number; readonly c: number; readonly v: number }): void {
    let i = this.start + this.size;
    if (i >= this.capacity) i -= this.capacity;
    this.t[i] = bar.time;
    this.o[i] = bar.o;
    this.h[i] = bar.h;
    this.l[i] = bar.l;
    this.c[i] = bar.c;
    this.v[i] = bar.v;
    if (this.size < this.capacity) this.size++;
    else if (++this.start === this.capacity) this.start = 0;
  }

  pushNumbers(time: number, open: number, high: number, low: number, close: number, volume: number): void {
    // start < capacity and size <= capacity: one subtraction wraps (no integer division per candle).
    let i = this.start + this.size;
    if (i >= this.capacity) i -= this.capacity;
    this.t[i] = time;
    this.o[i] = open;
    this.h[i] = high;
    this.l[i] = low;
    this.c[i] = close;
    this.v[i] = volume;
    if (this.size < this.capacity) this.size++;
    else if (++this.start === this.capacity) this.start = 0;
  }

  push(c: Candle): void {
    this.pushNumbers(c.time, c.open.toNumber(), c.high.toNumber(), c.low.toNumber(), c.close.toNumber(), c.volume.toNumber());
  }

  private idx(i: number): number {
    const k = i < 0 ? this.size + i : i;
    if (k < 0 || k >= this.size) throw new RangeError(`candle index ${i} outside window of ${this.size}`);
    return (this.start + k) % this.capacity;
  }

  /** Candle at index (0 oldest, -1 newest). */
  at(i: number): CandleNumbers {
    const k = this.idx(i);
    return { time: this.t[k]!, open: this.o[k]!, high: this.h[k]!, low: this.l[k]!, close: this.c[k]!, volume: this.v[k]! };
  }

  close(i = -1): number {
    return this.c[this.idx(i)]!;
  }

  time(i = -1): number {
    return this.t[this.idx(i)]!;
  }

  /** Copy of the closes, oldest first. */
  closes(): number[] {
    const out: number[] = new Array(this.size);
    for (let i = 0; i < this.size; i++) out[i] = this.c[(this.start + i) % this.capacity]!;
    return out;
  }
}
