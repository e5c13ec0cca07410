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

const DAY_MS = 86_400_000;
let isoDay = Number.NaN;
let isoPrefix = '';
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * `new Date(ms).toISOString()` for integer ms, with the date part made once per day (backtests
 * stamp thousands of orders a day). Anything else (fractions, NaN, out of range) goes through Date.
 */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms > 8.64e15 || ms < -8.64e15) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  if (day !== isoDay) {
    const prefix = new Date(day * DAY_MS).toISOString();
    isoPrefix = prefix.slice(0, prefix.indexOf('T') + 1);
    isoDay = day;
  }
  let r = ms - day * DAY_MS;
  const h = Math.floor(r / 3_600_000);
  r -= h * 3_600_000;
  const m = Math.floor(r / 60_000);
  r -= m * 60_000;
  const s = Math.floor(r / 1000);
  const milli = r - s * 1000;
  return `${isoPrefix}${pad2(h)}:${pad2(m)}:${pad2(s)}.${milli < 10 ? `00${milli}` : milli < 100 ? `0${milli}` : milli}Z`;
}
