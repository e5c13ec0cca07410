/**
 * Replay of hftbacktest captures of Binance (spot `@depth@100ms`, or USD-M futures `@depth@0ms`):
 * the REST snapshot line seeds a full book, depth diffs are applied with Binance's sequencing, and
 * after every applied diff the top `levels` of each side are emitted; trades are emitted with `T`
 * (`m = true`: the taker sold). Several files are one stream when given in order (the spot
 * 20240809 file continues 20240808 without a new snapshot).
 *
 * Sequencing (Binance "how to manage a local order book"): diffs before the snapshot are
 * buffered; diffs with `u <= lastUpdateId` are stale and dropped; the first applied diff must span
 * `lastUpdateId + 1` (spot: `U <= id+1 <= u`; futures: `U <= id <= u`); after that, spot diffs must
 * start at the previous `u + 1` and futures diffs must have `pu` equal to the previous `u`. A break
 * is counted in `stats.gaps` and the diff is applied anyway (there is no later snapshot to resync
 * from); the tests check the bundled files have none.
 * Times are the exchange's (depth `E`, trade `T`, ms). The capture is in receive order, so events
 * are put in time order through a 1-second reorder window (reorder.ts); one later than that gets
 * the previous event's time, counted in `stats.clamped`.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { CandleBuilder } from './candle-builder.js';
import { parseHftLine, type DepthDiff } from './hft-parse.js';
import { BookSide } from './l2-book.js';
import { reorderByTime } from './reorder.js';
import type { Candle } from '../../core/types/market.js';
import type { ReplayEvent, ReplaySource } from './types.js';

export interface HftSourceOptions {
  /** Market symbol to emit. Default BTCUSDT. */
  symbol?: string;
  /** Levels per side in book events. Default 50. */
  levels?: number;
  /** Candle resolution for `candles()`. Default 60. */
  resolutionSec?: number;
}

interface HftStats {
  diffsApplied: number;
  diffsStale: number;
  gaps: number;
  trades: number;
  clamped: number;
  crossed: number;
}

export interface HftSource extends ReplaySource {
  /** Counters of the last completed or running pass over the files. */
  readonly stats: HftStats;
}

/** Output chunks of the gunzip: at least 64 KiB, at most 64 MiB. */
const MIN_CHUNK = 64 * 1024;
const MAX_CHUNK = 64 * 1024 * 1024;

/**
 * A capture file's bytes, gunzipped when they are gzip. The gzip trailer's last 4 bytes are the
 * size of the (last member's) data modulo 2^32: as the output chunk size, the data comes out in one
 * chunk, not in ~1,000 of 16 KiB copied together at the end. Only a hint: a wrong one costs chunks.
 */
function readCapture(file: string): Buffer {
  const buf = readFileSync(file);
  if (buf[0] !== 0x1f || buf[1] !== 0x8b) return buf;
  const size = buf.length >= 18 ? buf.readUInt32LE(buf.length - 4) : 0;
  return gunzipSync(buf, { chunkSize: Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, size + 1)) });
}

/** The non-empty lines of a capture with their 1-based line numbers (a newline byte never occurs inside a UTF-8 character). */
function* lines(bytes: Buffer): Generator<[number, string]> {
  let pos = 0;
  let n = 0;
  while (pos < bytes.length) {
    let end = bytes.indexOf(0x0a, pos);
    if (end < 0) end = bytes.length;
    n++;
    const line = bytes.toString('utf8', pos, end).trim();
    pos = end + 1;
    if (line.length > 0) yield [n, line];
  }
}

export function hftSource(files: readonly string[], opts: HftSourceOptions = {}): HftSource {
  if (files.length === 0) throw new RangeError('hftSource: no files');
  const symbol = opts.symbol ?? 'BTCUSDT';
  const depth = opts.levels ?? 50;
  const resolutionSec = opts.resolutionSec ?? 60;
  const stats: HftStats = { diffsApplied: 0, diffsStale: 0, gaps: 0, trades: 0, clamped: 0, crossed: 0 };
  let cached: CandleBuilder | undefined;
  /**
   * Each file's bytes, read and decompressed once: a looping replay (`npm start`'s paper bot) runs
   * the capture again every ~12 minutes, and reading it anew each time made a 11-15 MB buffer and
   * a string as large per file and pass; the allocator kept some of those pages each time and the
   * bot's memory outside the JS heap grew by ~5 MB a file (bench/soak.ts). Kept for the
   * source's life: 26.6 MB for the two bundled files.
   */
  const bytes = new Map<string, Buffer>();
  const fileBytes = (file: string): Buffer => {
    let b = bytes.get(file);
    if (b === undefined) bytes.set(file, (b = readCapture(file)));
    return b;
  };

  /** Window of the reorder buffer, ms. */
  const windowMs = 1000;

  function events(): Generator<ReplayEvent> {
    return reorderByTime(capture(), windowMs, () => stats.clamped++);
  }

  function* capture(): Generator<ReplayEvent> {
    Object.assign(stats, { diffsApplied: 0, diffsStale: 0, gaps: 0, trades: 0, clamped: 0, crossed: 0 });
    const bids = new BookSide(true);
    const asks = new BookSide(false);
    let lastId: number | undefined; // undefined until the snapshot
    let synced = false;
    let futures = false;
    const pending: DepthDiff[] = [];
    const apply = (d: DepthDiff): boolean => {
      if (lastId === undefined) return false;
      if (d.lastId <= lastId) {
        stats.diffsStale++;
        return false;
      }
      if (!synced) {
        const ok = futures ? d.firstId <= lastId && d.lastId >= lastId : d.firstId <= lastId + 1 && d.lastId >= lastId + 1;
        if (!ok) stats.gaps++;
        synced = true;
      } else if (d.prevId !== undefined ? d.prevId !== lastId : d.firstId !== lastId + 1) {
        stats.gaps++;
      }
      for (const [p, q] of d.bids) bids.set(p, q);
      for (const [p, q] of d.asks) asks.set(p, q);
      lastId = d.lastId;
      stats.diffsApplied++;
      const bb = bids.best();
      const ba = asks.best();
      if (bb !== undefined && ba !== undefined && bb >= ba) stats.crossed++;
      return true;
    };
    const book = (time: number): ReplayEvent => ({
      kind: 'book',
      symbol,
      time,
      bids: bids.top(depth),
      asks: asks.top(depth),
      ...(lastId !== undefined ? { updateId: lastId } : {}),
    });

    for (const file of files) {
      for (const [n, raw] of lines(fileBytes(file))) {
        const m = parseHftLine(file, n, raw);
        if (m.type === 'snapshot') {
          bids.clear();
          asks.clear();
          for (const [p, q] of m.bids) bids.set(p, q);
          for (const [p, q] of m.asks) asks.set(p, q);
          lastId = m.lastUpdateId;
          synced = false;
          futures = pending.some((d) => d.prevId !== undefined);
          let applied: DepthDiff | undefined;
          for (const d of pending.splice(0)) if (apply(d)) applied = d;
          yield book(applied ? applied.time : m.time);
        } else if (m.type === 'depth') {
          if (m.prevId !== undefined) futures = true;
          if (lastId === undefined) pending.push(m);
          else if (apply(m)) yield book(m.time);
        } else if (m.type === 'trade') {
          if (lastId === undefined) continue; // no book yet: the trade cannot be placed against one
          stats.trades++;
          yield { kind: 'trade', symbol, time: m.time, price: m.price, quantity: m.quantity, isBuyOrder: !m.buyerIsMaker };
        }
      }
    }
  }

  function builder(): CandleBuilder {
    if (cached) return cached;
    const b = new CandleBuilder(resolutionSec);
    const it = events();
    for (let r = it.next(); !r.done; r = it.next()) if (r.value.kind === 'trade') b.add(r.value.time, r.value.price, r.value.quantity);
    cached = b;
    return b;
  }

  return {
    name: `hftbacktest:${symbol}`,
    symbols: [symbol],
    resolutionSec,
    stats,
    events,
    candles: (sym: string, from?: number, to?: number): Candle[] => (sym === symbol ? builder().candles(from, to) : []),
  };
}
