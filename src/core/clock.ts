/**
 * Time comes from a Clock. Live and paper use the wall clock; backtests drive a ManualClock.
 * Nothing that makes a trading decision calls Date.now() directly.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }
}

/** A clock moved by hand (backtests, tests). Never goes backwards. */
export class ManualClock implements Clock {
  private t: number;
  constructor(startMs = 0) {
    this.t = startMs;
  }
  now(): number {
    return this.t;
  }
  set(ms: number): void {
    if (ms < this.t) throw new RangeError(`clock cannot go back from ${this.t} to ${ms}`);
    this.t = ms;
  }
  advance(ms: number): void {
    this.set(this.t + ms);
  }
}
