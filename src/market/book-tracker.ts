/**
 * Keeps the local books of many markets and their health. Stream sides are checked on every apply
 * (malformed, unsorted, crossed); a failed check, a side older than `maxSideAgeMs`, or a stream that
 * went down marks the book stale and asks for a REST resync through the DepthSource (batched,
 * rate-limited and backed off by ResyncScheduler). A book is healthy again once both sides were
 * replaced by good snapshots. Every change of health is an event, emitted after the state changed;
 * so is every book change (`book`), which carries the health, so a listener is never handed a book
 * marked unhealthy without being told.
 */
import { EventEmitter } from 'eventemitter3';
import type { Clock } from '../core/clock.js';
import { type Logger, silentLogger } from '../core/logger.js';
import type { DepthSnapshot } from '../core/types/market.js';
import { type BookHealth, type SideReason, type StaleReason, sortReasons } from './book-health.js';
import { fetchDepths } from './depth-fetch.js';
import { UntrackedSymbolError } from './errors.js';
import { OrderBook } from './order-book.js';
import type { BookSide, DepthSource, RawDepth, RawLevel, Timers } from './ports.js';
import { realTimers } from './ports.js';
import { DEFAULT_RESYNC_OPTIONS, ResyncScheduler, type ResyncSchedulerOptions } from './resync-scheduler.js';

export interface BookTrackerOptions extends ResyncSchedulerOptions {
  /** A side not updated for longer than this is `side_too_old` (and resynced). 0 disables. */
  maxSideAgeMs: number;
  /**
   * Grace of a cross made by one side's stream update (ms). The exchange sends the two sides as
   * separate full snapshots, so a side that moved through the other side's older snapshot is a
   * transient: the book is reported `crossed` (unhealthy) and resynced only when the other side's
   * next update leaves it crossed, or when it is still crossed after this long. A REST snapshot
   * (both sides at once) that is crossed is crossed at once.
   */
  crossedGraceMs: number;
  /** Use `getAllDepths` (one request) when at least this many books are due together. */
  allDepthsThreshold: number;
}

export const DEFAULT_BOOK_TRACKER_OPTIONS: BookTrackerOptions = {
  ...DEFAULT_RESYNC_OPTIONS,
  maxSideAgeMs: 60_000,
  crossedGraceMs: 1_000,
  allDepthsThreshold: 3,
};

export interface BookTrackerDeps {
  depth: DepthSource;
  clock: Clock;
  timers?: Timers;
  logger?: Logger;
  options?: Partial<BookTrackerOptions>;
}

export interface BookTrackerEvents {
  health: (symbol: string, health: BookHealth) => void;
  book: (symbol: string, book: OrderBook, health: BookHealth) => void;
}

interface Tracked {
  book: OrderBook;
  side: Record<BookSide, Set<SideReason>>;
  crossedSince: number | undefined;
  crossedBy: BookSide | undefined;
  /** The current cross is not a transient (see crossedGraceMs): reported and resynced. */
  crossConfirmed: boolean;
  /** Crosses that ended within their grace (the other side's update uncrossed the book). */
  transientCrosses: number;
  key: string;
  reasons: StaleReason[];
  changedAt: number;
  resyncs: number;
  resyncFailures: number;
  lastResyncAt: number | undefined;
  rejected: number;
}

const NO_REASONS: StaleReason[] = [];

/** A fresh array of the set's members (a healthy side's empty set without iterating it). */
function listOf<T>(set: Set<T>): T[] {
  return set.size === 0 ? [] : [...set];
}

export class BookTracker extends EventEmitter<BookTrackerEvents> {
  private readonly books = new Map<string, Tracked>();
  private readonly scheduler: ResyncScheduler;
  private readonly opts: BookTrackerOptions;
  private readonly log: Logger;
  private readonly downConnections = new Set<unknown>();

  constructor(private readonly deps: BookTrackerDeps) {
    super();
    this.opts = { ...DEFAULT_BOOK_TRACKER_OPTIONS, ...deps.options };
    this.log = deps.logger ?? silentLogger;
    this.scheduler = new ResyncScheduler({ clock: deps.clock, timers: deps.timers ?? realTimers, logger: this.log, run: (s) => this.resync(s) }, this.opts);
  }

  track(symbol: string): OrderBook {
    const existing = this.books.get(symbol);
    if (existing) return existing.book;
    const t: Tracked = {
      book: new OrderBook(symbol),
      side: { bid: new Set(), ask: new Set() },
      crossedSince: undefined,
      crossedBy: undefined,
      crossConfirmed: false,
      transientCrosses: 0,
      key: '',
      reasons: [],
      changedAt: this.deps.clock.now(),
      resyncs: 0,
      resyncFailures: 0,
      lastResyncAt: undefined,
      rejected: 0,
    };
    if (this.streamDown) for (const s of ['bid', 'ask'] as const) t.side[s].add('stream_down');
    this.books.set(symbol, t);
    t.reasons = this.reasonsOf(t, t.changedAt);
    t.key = t.reasons.join(',');
    return t.book;
  }

  untrack(symbol: string): void {
    this.books.delete(symbol);
    this.scheduler.forget(symbol);
  }

  symbols(): string[] {
    return [...this.books.keys()];
  }

  isTracked(symbol: string): boolean {
    return this.books.has(symbol);
  }

  book(symbol: string): OrderBook {
    return this.get(symbol).book;
  }

  health(symbol: string): BookHealth {
    return this.healthOf(this.get(symbol), this.deps.clock.now());
  }

  get streamDown(): boolean {
    return this.downConnections.size > 0;
  }

  /** A stream side (`@buyDepth` / `@sellDepth`). Returns whether it was applied. */
  applySide(symbol: string, side: BookSide, levels: ArrayLike<RawLevel>): boolean {
    const t = this.books.get(symbol);
    if (!t) return false;
    const now = this.deps.clock.now();
    const rejection = t.book.applySide(side, levels, now);
    if (rejection) {
      t.rejected++;
      t.side[side].add(rejection.problem);
      this.log.warn({ symbol, side, ...rejection }, 'order book side refused; resyncing');
      this.evaluate(t, now);
      this.scheduler.request(symbol);
      return false;
    }
    this.sideReplaced(t, side);
    this.checkCrossed(t, side, now);
    this.evaluate(t, now);
    this.emit('book', symbol, t.book, this.healthOf(t, now));
    return true;
  }

  /** Apply a REST snapshot directly (cold start from outside, tests). Returns whether it was good. */
  applySnapshot(symbol: string, depth: RawDepth | DepthSnapshot): boolean {
    const t = this.books.get(symbol);
    if (!t) return false;
    return this.applyRest(t, depth, t.book.bids.version, t.book.asks.version, this.deps.clock.now());
  }

  /** A stream connection went down (`id` distinguishes several connections). All books go stale. */
  connectionDown(id: unknown = 'default'): void {
    this.downConnections.add(id);
    const now = this.deps.clock.now();
    for (const t of this.books.values()) {
      t.side.bid.add('stream_down');
      t.side.ask.add('stream_down');
      this.evaluate(t, now);
    }
  }

  /** A stream connection is back. When none is down any more, every stale book is resynced. */
  connectionUp(id: unknown = 'default'): void {
    this.downConnections.delete(id);
    if (this.downConnections.size === 0) for (const s of this.books.keys()) this.scheduler.request(s);
  }

  /** The stream client reported a depth channel stale. */
  channelStale(symbol: string, side: BookSide): void {
    const t = this.books.get(symbol);
    if (!t) return;
    t.side[side].add('channel_stale');
    this.evaluate(t, this.deps.clock.now());
    this.scheduler.request(symbol);
  }

  /** The channel delivers again; its side was replaced by that delivery (or will be at once). */
  channelFresh(symbol: string, side: BookSide): void {
    const t = this.books.get(symbol);
    if (!t || !t.side[side].delete('channel_stale')) return;
    this.evaluate(t, this.deps.clock.now());
  }

  /** Periodic check: side ages and crossed books that did not recover. */
  tick(): void {
    const now = this.deps.clock.now();
    for (const [symbol, t] of this.books) {
      const grace = t.crossedSince !== undefined && now - t.crossedSince >= this.opts.crossedGraceMs;
      if (grace) t.crossConfirmed = true;
      this.evaluate(t, now);
      if (grace || t.reasons.includes('side_too_old')) this.scheduler.request(symbol);
    }
  }

  /** Fetch snapshots for `symbols` now (cold start). Failures are retried with backoff. */
  async coldStart(symbols: string[]): Promise<{ synced: string[]; failed: string[] }> {
    for (const s of symbols) this.track(s);
    const ok = await this.fetchAndApply(symbols);
    const failed: string[] = [];
    for (const s of symbols) {
      this.scheduler.record(s, ok.has(s));
      if (!ok.has(s)) {
        failed.push(s);
        this.scheduler.request(s);
      }
    }
    return { synced: symbols.filter((s) => ok.has(s)), failed };
  }

  /** Request a REST resync of one book (rate-limited like every other). */
  requestResync(symbol: string): void {
    if (this.books.has(symbol)) this.scheduler.request(symbol);
  }

  stop(): void {
    this.scheduler.stop();
  }

  private get(symbol: string): Tracked {
    const t = this.books.get(symbol);
    if (!t) throw new UntrackedSymbolError(symbol);
    return t;
  }

  /** Scheduler runner: skip books that recovered meanwhile, fetch the others. */
  private async resync(symbols: string[]): Promise<Set<string>> {
    const ok = new Set<string>();
    const todo: string[] = [];
    for (const s of symbols) {
      const t = this.books.get(s);
      if (!t) continue;
      if (t.reasons.length === 0) ok.add(s);
      else todo.push(s);
    }
    if (todo.length > 0) for (const s of await this.fetchAndApply(todo)) ok.add(s);
    return ok;
  }

  private async fetchAndApply(symbols: string[]): Promise<Set<string>> {
    const ok = new Set<string>();
    const versions = new Map<string, [number, number]>();
    for (const s of symbols) {
      const t = this.books.get(s);
      if (t) versions.set(s, [t.book.bids.version, t.book.asks.version]);
    }
    const outcomes = await fetchDepths(this.deps.depth, symbols, this.opts.allDepthsThreshold);
    for (const [s, outcome] of outcomes) {
      const t = this.books.get(s);
      const v = versions.get(s);
      if (!t || !v) continue; // untracked meanwhile
      if (!outcome.ok) {
        t.resyncFailures++;
        this.log.warn({ symbol: s, err: outcome.error }, 'order book resync failed');
      } else if (this.applyRest(t, outcome.depth, v[0], v[1], this.deps.clock.now())) ok.add(s);
      else t.resyncFailures++;
    }
    return ok;
  }

  /**
   * Apply a REST snapshot. A side that the stream replaced after the request was sent is newer than
   * the snapshot and is kept. Good = every applied side valid and the book not crossed.
   */
  private applyRest(t: Tracked, depth: RawDepth | DepthSnapshot, bidV: number, askV: number, now: number): boolean {
    let good = true;
    for (const side of ['bid', 'ask'] as const) {
      const s = t.book.side(side);
      if (s.version !== (side === 'bid' ? bidV : askV)) continue;
      const rejection = s.replace(side === 'bid' ? depth.bids : depth.asks, now);
      if (rejection) {
        good = false;
        this.log.warn({ symbol: t.book.symbol, side, ...rejection }, 'REST depth side refused');
      } else this.sideReplaced(t, side);
    }
    if (t.book.isCrossed()) good = false;
    this.checkCrossed(t, 'bid', now, true);
    if (good) {
      t.resyncs++;
      t.lastResyncAt = now;
    }
    this.evaluate(t, now);
    this.emit('book', t.book.symbol, t.book, this.healthOf(t, now));
    return good;
  }

  private sideReplaced(t: Tracked, side: BookSide): void {
    const r = t.side[side];
    if (r.size === 0) return;
    r.delete('malformed');
    r.delete('unsorted');
    r.delete('channel_stale');
    if (!this.streamDown) r.delete('stream_down');
  }

  /**
   * After `side` was replaced: a cross starts its grace (a transient until the other side's next
   * update, or until `crossedGraceMs`), is confirmed when the other side came and the book is still
   * crossed, and ends when the book is no longer crossed. `both`: both sides came together (REST).
   */
  private checkCrossed(t: Tracked, side: BookSide, now: number, both = false): void {
    if (!t.book.isCrossed()) {
      if (t.crossedSince !== undefined && !t.crossConfirmed) t.transientCrosses++;
      t.crossedSince = undefined;
      t.crossedBy = undefined;
      t.crossConfirmed = false;
      return;
    }
    if (t.crossedSince === undefined) {
      t.crossedSince = now;
      t.crossedBy = side;
      t.crossConfirmed = both || this.opts.crossedGraceMs <= 0;
    } else if (t.crossedBy !== side || both || now - t.crossedSince >= this.opts.crossedGraceMs) {
      // The other side was updated (or the grace is over) and the book is still crossed: not a transient.
      if (!t.crossConfirmed) this.scheduler.request(t.book.symbol);
      t.crossConfirmed = true;
    }
  }

  /** Crosses of a book that ended within their grace (not reported as unhealthy). */
  transientCrosses(symbol: string): number {
    return this.get(symbol).transientCrosses;
  }

  private reasonsOf(t: Tracked, now: number): StaleReason[] {
    const { bids, asks } = t.book;
    const max = this.opts.maxSideAgeMs;
    if (
      t.side.bid.size === 0 &&
      t.side.ask.size === 0 &&
      bids.version > 0 &&
      asks.version > 0 &&
      !(t.crossConfirmed && t.book.isCrossed()) &&
      (max <= 0 || (now - bids.updatedAt <= max && now - asks.updatedAt <= max))
    ) {
      return NO_REASONS; // the common case on the hot path: healthy, nothing allocated
    }
    const r: StaleReason[] = [...t.side.bid, ...t.side.ask];
    if (bids.version === 0 || asks.version === 0) r.push('initializing');
    if (t.crossConfirmed && t.book.isCrossed()) r.push('crossed');
    if (max > 0 && ((bids.updatedAt >= 0 && now - bids.updatedAt > max) || (asks.updatedAt >= 0 && now - asks.updatedAt > max))) {
      r.push('side_too_old');
    }
    return sortReasons(r);
  }

  private evaluate(t: Tracked, now: number): void {
    const reasons = this.reasonsOf(t, now);
    const key = reasons.length === 0 ? '' : reasons.join(',');
    if (key === t.key) return;
    t.key = key;
    t.reasons = reasons;
    t.changedAt = now;
    this.emit('health', t.book.symbol, this.healthOf(t, now));
  }

  private healthOf(t: Tracked, now: number): BookHealth {
    const { bids, asks } = t.book;
    return {
      symbol: t.book.symbol,
      healthy: t.reasons.length === 0,
      reasons: t.reasons.length === 0 ? [] : [...t.reasons],
      sideReasons: { bid: listOf(t.side.bid), ask: listOf(t.side.ask) },
      bidAgeMs: bids.updatedAt >= 0 ? now - bids.updatedAt : undefined,
      askAgeMs: asks.updatedAt >= 0 ? now - asks.updatedAt : undefined,
      lastUpdateAt: t.book.updatedAt >= 0 ? t.book.updatedAt : undefined,
      resyncs: t.resyncs,
      resyncFailures: t.resyncFailures,
      resyncing: this.scheduler.isInFlight(t.book.symbol),
      lastResyncAt: t.lastResyncAt,
      rejectedSides: t.rejected,
      changedAt: t.changedAt,
    };
  }
}
