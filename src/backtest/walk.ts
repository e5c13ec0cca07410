/**
 * The backtest's walk: every market's candles in time order on one simulated clock (runBacktest's
 * loop; see run.ts for what happens at each candle close). `steps` walks synchronously while nothing
 * has to be waited for; `walk` awaits each pause and steps on from the context.
 */
import { Bar } from '../strategy/bar.js';
import type { BacktestOptions } from './options.js';
import type { Harness } from './setup.js';
import type { CloseBook } from './views.js';
import type { CandleSlot } from '../kernel/market-prices.js';
import type { Series } from './data.js';
import type { BacktestSchedules } from './schedules.js';
import { equityValuer } from './equity-value.js';
import { EquityRecorder } from './equity-record.js';
import { MAIN_ACCOUNT } from '../core/account.js';

/** Let the strategies handle what the last step queued; a promise only when there is something to wait for. */
function drain(h: Harness): void | Promise<void> {
  while (h.changes.takeEvents()) {
    const p = h.core.idle();
    if (p) return p.then(() => drain(h));
  }
}

/**
 * The candles of the resolutions the strategies declared (`candles:`), shown as the clock passes
 * their close: `advance(t)` puts every one closed by `t` (ms) into its window, before the
 * strategies act at `t`. Undefined when none is declared (the walk then pays nothing for it).
 */
export function declaredFeed(h: Harness, declared: Series[]): ((tMs: number) => void) | undefined {
  if (declared.length === 0) return undefined;
  const next = new Int32Array(declared.length);
  const feeds = declared.map((s) => h.core.barFeed(s.symbol, s.resSec));
  return (tMs) => {
    for (let j = 0; j < declared.length; j++) {
      const s = declared[j]!;
      const feed = feeds[j]!;
      let i = next[j]!;
      for (; i < s.length && (s.time[i]! + s.resSec) * 1000 <= tMs; i++) void feed(Bar.fromColumns(s, i, s.resSec));
      next[j] = i;
    }
  };
}

/** Where the walk is at its close time `t`: next comes the time itself (schedule ticks before it, the start sample), or its markets from `j` on. */
const NEXT_TIME = 0;
const MARKETS = 1;

/**
 * One walk's context: the harness and the markets' series with what is looked up once per market,
 * the schedules, the range and progress options, and the equity curve it fills.
 */
interface Walk {
  h: Harness;
  series: Series[];
  /** Per market: the index of its next candle, its book, its live-order set, its bar feed, whether a strategy handles its book. */
  ptr: Int32Array;
  books: CloseBook[];
  /** The kernel's candle slots of the markets (their last prices: the closes, kernel/market-prices.ts). */
  slots: CandleSlot[];
  live: Set<string>[];
  feeds: ((bar: Bar) => void | Promise<void>)[];
  bookListeners: boolean[];
  schedules: BacktestSchedules;
  /** The declared resolutions' candles closed by a time (declaredFeed), if any is declared. */
  advance: ((tMs: number) => void) | undefined;
  fromMs: number;
  /** Candles in the run, and the progress callback's period. */
  total: number;
  every: number;
  /** The next `done` that is a multiple of `every` (-1: `every` is not a positive integer, so each count is tested). */
  progressAt: number;
  opts: BacktestOptions;
  /** The equity curve: one sample per candle close at or after `from`, plus the first. */
  equity: EquityRecorder;
  /** The account's value now (fed to the protections that watch the equity, at the sample's time). */
  valuer: (t: number) => number;
  /** Candles walked. */
  done: number;
  /** Whether the first sample (the equity before any strategy acts at or after `from`) was taken. */
  started: boolean;
  /** Where the walk is (steps): the close time at hand, the next market to look at, and the phase. */
  t: number;
  j: number;
  phase: number;
  /** Market `j`'s path at `t` was played (and whether a margin position was open there before it): its close is next. */
  played: boolean;
  playedMargin: boolean;
}

/** A walk's context with everything looked up once: per market, and the equity valuer. */
export function walkContext(o: Pick<Walk, 'h' | 'series' | 'fromMs' | 'total' | 'opts' | 'schedules' | 'advance'>): Walk {
  const { h, series, opts, advance, fromMs } = o;
  // The curve's points, counted ahead: the first sample (before any strategy acts at or after `from`)
  // and one per distinct close at or after `from`; without such a close, the first sample only when
  // the clock is already there (walk's start).
  const closes = closesFrom(series, fromMs);
  const points = closes > 0 ? closes + 1 : h.clock.now() >= fromMs ? 1 : 0;
  const value = equityValuer(h, series, h.unpriced, h.unvalued);
  // The protections that watch the equity (drawdown, daily loss) get every sample, as live gets its snapshots.
  const valuer = h.kernel.equity.watched
    ? (t: number) => {
        const v = value(t);
        h.kernel.equity.record(t, v);
        return v;
      }
    : value;
  const every = opts.progressEvery ?? 50_000;
  const feeds = series.map((s): ((bar: Bar) => void | Promise<void>) => {
    const feed = h.core.barFeed(s.symbol, s.resSec);
    if (!advance) return feed;
    // The declared resolutions' candles closed by this candle's close (the clock is there) first.
    return (bar) => {
      advance(h.clock.now());
      return feed(bar);
    };
  });
  return {
    ...o,
    ptr: new Int32Array(series.length),
    books: series.map((s) => h.books.get(s.symbol)!),
    slots: series.map((s) => h.kernel.prices.candleSlot(s.symbol)),
    live: series.map((s) => h.liveSet(s.symbol)),
    feeds,
    bookListeners: series.map((s) => h.core.listens(s.symbol, 'book')),
    every,
    progressAt: Number.isInteger(every) && every > 0 ? every : -1,
    opts,
    equity: new EquityRecorder(points, opts.equityPoints ?? 2000),
    valuer,
    done: 0,
    started: false,
    t: Number.NaN,
    j: 0,
    phase: NEXT_TIME,
    played: false,
    playedMargin: false,
  };
}

/** The distinct candle closes (ms) of the markets at or after `fromMs`. */
function closesFrom(series: readonly Series[], fromMs: number): number {
  // One market: the merge below takes its candles one at a time, so it counts those closing at or
  // after `fromMs`; counted here in one pass over its times (no merge step per candle).
  if (series.length === 1) {
    const { time, length, resSec } = series[0]!;
    let n = 0;
    for (let i = 0; i < length; i++) if ((time[i]! + resSec) * 1000 >= fromMs) n++;
    return n;
  }
  const ptr = series.map(() => 0);
  let n = 0;
  for (;;) {
    let t = Infinity;
    for (let j = 0; j < series.length; j++) {
      const s = series[j]!;
      const i = ptr[j]!;
      if (i < s.length) {
        const c = (s.time[i]! + s.resSec) * 1000;
        if (c < t) t = c;
      }
    }
    if (t === Infinity) return n;
    if (t >= fromMs) n++;
    for (let j = 0; j < series.length; j++) {
      const s = series[j]!;
      const i = ptr[j]!;
      if (i < s.length && (s.time[i]! + s.resSec) * 1000 === t) ptr[j] = i + 1;
    }
  }
}

/** An equity sample at `t`. */
function sample(w: Walk, t: number): void {
  w.equity.add(t, w.valuer(t));
}

/** The first equity sample, at `t`: before any strategy acts at or after `from`. */
function startSample(w: Walk, t: number): void {
  w.started = true;
  sample(w, t);
}

/**
 * The first sample at a candle close `t`: every market closing then valued at its close, before any
 * path is played or handler runs (the books are put back; the candle steps set them in turn).
 */
function startSampleAtClose(w: Walk, t: number): void {
  const { series, books, ptr } = w;
  const prev = books.map((b) => b.price);
  for (let j = 0; j < series.length; j++) if (closesAt(series[j]!, ptr[j]!, t)) books[j]!.set(series[j]!.close[ptr[j]!]!);
  startSample(w, t);
  for (let j = 0; j < series.length; j++) books[j]!.set(prev[j]!);
}

/** Whether candle `i` of `s` exists and closes at `t` (ms). */
function closesAt(s: Series, i: number, t: number): boolean {
  return i < s.length && (s.time[i]! + s.resSec) * 1000 === t;
}

/** Fire every schedule tick due at or before `until` (in time order), each at its own time. */
async function fireSchedules(w: Walk, until: number): Promise<void> {
  const { h, schedules } = w;
  for (let t = schedules.peek(); t <= until; t = schedules.peek()) {
    if (!w.started && t >= w.fromMs) startSample(w, t);
    if (t > h.clock.now()) h.clock.set(t);
    w.advance?.(h.clock.now());
    for (const name of schedules.take(t)) await h.core.onSchedule(name, t);
    h.changes.eventsQueued();
    await drain(h);
  }
}

/**
 * The one step path: every candle close of every market, in time order (schedule ticks between
 * them). `steps` walks synchronously for as long as nothing has to be waited for (a candle makes a
 * promise only for an order's path, an async handler or events to deliver), so a quiet stretch of
 * candles makes no promise and awaits nothing; when a step returns a promise, the walk resumes from
 * the context (`phase`, `t`, `j`, `played`) once it settles: `walk` awaits it, then steps again.
 */
export async function walk(w: Walk): Promise<EquityRecorder> {
  const h = w.h;
  // A run that starts at its first candle's open (no warm-up candle before `from`): the start
  // sample is the account then, before onStart can act (valued at the first candles' opens).
  if (h.clock.now() >= w.fromMs) startSample(w, h.clock.now());
  w.advance?.(h.clock.now());
  await h.core.start();
  await drain(h);
  // Each pause is awaited here and the walk resumes from its context: a promise that resolved
  // with the rest of the walk would chain one promise per pause until the run ends.
  for (let p = steps(w); p; p = steps(w)) await p;
  w.opts.onProgress?.(w.done, w.total);
  return w.equity;
}

/** Walk from where the context says until the end, or until a step has to wait (then: what it waits for; the caller steps again once it settles). */
function steps(w: Walk): void | Promise<void> {
  const { h, series, schedules, ptr, live, books, slots, feeds, bookListeners } = w;
  const { clock, changes, core } = h;
  const k = series.length;
  for (;;) {
    if (w.phase === NEXT_TIME) {
      // The earliest close among the markets' next candles.
      let t = Infinity;
      for (let j = 0; j < k; j++) {
        const s = series[j]!;
        const i = ptr[j]!;
        if (i < s.length) {
          const c = (s.time[i]! + s.resSec) * 1000;
          if (c < t) t = c;
        }
      }
      if (t === Infinity) return;
      w.t = t;
      w.j = 0;
      w.phase = MARKETS;
      if (schedules.size > 0) {
        return fireSchedules(w, t - 1).then(() => beginClose(w, t));
      }
      if (!w.started && t >= w.fromMs) startSampleAtClose(w, t);
    }
    const t = w.t;
    while (w.j < k) {
      const j = w.j;
      const s = series[j]!;
      const i = ptr[j]!;
      if (i >= s.length || (s.time[i]! + s.resSec) * 1000 !== t) {
        w.j++;
        continue;
      }
      // 1. With an order resting or a margin position open in this market, the candle's path first
      //    (fills, stops, margin triggers); the walk comes back here for the close once it is played.
      let margin: boolean;
      if (w.played) {
        w.played = false;
        margin = w.playedMargin;
      } else {
        margin = h.marginMarkets.size > 0 && h.marginMarkets.has(s.symbol);
        if (live[j]!.size > 0 || margin) {
          w.played = true;
          w.playedMargin = margin;
          return playPath(w, j, i, margin);
        }
      }
      w.j++;
      ptr[j] = i + 1;
      // 2. The clock and the market's book move to the close; the closed candle goes to the strategies.
      if (t > clock.now()) clock.set(t);
      h.candleClosed(j, i);
      books[j]!.set(s.close[i]!);
      const slot = slots[j]!;
      slot.px = s.close[i]!;
      slot.at = t;
      const r = feeds[j]!(Bar.fromColumns(s, i, s.resSec));
      if (r) {
        return r.then(() => {
          changes.eventsQueued();
          return afterHandlers(w, j, t, margin);
        });
      }
      // Events the handler's intents raised (a denial) are delivered before the next candle, as live.
      if (core.busy) changes.eventsQueued();
      // 3. Book handlers, the margin monitor and queued events, when there are any.
      if (margin || changes.eventsPending() || bookListeners[j]) {
        const p = afterHandlers(w, j, t, margin);
        if (p) return p;
        continue;
      }
      // candleDone, inline: the hot path's calls are kept few, so the strategy's handler is inlined here.
      if (changes.takeMargin()) h.refreshMargin();
      if (++w.done === w.progressAt || (w.progressAt < 0 && w.done % w.every === 0)) progress(w);
    }
    // Every market closing at t has been handled: the schedule ticks at t, then the equity sample.
    w.phase = NEXT_TIME;
    if (schedules.size > 0) {
      return fireSchedules(w, t).then(() => endClose(w, t));
    }
    if (t >= w.fromMs) {
      // sample, inline
      w.equity.add(t, w.valuer(t));
    }
  }
}

/** Before the first market closing at `t` is handled: the start sample if this is the first time at or after `from`. */
function beginClose(w: Walk, t: number): void {
  if (!w.started && t >= w.fromMs) startSampleAtClose(w, t);
}

/** After everything at `t`: the equity sample. */
function endClose(w: Walk, t: number): void {
  if (t >= w.fromMs) sample(w, t);
}

/** The candle's path into the simulated exchange (fills, stops, margin triggers), and what it raised delivered. */
async function playPath(w: Walk, j: number, i: number, margin: boolean): Promise<void> {
  const h = w.h;
  h.fill.play(w.series[j]!.symbol, i);
  if (margin) {
    await h.core.executor.syncMargin(MAIN_ACCOUNT);
    h.refreshMargin();
    h.changes.balancesMoved();
  }
  await drain(h);
}

/** After the candle's handlers: book handlers, the margin monitor, queued events, then the candle is done. */
function afterHandlers(w: Walk, j: number, t: number, margin: boolean): void | Promise<void> {
  const h = w.h;
  if (w.bookListeners[j] && t >= w.fromMs) {
    h.core.onBook(w.series[j]!.symbol, w.books[j]!);
    h.changes.eventsQueued();
  }
  if (margin) return watchMargin(w, j).then(() => candleDone(w));
  if (h.changes.eventsPending()) {
    const d = drain(h);
    if (d) return d.then(() => candleDone(w));
  }
  candleDone(w);
}

/**
 * The margin monitor at the new close, as live evaluates it on every book update of a market with an
 * open position (risk.marginMonitor: warn, top up, close); then what it raised delivered.
 */
async function watchMargin(w: Walk, j: number): Promise<void> {
  const h = w.h;
  h.kernel.marginWatch.onPrice(w.series[j]!.symbol);
  await h.kernel.marginWatch.idle();
  h.changes.eventsQueued();
  await drain(h);
}

/** A candle handled: margin positions re-read if they changed, progress. */
function candleDone(w: Walk): void {
  const h = w.h;
  if (h.changes.takeMargin()) h.refreshMargin();
  if (++w.done === w.progressAt || (w.progressAt < 0 && w.done % w.every === 0)) progress(w);
}

/**
 * The progress callback at every `every`-th candle. The walk counts to the next multiple rather
 * than dividing per candle (a remainder of numbers V8 does not know to be small integers is a
 * floating-point call, most of the cost of an empty candle's bookkeeping).
 */
function progress(w: Walk): void {
  if (w.progressAt > 0) w.progressAt += w.every;
  w.opts.onProgress?.(w.done, w.total);
}
