/**
 * Virtual time of a book backtest: the Timers port on the run's ManualClock. Nothing fires by
 * itself: the replay driver (replay.ts) fires what is due, in time order, before each recorded
 * event, moving the clock to each timer's own time, so the market-data engine's housekeeping, its
 * resync backoff, the execution engine's waits and the venue's latencies happen at the simulated
 * moments they would have happened live. Timers due at the same time fire in the order they were set.
 */
import type { ManualClock } from '../../core/clock.js';
import type { Timers } from '../../core/timers.js';

interface Entry {
  at: number;
  seq: number;
  fn: () => void;
  /** Repeat period (intervals), else undefined. */
  every: number | undefined;
  cancelled: boolean;
}

export class VirtualTime implements Timers {
  /** Pending entries, earliest last (popped from the end). */
  private queue: Entry[] = [];
  private seq = 0;

  constructor(readonly clock: ManualClock) {}

  setTimeout(fn: () => void, ms: number): unknown {
    return this.add(fn, ms, undefined);
  }

  setInterval(fn: () => void, ms: number): unknown {
    if (!(ms > 0)) throw new RangeError(`setInterval needs a period above 0 ms, got ${ms}`);
    return this.add(fn, ms, ms);
  }

  clearTimeout(handle: unknown): void {
    if (handle) (handle as Entry).cancelled = true;
  }

  clearInterval(handle: unknown): void {
    this.clearTimeout(handle);
  }

  /** Resolves when the clock reaches `ms` (at once, on the next fire, when it already has). */
  at(ms: number): Promise<void> {
    return new Promise((resolve) => this.add(resolve, Math.max(0, ms - this.clock.now()), undefined));
  }

  /** A wait of `ms` simulated milliseconds (the execution engine's lookups and retries). */
  sleep(ms: number): Promise<void> {
    return this.at(this.clock.now() + Math.max(0, ms));
  }

  /** When the next timer is due (Infinity when none is pending). */
  nextAt(): number {
    this.dropCancelled();
    const q = this.queue;
    return q.length > 0 ? q[q.length - 1]!.at : Infinity;
  }

  /** Fire the earliest pending timer, the clock moved to its time first. False when none is pending. */
  fireNext(): boolean {
    this.dropCancelled();
    const e = this.queue.pop();
    if (!e) return false;
    if (e.at > this.clock.now()) this.clock.set(e.at);
    if (e.every !== undefined) {
      e.at += e.every;
      e.seq = ++this.seq;
      this.insert(e);
    }
    e.fn();
    return true;
  }

  /** Cancel every pending timer (the end of a run). */
  clear(): void {
    for (const e of this.queue) e.cancelled = true;
    this.queue = [];
  }

  private add(fn: () => void, ms: number, every: number | undefined): Entry {
    const delay = Number.isFinite(ms) && ms > 0 ? ms : 0;
    const e: Entry = { at: this.clock.now() + delay, seq: ++this.seq, fn, every, cancelled: false };
    this.insert(e);
    return e;
  }

  /** Keep the queue sorted: latest (and, at one time, last set) first. */
  private insert(e: Entry): void {
    const q = this.queue;
    let lo = 0;
    let hi = q.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const m = q[mid]!;
      if (m.at > e.at || (m.at === e.at && m.seq > e.seq)) lo = mid + 1;
      else hi = mid;
    }
    q.splice(lo, 0, e);
  }

  private dropCancelled(): void {
    const q = this.queue;
    while (q.length > 0 && q[q.length - 1]!.cancelled) q.pop();
  }
}
