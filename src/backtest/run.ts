/**
 * `runBacktest(config, options)`: loads and checks the data, builds the harness (setup.ts), then
 * walks every market's candles in time order on one simulated clock. Per candle close T:
 *   1. if the account has an order resting or a margin position open in that market, the candle's
 *      path is played into the simulated exchange (fills, stops, margin triggers: fill-model.ts);
 *   2. the clock moves to T, the market's book view to the close, and the closed candle goes to the
 *      strategies (synchronously when their handlers are); intents go through risk and execution;
 *      orders placed now reach the exchange at the next open;
 *   3. with a margin position open in that market, the margin monitor evaluates it at the close;
 *   4. after every market closing at T has been handled, the equity is sampled (plain numbers).
 * The first sample is the equity at the first moment at or after `from` (a candle close or a
 * schedule tick), taken before any strategy acts then: the base of the total return is the account
 * before the run's first decision (its fees and fills come after it).
 * Candles before `from` warm the strategies up; their intents are denied (rule `warmup`).
 */
import { silentLogger, type Logger } from '../core/logger.js';
import type { MizanConfig } from '../config/schema.js';
import { loadStrategyInstances } from '../runtime/strategy-loader.js';
import type { StrategyInstance } from '../kernel/trading-core.js';
import { Bar } from '../strategy/bar.js';
import { loadData, type DataOptions } from './load.js';
import { buildResult, type BacktestResult } from './result.js';
import { BACKTEST_ACCOUNT, buildHarness, type Harness } from './setup.js';
import type { CloseBook } from './views.js';
import type { DataReport, Series } from './data.js';
import { parseMarginPosition } from '../exchange/parse/margin.js';
import { BacktestSchedules } from './schedules.js';
import { equityValuer, unpricedBalances } from './equity-value.js';
import { closeAtEnd } from './close-at-end.js';

export interface BacktestOptions extends DataOptions {
  /** Override the config's range (ms). */
  from?: number;
  to?: number;
  /** Parameter overrides per strategy instance name (sweeps). */
  params?: Record<string, Record<string, unknown>>;
  /** Already loaded instances (skip loading the strategy modules). */
  instances?: StrategyInstance[];
  logger?: Logger;
  /** Points kept in the result's equity curve (the metrics use every point). Default 2000. */
  equityPoints?: number;
  /** Called with the run's simulated clock once it exists (the CLI stamps log lines with it). */
  onClock?(clock: { now(): number }): void;
  /** Called with the data report before the run starts. */
  onDataReport?(report: DataReport): void;
  /** Called every `progressEvery` candles with (done, total). */
  onProgress?(done: number, total: number): void;
  progressEvery?: number;
}

export interface BacktestRun {
  result: BacktestResult;
  series: Series[];
  /** Candles walked (warm-up included). */
  candles: number;
}

/** Thrown when the data cannot support the run (a market without a candle in range). */
export class BacktestDataError extends Error {
  constructor(readonly report: DataReport) {
    super(`backtest data is missing:\n  ${report.problems.join('\n  ')}`);
    this.name = 'BacktestDataError';
  }
}

/** The config with parameter overrides applied (by instance name). */
export function withParams(config: MizanConfig, params: Record<string, Record<string, unknown>> | undefined): MizanConfig {
  if (!params) return config;
  for (const name of Object.keys(params)) {
    if (!config.strategies.some((s) => s.name === name)) throw new Error(`no strategy instance named ${name} in the config`);
  }
  return { ...config, strategies: config.strategies.map((s) => (params[s.name] ? { ...s, params: { ...s.params, ...params[s.name] } } : s)) };
}

export async function runBacktest(config: MizanConfig, opts: BacktestOptions = {}): Promise<BacktestRun> {
  const bt = config.backtest;
  if (!bt) throw new Error('the config has no backtest section (data, from, to)');
  const fromMs = opts.from ?? bt.from;
  const toMs = opts.to ?? bt.to;
  if (!(fromMs < toMs)) throw new Error(`backtest range is empty: from ${new Date(fromMs).toISOString()} is not before to ${new Date(toMs).toISOString()}`);
  const logger = opts.logger ?? silentLogger;
  const instances = opts.instances ?? (await loadStrategyInstances(withParams(config, opts.params)));
  const { series, report, declared } = await loadData(config, instances, fromMs, toMs, opts);
  const h = report.ok ? buildHarness({ config, instances, series, fromMs, logger }) : undefined;
  if (h) opts.onClock?.(h.clock); // [issue 16 item 10] log lines carry the simulated time
  if (h) {
    for (const asset of unpricedBalances(config, h, series)) {
      h.unpriced.add(asset);
      report.problems.push(`${asset}: the starting balance cannot be valued in ${h.reference} (no market of the run converts it): it is left out of the equity and the returns`);
    }
  }
  opts.onDataReport?.(report);
  if (!h) throw new BacktestDataError(report);
  const total = series.reduce((a, s) => a + s.length, 0);
  const firstClose = Math.min(...series.map((s) => (s.length > 0 ? (s.time[0]! + s.resSec) * 1000 : Infinity)));
  const schedules = new BacktestSchedules(config, instances, Math.max(fromMs, firstClose));
  let eq = await walk(h, series, fromMs, total, opts, schedules, declaredFeed(h, declared));
  await h.core.stop();
  await h.core.idle();
  if (bt.closeAtEnd) eq = await closeAtEnd(h, series, eq); // [issue 16 item 15] strategies stopped: sell what is open at the last close
  const lastT = h.clock.now();
  h.trades.closeOpen(lastT, (s) => h.books.get(s)?.mid());
  // Margin positions closed since the last refresh, then those still open: trades `open at end` at the last close.
  h.refreshMargin();
  for (const w of h.desks.margin.list(BACKTEST_ACCOUNT, { active: true })) {
    const p = parseMarginPosition(w);
    const mark = h.books.get(p.market)?.mid();
    if (mark) h.trades.addMargin(h.owners.owner(p) ?? 'unknown', p, h.desks.margin.costs(BACKTEST_ACCOUNT, p.id), mark, lastT);
  }
  h.desks.detach();
  const result = buildResult({ config, instances, fromMs, toMs, h, series, report, equity: eq, equityPoints: opts.equityPoints ?? 2000 });
  return { result, series, candles: total };
}

interface EquityCurve {
  times: Float64Array;
  values: Float64Array;
  length: number;
}

/** Let the strategies handle what the last step queued; a promise only when there is something to wait for. */
function drain(h: Harness): void | Promise<void> {
  while (h.dirty.events) {
    h.dirty.events = false;
    const p = h.core.idle();
    if (p) return p.then(() => drain(h));
  }
}

/**
 * The candles of the resolutions the strategies declared (`candles:`), shown as the clock passes
 * their close: `advance(t)` puts every one closed by `t` (ms) into its window, before the
 * strategies act at `t`. Undefined when none is declared (the walk then pays nothing for it).
 */
function declaredFeed(h: Harness, declared: Series[]): ((tMs: number) => void) | undefined {
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

/** Fire every schedule tick due at or before `until` (in time order), each at its own time. */
async function fireSchedules(h: Harness, schedules: BacktestSchedules, until: number, start: (t: number) => void, advance?: (tMs: number) => void): Promise<void> {
  for (let t = schedules.peek(); t <= until; t = schedules.peek()) {
    start(t);
    if (t > h.clock.now()) h.clock.set(t);
    advance?.(h.clock.now());
    for (const name of schedules.take(t)) await h.core.onSchedule(name, t);
    h.dirty.events = true;
    await drain(h);
  }
}

/** One walk's context: the harness, its range and progress options, and the equity curve it fills. */
interface Walk {
  h: Harness;
  fromMs: number;
  /** Candles in the run, and the progress callback's period. */
  total: number;
  every: number;
  opts: BacktestOptions;
  /** The equity curve: one sample per candle close at or after `from`, plus the first. */
  times: Float64Array;
  values: Float64Array;
  valuer: () => number;
  /** Equity samples taken. */
  n: number;
  /** Candles walked. */
  done: number;
  /** Whether the first sample (the equity before any strategy acts at or after `from`) was taken. */
  started: boolean;
  /** The quiet loop's handler promise of the candle it stopped in. */
  pending: void | Promise<void>;
}

/** An equity sample at `t`. */
function sample(w: Walk, t: number): void {
  w.times[w.n] = t;
  w.values[w.n] = w.valuer();
  w.n++;
}

/** The first equity sample, at `t`: before any strategy acts at or after `from`. */
function startSample(w: Walk, t: number): void {
  w.started = true;
  sample(w, t);
}

/** The steps after a candle's handlers: margin refresh, progress, and the equity sample (after the last market closing at t). */
function afterCandle(w: Walk, t: number, withSample: boolean): void {
  const h = w.h;
  if (h.dirty.margin) {
    h.dirty.margin = false;
    h.refreshMargin();
  }
  if (++w.done % w.every === 0) w.opts.onProgress?.(w.done, w.total);
  if (withSample && t >= w.fromMs) sample(w, t);
}

/** Where the quiet loop stopped: the end, a candle the general loop must take, or inside candle `i` (its handlers' promise to await). */
const QUIET_END = -1;
const QUIET_GENERAL = -2;

/**
 * The common stretch of a one-market run without schedules or book handlers, synchronously (no
 * promise, no await per candle): each candle is exactly the general loop's steps for it. It stops
 * before a candle that finds an order resting or a margin position open (the general loop plays
 * the candle's path first), and after the handler step of a candle whose handlers returned a
 * promise or left events to drain: then `pending` holds the promise and the caller finishes that
 * candle (await, drain, afterCandle).
 */
function walkQuiet(w: Walk, s: Series, ptr: Int32Array, book: CloseBook, live: Set<string>, feed: (bar: Bar) => void | Promise<void>): number {
  const { h, fromMs, total, every, opts, times, values, valuer } = w;
  const sym = s.symbol;
  const len = s.length;
  const resMs = s.resSec * 1000;
  const clock = h.clock;
  const dirty = h.dirty;
  const core = h.core;
  const { time, close } = s;
  for (let i = ptr[0]!; i < len; i++) {
    if (live.size > 0 || (h.marginMarkets.size > 0 && h.marginMarkets.has(sym))) return QUIET_GENERAL;
    const t = time[i]! * 1000 + resMs;
    ptr[0] = i + 1;
    if (t > clock.now()) clock.set(t);
    h.cursor[0] = i;
    book.set(close[i]!);
    if (!w.started && t >= fromMs) startSample(w, t);
    const r = feed(Bar.fromColumns(s, i, s.resSec));
    // Events the handler's intents raised (a denial) are delivered before the next candle, as live.
    if (!dirty.events && core.busy) dirty.events = true;
    if (r || dirty.events) {
      w.pending = r;
      return i;
    }
    // afterCandle, inline (no call per candle with a boxed time).
    if (dirty.margin) {
      dirty.margin = false;
      h.refreshMargin();
    }
    if (++w.done % every === 0) opts.onProgress?.(w.done, total);
    if (t >= fromMs) {
      times[w.n] = t;
      values[w.n] = valuer();
      w.n++;
    }
  }
  return QUIET_END;
}

async function walk(h: Harness, series: Series[], fromMs: number, total: number, opts: BacktestOptions, schedules: BacktestSchedules, advance?: (tMs: number) => void): Promise<EquityCurve> {
  const k = series.length;
  const ptr = new Int32Array(k);
  // One sample per candle close at or after `from`, plus the first one (before the strategies act).
  const times = new Float64Array(total + 1);
  const values = new Float64Array(total + 1);
  const value = equityValuer(h, series, h.unpriced);
  // The protections that watch the equity (drawdown, daily loss) get every sample, as live gets its snapshots.
  const valuer = h.kernel.watchesEquity
    ? () => {
        const v = value();
        h.kernel.recordEquity(h.clock.now(), v);
        return v;
      }
    : value;
  const w: Walk = { h, fromMs, total, every: opts.progressEvery ?? 50_000, opts, times, values, valuer, n: 0, done: 0, started: false, pending: undefined };
  const start = (t: number) => {
    if (!w.started && t >= fromMs) startSample(w, t);
  };
  const bookListeners = series.map((s) => h.core.listens(s.symbol, 'book'));
  // Per market, looked up once: its book, its live-order set, its index cell and its bar feed.
  const books = series.map((s) => h.books.get(s.symbol)!);
  const live = series.map((s) => h.liveSet(s.symbol));
  const feeds = series.map((s): ((bar: Bar) => void | Promise<void>) => {
    const feed = h.core.barFeed(s.symbol, s.resSec);
    if (!advance) return feed;
    // The declared resolutions' candles closed by this candle's close (the clock is there) first.
    return (bar) => {
      advance(h.clock.now());
      return feed(bar);
    };
  });
  // One market, no schedules, no book handlers: quiet stretches run synchronously (walkQuiet).
  const quietOk = k === 1 && schedules.size === 0 && !bookListeners[0];
  // A run that starts at its first candle's open (no warm-up candle before `from`): the start
  // sample is the account then, before onStart can act (valued at the first candles' opens).
  if (h.clock.now() >= fromMs) startSample(w, h.clock.now());
  advance?.(h.clock.now());
  await h.core.start();
  await drain(h);
  for (;;) {
    if (quietOk) {
      const at = walkQuiet(w, series[0]!, ptr, books[0]!, live[0]!, feeds[0]!);
      if (at === QUIET_END) break;
      if (at >= 0) {
        // Finish candle `at` as the general loop would after its handler step.
        const r = w.pending;
        w.pending = undefined;
        if (r) {
          await r;
          h.dirty.events = true;
        }
        if (h.dirty.events) {
          const d = drain(h);
          if (d) await d;
        }
        afterCandle(w, (series[0]!.time[at]! + series[0]!.resSec) * 1000, true);
        continue;
      }
      // QUIET_GENERAL: this candle goes through the general loop below.
    }
    let bestT = Infinity;
    for (let j = 0; j < k; j++) {
      const s = series[j]!;
      const i = ptr[j]!;
      if (i < s.length) {
        const t = (s.time[i]! + s.resSec) * 1000;
        if (t < bestT) bestT = t;
      }
    }
    if (bestT === Infinity) break;
    if (schedules.size > 0) await fireSchedules(h, schedules, bestT - 1, start, advance);
    if (!w.started && bestT >= fromMs) {
      // The start sample at bestT: every market closing then valued at its close, before any path
      // is played or handler runs (the books are put back; the steps below set them in turn).
      const prev = books.map((b) => b.price);
      for (let j = 0; j < k; j++) {
        const i = ptr[j]!;
        if (i < series[j]!.length && (series[j]!.time[i]! + series[j]!.resSec) * 1000 === bestT) books[j]!.set(series[j]!.close[i]!);
      }
      startSample(w, bestT);
      for (let j = 0; j < k; j++) books[j]!.set(prev[j]!);
    }
    for (let j = 0; j < k; j++) {
      const s = series[j]!;
      const i = ptr[j]!;
      if (i >= s.length || (s.time[i]! + s.resSec) * 1000 !== bestT) continue;
      ptr[j] = i + 1;
      const sym = s.symbol;
      const margin = h.marginMarkets.size > 0 && h.marginMarkets.has(sym);
      if (live[j]!.size > 0 || margin) {
        h.fill.play(sym, i);
        if (margin) {
          await h.core.executor.syncMargin('main');
          h.refreshMargin();
          h.dirty.balances = true;
        }
        await drain(h);
      }
      if (bestT > h.clock.now()) h.clock.set(bestT);
      h.cursor[j] = i;
      const book = books[j]!;
      book.set(s.close[i]!);
      const r = feeds[j]!(Bar.fromColumns(s, i, s.resSec));
      if (r) {
        await r;
        h.dirty.events = true;
      } else if (h.core.busy) h.dirty.events = true;
      if (bookListeners[j] && bestT >= fromMs) {
        h.core.onBook(sym, book);
        h.dirty.events = true;
      }
      if (margin) {
        // The margin monitor at the new close, as live evaluates it on every book update of a
        // market with an open position (risk.marginMonitor: warn, top up, close).
        h.kernel.marginWatch.onPrice(sym);
        await h.kernel.marginWatch.idle();
        h.dirty.events = true;
      }
      if (h.dirty.events) {
        const d = drain(h);
        if (d) await d;
      }
      afterCandle(w, bestT, false);
    }
    if (schedules.size > 0) await fireSchedules(h, schedules, bestT, start, advance);
    if (bestT >= fromMs) sample(w, bestT);
  }
  opts.onProgress?.(w.done, total);
  return { times: times.subarray(0, w.n), values: values.subarray(0, w.n), length: w.n };
}
