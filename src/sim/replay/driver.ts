/**
 * The replay driver: merges sources by time and pushes their events into the simulator
 * (`replaceBookSide` for both sides of every book event, then `recordTrade` for prints), paced by a
 * speed factor against a Clock: event at source time t is pushed at
 * `start + (t - t0) / speed` of the clock. speed 1 = real time, N = N times faster, 0 or Infinity =
 * as fast as possible. Every `batch` events it yields to the event loop, so stop() and I/O still run.
 *
 * Timestamps pushed: `timeBase: 'source'` keeps the data's own times; `'clock'` stamps each event
 * with the clock time it is due at (start + elapsed source time / speed), so replayed trades and
 * candles share the clock with orders and fills at any speed (what a live-looking paper session wants). With `loop`,
 * each pass is shifted by the span of the data plus `loopGapMs`, so time never goes back.
 * `candles()` gives bars built from the trades pushed so far (pushed times), for /v1/udf/history.
 */
import { SystemClock, type Clock } from '../../core/clock.js';
import { toDecimal, type Decimal } from '../../core/decimal.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import { GenerationCache } from '../../core/generation-cache.js';
import type { Candle } from '../../core/types/market.js';
import { CandleBuilder } from './candle-builder.js';
import { mergeSources } from './merge.js';
import type { RawLevel, ReplayEvent, ReplayLevel, ReplaySource, ReplayTarget } from './types.js';

export interface ReplayOptions {
  sim: ReplayTarget;
  sources: readonly ReplaySource[];
  /** 1 = real time (default), N = N times faster, 0 or Infinity = as fast as possible. */
  speed?: number;
  clock?: Clock;
  /** Start again at the end, forever (until stop()). */
  loop?: boolean;
  /** Pause between the end of a pass and the next, source ms. Default 1000. */
  loopGapMs?: number;
  timeBase?: 'source' | 'clock';
  /** Waits for ms of the clock. Default: setTimeout (pass a fake with a fake clock in tests). */
  sleep?: (ms: number) => Promise<void>;
  /** Book levels per side pushed. Default 50. */
  levels?: number;
  /** Bar length of `candles()`. Default 60. */
  candleResolutionSec?: number;
  /**
   * Push events at once until every symbol has had a book, then pace from there: a server that
   * starts with full books instead of waiting (in real time) for the source that starts last.
   * Primed events are stamped with the clock's time when `timeBase` is 'clock'. Default false.
   */
  prime?: boolean;
  /** Events between yields to the event loop (setImmediate), in every mode. Default 1000. */
  batch?: number;
  logger?: Logger;
}

interface ReplayProgress {
  events: number;
  books: number;
  trades: number;
  /** Completed passes over the data. */
  loops: number;
  /** Source time of the last pushed event. */
  sourceTimeMs: number | undefined;
  /** Timestamp the last pushed event carried. */
  pushedTimeMs: number | undefined;
  running: boolean;
}

export interface ReplayHandle {
  stop(): void;
  /** Resolves when the replay ends (data exhausted without loop, or stop()); rejects if the target throws. */
  readonly done: Promise<ReplayProgress>;
  progress(): ReplayProgress;
  /** Bars built from the trades pushed so far, for a symbol, bar start in [fromSec, toSec]. */
  candles(symbol: string, fromSec?: number, toSec?: number): Candle[];
  readonly symbols: readonly string[];
}

/**
 * Parsed Decimals by their string: book levels repeat the same prices and sizes from one event to
 * the next, and Decimals are immutable, so sharing them is safe. Bounded to REPLAY_DECIMAL_CACHE
 * entries in two generations (see GenerationCache; it was 100,000 cleared when full, ~20 MB held).
 */
export const REPLAY_DECIMAL_CACHE = 8_192;

/** Candles of the replayed trades kept per market by `handle.candles` (7 days of 1-minute candles; bench/soak.ts). */
export const REPLAY_CANDLES_KEPT = 10_080;

export class ReplayDecimalCache {
  private readonly map: GenerationCache<string, Decimal>;
  constructor(max = REPLAY_DECIMAL_CACHE) {
    this.map = new GenerationCache(max);
  }
  get size(): number {
    return this.map.size;
  }
  get(s: string, field: string): Decimal {
    let v = this.map.get(s);
    if (v === undefined) {
      v = toDecimal(s, field);
      this.map.set(s, v);
    }
    return v;
  }
}

function toLevels(raw: readonly RawLevel[], max: number, cache: ReplayDecimalCache): ReplayLevel[] {
  const n = Math.min(max, raw.length);
  const out: ReplayLevel[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const [p, q] = raw[i]!;
    out[i] = { price: cache.get(p, 'price'), quantity: cache.get(q, 'quantity') };
  }
  return out;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const yieldNow = (): Promise<void> => new Promise((r) => setImmediate(r));

export function startReplay(opts: ReplayOptions): ReplayHandle {
  const { sim, sources } = opts;
  if (sources.length === 0) throw new RangeError('startReplay: no sources');
  const speed = opts.speed ?? 1;
  if (!(speed >= 0)) throw new RangeError(`startReplay: speed must be >= 0, got ${speed}`);
  const fast = speed === 0 || speed === Infinity;
  const clock = opts.clock ?? new SystemClock();
  const sleep = opts.sleep ?? defaultSleep;
  const levels = opts.levels ?? 50;
  const gap = opts.loopGapMs ?? 1000;
  const batch = Math.max(1, opts.batch ?? 1000);
  const log = (opts.logger ?? silentLogger).child({ module: 'replay' });
  const res = opts.candleResolutionSec ?? 60;
  const symbols = [...new Set(sources.flatMap((s) => s.symbols))];
  // The candles the replay printed, the newest REPLAY_CANDLES_KEPT per market: a looping replay runs for weeks.
  const builders = new Map(symbols.map((s) => [s, new CandleBuilder(res, REPLAY_CANDLES_KEPT)] as const));
  const p: ReplayProgress = { events: 0, books: 0, trades: 0, loops: 0, sourceTimeMs: undefined, pushedTimeMs: undefined, running: true };
  let stopped = false;
  // stop() ends the sleep under way through `wake`. Not a race against one replay-long stop promise:
  // that promise never settles while the replay runs, so each race left a reaction on it (~300 bytes
  // a sleep, ~7 MB an hour at speed 1; test/sim/replay/driver-memory.test.ts).
  let wake: (() => void) | undefined;
  const pause = (ms: number): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      wake = resolve;
      sleep(ms).then(resolve, reject);
    }).finally(() => (wake = undefined));

  const cache = new ReplayDecimalCache();
  const push = (ev: ReplayEvent, at: number): void => {
    if (ev.kind === 'book') {
      sim.replaceBookSide(ev.symbol, 'bid', toLevels(ev.bids, levels, cache), at);
      sim.replaceBookSide(ev.symbol, 'ask', toLevels(ev.asks, levels, cache), at);
      p.books++;
    } else {
      sim.recordTrade({
        symbol: ev.symbol,
        price: toDecimal(ev.price, 'price'),
        quantity: toDecimal(ev.quantity, 'quantity'),
        isBuyOrder: ev.isBuyOrder,
        timestamp: at,
      });
      builders.get(ev.symbol)?.add(at, ev.price, ev.quantity);
      p.trades++;
    }
    p.events++;
    p.sourceTimeMs = ev.time;
    p.pushedTimeMs = at;
  };

  async function run(): Promise<ReplayProgress> {
    let wallStart = clock.now();
    let priming = opts.prime === true;
    const booked = new Set<string>();
    let offset = 0; // added to source times on later passes
    let vStart: number | undefined;
    let shift = 0; // source -> pushed time
    let passFirst: number | undefined;
    let passLast = 0;
    let it = mergeSources(sources);
    let sinceYield = 0;
    while (!stopped) {
      const r = it.next();
      if (r.done) {
        if (!opts.loop || passFirst === undefined) break;
        p.loops++;
        offset += passLast - passFirst + gap;
        passFirst = undefined;
        it = mergeSources(sources);
        log.debug({ loops: p.loops }, 'replay: starting the next pass');
        continue;
      }
      const ev = r.value;
      passFirst ??= ev.time;
      passLast = ev.time;
      const v = ev.time + offset;
      if (priming) {
        if (ev.kind === 'book') booked.add(ev.symbol);
        if (booked.size < symbols.length) {
          push(ev, opts.timeBase === 'clock' ? clock.now() : v);
          continue;
        }
        priming = false;
        wallStart = clock.now();
        vStart = v;
        shift = opts.timeBase === 'clock' ? wallStart - v : 0;
        log.debug({ events: p.events }, 'replay: primed every book');
      }
      if (vStart === undefined) {
        vStart = v;
        shift = opts.timeBase === 'clock' ? wallStart - v : 0;
      }
      if (!fast) {
        const wait = wallStart + (v - vStart) / speed - clock.now();
        if (wait >= 1) {
          await pause(wait);
          if (stopped) break;
        }
      }
      if (++sinceYield >= batch) {
        // also when sleeps are short or fake: never hold the event loop for more than a batch
        sinceYield = 0;
        await yieldNow();
        if (stopped) break;
      }
      // 'clock': the moment the event is due on the clock (source time scaled by the speed), so times
      // pushed agree with the clock the rest of the system runs on, at any speed.
      push(ev, opts.timeBase === 'clock' && !fast && vStart !== undefined ? Math.round(wallStart + (v - vStart) / speed) : v + shift);
    }
    p.running = false;
    return { ...p };
  }

  const done = run().catch((err: unknown) => {
    p.running = false;
    log.error({ err }, 'replay stopped by an error');
    throw err;
  });

  return {
    stop() {
      stopped = true;
      wake?.();
    },
    done,
    progress: () => ({ ...p }),
    candles: (symbol, from, to) => builders.get(symbol)?.candles(from, to) ?? [],
    symbols,
  };
}
