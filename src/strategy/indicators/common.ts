/**
 * Shared pieces of the streaming indicators: the contract every indicator follows, a fixed-size ring of
 * floats, a monotonic deque for rolling max/min, and argument checks.
 *
 * Hot-path rules: every buffer is a Float64Array allocated once in the constructor; `update` allocates
 * nothing and runs in O(1) (amortised O(1) for the rolling max/min deque and for the periodic exact
 * recompute of running sums).
 */
import { ParameterError } from '../../core/errors.js';

/** What every streaming indicator exposes. */
export interface StreamingIndicator {
  /** True once enough input has been seen for `value` to be defined. */
  readonly ready: boolean;
  /** The latest value, or NaN while warming up. */
  readonly value: number;
  /** Forget all input (buffers are kept and reused). */
  reset(): void;
}

/** Throws when a period is not an integer >= min. */
export function checkPeriod(name: string, period: number, min = 1): void {
  if (!Number.isInteger(period) || period < min) {
    throw new ParameterError(name, Number.isFinite(period) ? period : String(period), `an integer >= ${min}`);
  }
}

/** Throws when an input is NaN or infinite (it would poison running sums). */
export function checkFinite(name: string, x: number): void {
  if (!Number.isFinite(x)) throw new ParameterError(name, String(x), 'a finite number');
}

/**
 * How often (in updates) indicators that keep running sums rebuild them exactly from their buffer, to
 * stop floating-point drift. O(period) work every `max(period, 1024)` updates: amortised O(1).
 */
export function recomputeInterval(period: number): number {
  return Math.max(period, 1024);
}

/** A fixed-capacity FIFO of numbers. `push` returns the evicted value (NaN while not yet full). */
export class RingBuffer {
  readonly capacity: number;
  private readonly buf: Float64Array;
  private head = 0; // index of the oldest element
  private len = 0;

  constructor(capacity: number) {
    checkPeriod('capacity', capacity);
    this.capacity = capacity;
    this.buf = new Float64Array(capacity);
  }

  get length(): number {
    return this.len;
  }

  get full(): boolean {
    return this.len === this.capacity;
  }

  push(x: number): number {
    if (this.len < this.capacity) {
      let i = this.head + this.len;
      if (i >= this.capacity) i -= this.capacity;
      this.buf[i] = x;
      this.len++;
      return NaN;
    }
    const old = this.buf[this.head]!;
    this.buf[this.head] = x;
    this.head++;
    if (this.head === this.capacity) this.head = 0;
    return old;
  }

  /** Element i, 0 = oldest. Unchecked beyond `length`. */
  at(i: number): number {
    let j = this.head + i;
    if (j >= this.capacity) j -= this.capacity;
    return this.buf[j]!;
  }

  /** The most recent element (NaN when empty). */
  last(): number {
    return this.len === 0 ? NaN : this.at(this.len - 1);
  }

  clear(): void {
    this.head = 0;
    this.len = 0;
  }
}

/**
 * Rolling maximum (or minimum) over the last `period` pushes, amortised O(1): a monotonic deque of
 * (value, sequence) pairs kept in two Float64Arrays of size `period`.
 */
export class RollingExtreme {
  readonly period: number;
  private readonly vals: Float64Array;
  private readonly seqs: Float64Array;
  private head = 0;
  private size = 0;
  private seq = 0;
  private readonly sign: number;

  constructor(period: number, kind: 'max' | 'min') {
    checkPeriod('period', period);
    this.period = period;
    this.vals = new Float64Array(period);
    this.seqs = new Float64Array(period);
    this.sign = kind === 'max' ? 1 : -1;
  }

  /** Adds x and returns the extreme of the last `period` values (including x). */
  push(x: number): number {
    const cap = this.period;
    const s = this.sign * x;
    // first drop from the front what leaves the window, so at most period-1 entries remain
    const oldest = this.seq - cap + 1;
    while (this.size > 0 && this.seqs[this.head]! < oldest) {
      this.head++;
      if (this.head === cap) this.head = 0;
      this.size--;
    }
    // drop from the back every value dominated by x
    while (this.size > 0) {
      let back = this.head + this.size - 1;
      if (back >= cap) back -= cap;
      if (this.sign * this.vals[back]! <= s) this.size--;
      else break;
    }
    let tail = this.head + this.size;
    if (tail >= cap) tail -= cap;
    this.vals[tail] = x;
    this.seqs[tail] = this.seq;
    this.size++;
    this.seq++;
    return this.vals[this.head]!;
  }

  get value(): number {
    return this.size === 0 ? NaN : this.vals[this.head]!;
  }

  clear(): void {
    this.head = 0;
    this.size = 0;
    this.seq = 0;
  }
}
