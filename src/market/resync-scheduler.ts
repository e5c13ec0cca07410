/**
 * Schedules REST resyncs of books: one in flight per symbol, at most one per `minIntervalMs` per
 * symbol, exponential backoff after a failure (`backoffBaseMs` doubling up to `backoffMaxMs`), and
 * symbols that fall due together are handed over in one batch (so the caller can use `/v2/depth/all`).
 * Requests while a resync is in flight are remembered and run after it: no resync storm.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Timers } from './ports.js';

export interface ResyncSchedulerOptions {
  minIntervalMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}

export const DEFAULT_RESYNC_OPTIONS: ResyncSchedulerOptions = {
  minIntervalMs: 500,
  backoffBaseMs: 250,
  backoffMaxMs: 30_000,
};

/** Resyncs the given symbols; resolves to the set of symbols that succeeded. Must not reject. */
export type ResyncRunner = (symbols: string[]) => Promise<Set<string>>;

interface SymbolState {
  nextAt: number;
  failures: number;
  inFlight: boolean;
  again: boolean;
}

export class ResyncScheduler {
  private readonly states = new Map<string, SymbolState>();
  private readonly pending = new Set<string>();
  private timer: unknown;
  private timerAt = Infinity;
  private stopped = false;

  constructor(
    private readonly deps: { clock: Clock; timers: Timers; logger: Logger; run: ResyncRunner },
    private readonly options: ResyncSchedulerOptions = DEFAULT_RESYNC_OPTIONS,
  ) {}

  /** Ask for a resync of `symbol` as soon as its interval/backoff allows. */
  request(symbol: string): void {
    if (this.stopped) return;
    const st = this.state(symbol);
    if (st.inFlight) {
      st.again = true;
      return;
    }
    this.pending.add(symbol);
    this.schedule();
  }

  /** Record the outcome of a resync the caller ran itself (e.g. the cold start). */
  record(symbol: string, ok: boolean): void {
    const st = this.state(symbol);
    const now = this.deps.clock.now();
    if (ok) {
      st.failures = 0;
      st.nextAt = now + this.options.minIntervalMs;
    } else {
      st.failures++;
      st.nextAt = now + this.backoff(st.failures);
    }
  }

  isInFlight(symbol: string): boolean {
    return this.states.get(symbol)?.inFlight ?? false;
  }

  isPending(symbol: string): boolean {
    return this.pending.has(symbol);
  }

  failures(symbol: string): number {
    return this.states.get(symbol)?.failures ?? 0;
  }

  forget(symbol: string): void {
    this.pending.delete(symbol);
    this.states.delete(symbol);
  }

  stop(): void {
    this.stopped = true;
    this.pending.clear();
    if (this.timer !== undefined) this.deps.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private backoff(failures: number): number {
    return Math.min(this.options.backoffMaxMs, this.options.backoffBaseMs * 2 ** Math.min(failures - 1, 30));
  }

  private state(symbol: string): SymbolState {
    let st = this.states.get(symbol);
    if (!st) {
      st = { nextAt: 0, failures: 0, inFlight: false, again: false };
      this.states.set(symbol, st);
    }
    return st;
  }

  private schedule(): void {
    if (this.stopped) return;
    let earliest = Infinity;
    for (const s of this.pending) earliest = Math.min(earliest, this.state(s).nextAt);
    if (earliest === Infinity) return;
    const now = this.deps.clock.now();
    const at = Math.max(earliest, now);
    if (this.timer !== undefined && this.timerAt <= at) return;
    if (this.timer !== undefined) this.deps.timers.clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = this.deps.timers.setTimeout(() => this.flush(), at - now);
  }

  private flush(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    if (this.stopped) return;
    const now = this.deps.clock.now();
    const due: string[] = [];
    for (const s of this.pending) {
      const st = this.state(s);
      if (!st.inFlight && st.nextAt <= now) due.push(s);
    }
    for (const s of due) {
      this.pending.delete(s);
      this.state(s).inFlight = true;
    }
    if (due.length > 0) void this.execute(due);
    this.schedule();
  }

  private async execute(symbols: string[]): Promise<void> {
    let ok = new Set<string>();
    try {
      ok = await this.deps.run(symbols);
    } catch (err) {
      this.deps.logger.error({ err, symbols }, 'book resync runner threw');
    }
    for (const s of symbols) {
      const st = this.states.get(s);
      if (!st) continue; // forgotten while in flight
      st.inFlight = false;
      const success = ok.has(s);
      this.record(s, success);
      if (!success || st.again) this.pending.add(s);
      st.again = false;
    }
    this.schedule();
  }
}
