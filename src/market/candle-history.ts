/**
 * Candle history from `/v1/udf/history` (through a CandleHistorySource): long ranges are paged
 * (`pageSize` candles per request; the exchange caps the points per request), results are
 * de-duplicated by time and sorted, missing periods are reported as gaps, and everything fetched is
 * kept in an on-disk cache keyed by source (the exchange's or simulator's URL), symbol and resolution
 * together with the ranges already covered: a range fetched before makes no request, a partly
 * covered one fetches only the periods missing (a missing stretch holding no period start, such as
 * the seconds after a cached range's last period start, needs no request).
 * The period still forming at fetch time (and anything later) is returned but never cached, so a
 * cached candle is always a closed one. Both resolution sets are accepted (`RESOLUTIONS`).
 */
import path from 'node:path';
import type { Clock } from '../core/clock.js';
import { ParameterError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { type Candle, RESOLUTIONS, type Resolution, resolutionSeconds } from '../core/types/market.js';
import { CandleCache, type CandleStore } from './candle-cache.js';
import type { CandleHistorySource } from './ports.js';
import { type Range, mergeRanges, subtractRanges, timesToRanges } from './ranges.js';

export interface CandleHistoryOptions {
  /** Candles asked per request (the exchange's cap). Default 1000. */
  pageSize: number;
  /** Cache directory. Default `backtest/data/cache` under the working directory. */
  cacheDir: string;
  /**
   * Offset (seconds) of the candle grid from the Unix epoch, used for gap detection and the
   * forming-period cut-off. 0 (UTC boundaries) by default.
   */
  alignOffsetSec: number;
}

export interface CandleHistoryGap {
  /** First and last missing candle time (seconds), inclusive. */
  from: number;
  to: number;
  count: number;
}

export interface CandleFetchResult {
  candles: Candle[];
  /** Periods inside the range (up to the forming one) with no candle: no trade, or data missing. */
  gaps: CandleHistoryGap[];
  /** Requests made for this fetch (0 when the cache covered it). */
  requests: number;
}

export interface CandleHistoryDeps {
  source: CandleHistorySource;
  /** The URL `source` reads (the exchange's or simulator's base URL): the cache is kept per origin. */
  origin: string;
  clock: Clock;
  logger?: Logger;
  options?: Partial<CandleHistoryOptions>;
}

export class CandleHistory {
  private readonly opts: CandleHistoryOptions;
  private readonly cache: CandleCache;
  private readonly stores = new Map<string, Promise<CandleStore>>();
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: CandleHistoryDeps) {
    this.opts = {
      pageSize: 1000,
      cacheDir: path.resolve('backtest/data/cache'),
      alignOffsetSec: 0,
      ...deps.options,
    };
    if (!Number.isInteger(this.opts.pageSize) || this.opts.pageSize < 1) {
      throw new ParameterError('pageSize', this.opts.pageSize, 'a positive integer');
    }
    this.cache = new CandleCache(this.opts.cacheDir, deps.origin);
  }

  /** Candles of `symbol` with start time in [from, to] (Unix seconds, inclusive). */
  fetch(symbol: string, resolution: Resolution, from: number, to: number): Promise<CandleFetchResult> {
    if (!RESOLUTIONS.includes(resolution)) throw new ParameterError('resolution', resolution, `one of ${RESOLUTIONS.join(', ')}`);
    if (!Number.isInteger(from) || !Number.isInteger(to) || from > to || from < 0) {
      throw new ParameterError('from/to', [from, to], 'whole Unix seconds with from ≤ to');
    }
    const key = `${symbol}/${resolution}`;
    // One fetch per key at a time: a second identical fetch waits and then reads the cache.
    const run = (this.locks.get(key) ?? Promise.resolve()).then(() => this.fetchUnlocked(symbol, resolution, from, to));
    this.locks.set(
      key,
      run.catch(() => undefined),
    );
    return run;
  }

  private store(symbol: string, resolution: Resolution): Promise<CandleStore> {
    const key = `${symbol}/${resolution}`;
    let s = this.stores.get(key);
    if (!s) {
      s = this.cache.load(symbol, resolution);
      this.stores.set(key, s);
      s.catch(() => this.stores.delete(key));
    }
    return s;
  }

  private async fetchUnlocked(symbol: string, resolution: Resolution, from: number, to: number): Promise<CandleFetchResult> {
    const res = resolutionSeconds(resolution);
    const off = this.opts.alignOffsetSec;
    const nowSec = Math.floor(this.deps.clock.now() / 1000);
    const forming = Math.floor((nowSec - off) / res) * res + off;
    const coverEnd = forming - 1; // everything before the forming period is closed
    const store = await this.store(symbol, resolution);
    const missing = subtractRanges([from, to], store.covered);
    const fresh = new Map<number, Candle>();
    const added: Range[] = [];
    let requests = 0;
    try {
      for (const part of missing) {
        for (const page of pages(part, res, off, this.opts.pageSize)) {
          // No period starts inside the page (a few seconds after a period start): nothing to ask for.
          if (Math.ceil((page[0] - off) / res) * res + off > page[1]) {
            if (page[0] <= coverEnd) added.push([page[0], Math.min(page[1], coverEnd)]);
            continue;
          }
          requests++;
          // The exchange wants from < to; a page of one second (a period start) asks through the next.
          const got = await this.deps.source.getCandles({ symbol, resolution, from: page[0], to: Math.max(page[1], page[0] + 1) });
          for (const c of got) if (c.time >= page[0] && c.time <= page[1]) fresh.set(c.time, c);
          // Pages done so far count as covered even if a later page fails.
          if (page[0] <= coverEnd) added.push([page[0], Math.min(page[1], coverEnd)]);
        }
      }
    } finally {
      if (requests > 0 || added.length > 0) await this.persist(symbol, resolution, store, fresh, added, coverEnd);
    }
    const out = new Map<number, Candle>();
    for (const c of store.candles.values()) if (c.time >= from && c.time <= to) out.set(c.time, c);
    for (const c of fresh.values()) out.set(c.time, c);
    const candles = [...out.values()].sort((a, b) => a.time - b.time);
    return { candles, gaps: this.gaps(candles, from, Math.min(to, forming - 1), res, off), requests };
  }

  private async persist(
    symbol: string,
    resolution: Resolution,
    store: CandleStore,
    fresh: Map<number, Candle>,
    added: Range[],
    coverEnd: number,
  ): Promise<void> {
    let changed = added.length > 0;
    for (const c of fresh.values()) {
      if (c.time <= coverEnd) {
        store.candles.set(c.time, c);
        changed = true;
      }
    }
    if (!changed) return;
    store.covered = mergeRanges([...store.covered, ...added]);
    await this.cache.save(symbol, resolution, store);
    this.deps.logger?.debug({ symbol, resolution, candles: fresh.size }, 'candle history fetched and cached');
  }

  private gaps(candles: Candle[], from: number, to: number, res: number, off: number): CandleHistoryGap[] {
    const have = new Set(candles.map((c) => c.time));
    const missing: number[] = [];
    for (let t = Math.ceil((from - off) / res) * res + off; t <= to; t += res) if (!have.has(t)) missing.push(t);
    return timesToRanges(missing, res).map(([a, b]) => ({ from: a, to: b, count: (b - a) / res + 1 }));
  }
}

/** Split [from, to] into requests touching at most `size` periods each (pages end on the grid). */
function pages([from, to]: Range, res: number, off: number, size: number): Range[] {
  const out: Range[] = [];
  for (let a = from; a <= to;) {
    const periodStart = Math.floor((a - off) / res) * res + off;
    const b = Math.min(to, periodStart + size * res - 1);
    out.push([a, b]);
    a = b + 1;
  }
  return out;
}
