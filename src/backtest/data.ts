/**
 * Backtest data: each configured market's candles as plain-number columns (no Decimal per candle),
 * cut to the run's range plus the strategies' warm-up, resampled up to the strategies' resolution
 * when the file is finer, and checked before the run: a range the data does not cover and every gap
 * inside it are reported up front (never silently skipped).
 */
import { existsSync } from 'node:fs';
import { readBundledMeta } from '../market/files/bundled.js';
import type { CandleColumns } from '../market/files/columns.js';
import { findGaps, type CandleGap } from '../market/files/gaps.js';
import { readCandleColumnsCached } from '../market/files/column-cache.js';
import { candleLength } from '../market/files/regular.js';

export interface Series {
  symbol: string;
  /** Candle length in seconds. */
  resSec: number;
  length: number;
  /** Candle start, Unix seconds. */
  time: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
  /** Index of the first candle inside the run (the ones before it are warm-up). */
  firstIndex: number;
}

export interface SeriesReport {
  symbol: string;
  source: string;
  resSec: number;
  /** Candles inside [from, to). */
  candles: number;
  warmupNeeded: number;
  warmupAvailable: number;
  first?: string;
  last?: string;
  /** Missing time at the start or end of the requested range (ISO), when the data does not cover it. */
  missingStart?: { from: string; to: string };
  missingEnd?: { from: string; to: string };
  gaps: { from: string; to: string; missing: number }[];
  missingBars: number;
  /**
   * UTC weekdays the market does not trade (`Sat`, `Sun`, ...): declared (`backtest.data[].weekdays`)
   * or, undeclared, the weekdays without a single candle in data spanning at least three weeks.
   * Candles missing on them are not gaps.
   */
  closedDays: string[];
  /** Whether closedDays was declared in the config (else detected from the data). */
  closedDaysDeclared: boolean;
}

export interface DataReport {
  ok: boolean;
  series: SeriesReport[];
  /** One line per problem, for the terminal. */
  problems: string[];
  /** What the data check assumed without it being a problem (a weekly closure detected), one line each. */
  notes: string[];
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const WEEK = 7 * 86_400;

/**
 * The UTC weekdays without a candle in `time` (candle starts, seconds), when the data spans at least
 * three weeks and trades on some weekday: a regular weekly closure (stock and forex data), not
 * missing data. Candles longer than a day have no weekday: none.
 */
function detectClosedDays(time: ArrayLike<number>, length: number, resSec: number): number[] {
  if (length < 2 || resSec > 86_400) return [];
  if (time[length - 1]! - time[0]! < 3 * WEEK) return [];
  const seen = [false, false, false, false, false, false, false];
  let days = 0;
  for (let i = 0; i < length && days < 7; i++) {
    const wd = new Date(time[i]! * 1000).getUTCDay();
    if (!seen[wd]) {
      seen[wd] = true;
      days++;
    }
  }
  const closed: number[] = [];
  for (let d = 0; d < 7; d++) if (!seen[d]) closed.push(d);
  return closed.length === 7 ? [] : closed;
}

/** The gaps left when the bars starting on a closed weekday are not missing. */
function openGaps(gaps: readonly CandleGap[], resSec: number, closed: readonly number[]): CandleGap[] {
  if (closed.length === 0) return [...gaps];
  const out: CandleGap[] = [];
  for (const g of gaps) {
    let run: CandleGap | undefined;
    for (let t = g.from; t <= g.to; t += resSec) {
      if (closed.includes(new Date(t * 1000).getUTCDay())) {
        if (run) out.push(run);
        run = undefined;
      } else if (run) {
        run.to = t;
        run.missing++;
      } else run = { from: t, to: t, missing: 1 };
    }
    if (run) out.push(run);
  }
  return out;
}

const iso = (sec: number) => new Date(sec * 1000).toISOString();

/** The file's candle length (its meta file's, else the smallest step), every step checked to be a whole number of candles (market/files/regular.ts). */
export function inferResolution(file: string, time: ArrayLike<number>): number {
  const meta = existsSync(file) ? readBundledMeta(file) : undefined;
  return candleLength(file, time, meta?.resolutionSec);
}

/** Aggregate columns into candles of `resSec` aligned to multiples of resSec (UTC). */
export function resampleColumns(c: CandleColumns, resSec: number): CandleColumns {
  const n = c.length;
  const out = {
    length: 0,
    time: new Float64Array(n),
    open: new Float64Array(n),
    high: new Float64Array(n),
    low: new Float64Array(n),
    close: new Float64Array(n),
    volume: new Float64Array(n),
  };
  let k = -1;
  for (let i = 0; i < n; i++) {
    const bucket = Math.floor(c.time[i]! / resSec) * resSec;
    if (k < 0 || out.time[k] !== bucket) {
      k++;
      out.time[k] = bucket;
      out.open[k] = c.open[i]!;
      out.high[k] = c.high[i]!;
      out.low[k] = c.low[i]!;
      out.close[k] = c.close[i]!;
      out.volume[k] = c.volume[i]!;
    } else {
      if (c.high[i]! > out.high[k]!) out.high[k] = c.high[i]!;
      if (c.low[i]! < out.low[k]!) out.low[k] = c.low[i]!;
      out.close[k] = c.close[i]!;
      out.volume[k] = out.volume[k]! + c.volume[i]!;
    }
  }
  out.length = k + 1;
  return out;
}

export interface LoadSeriesRequest {
  symbol: string;
  file: string;
  /** The market's base asset: a CSV without a `volume` column reads `Volume <BASE>` (market/files/csv.ts). */
  base?: string;
  /** Resolution the strategies trade at (seconds); the file may be finer (it is resampled), never coarser. */
  resSec: number;
  fromMs: number;
  toMs: number;
  warmup: number;
  /** UTC weekdays the market trades (0 = Sunday), when declared; else a weekly closure is detected. */
  weekdays?: readonly number[];
}

/** Cut loaded columns to [from − warm-up, to) and describe what is missing. */
export function prepareSeries(
  req: Omit<LoadSeriesRequest, 'file'>,
  cols: CandleColumns,
  fileRes: number,
  source: string,
): { series: Series; report: SeriesReport } {
  if (req.resSec < fileRes || req.resSec % fileRes !== 0) {
    throw new Error(`${source}: ${req.symbol} candles are ${fileRes}s long; the strategies need ${req.resSec}s, which is not a multiple of them`);
  }
  const c = req.resSec === fileRes ? cols : resampleColumns(cols, req.resSec);
  const fromSec = Math.ceil(req.fromMs / 1000);
  const toSec = Math.floor(req.toMs / 1000);
  const { time, length } = c;
  const resSec = req.resSec;
  let first = 0;
  while (first < length && time[first]! < fromSec) first++;
  let end = first;
  // A candle belongs to the run when it closes by `to`.
  while (end < length && time[end]! + resSec <= toSec) end++;
  const start = Math.max(0, first - req.warmup);
  const slice = (a: Float64Array) => a.subarray(start, end);
  const series: Series = {
    symbol: req.symbol,
    resSec: req.resSec,
    length: end - start,
    time: slice(c.time),
    open: slice(c.open),
    high: slice(c.high),
    low: slice(c.low),
    close: slice(c.close),
    volume: slice(c.volume),
    firstIndex: first - start,
  };
  const inRun = c.time.subarray(first, end);
  // A weekly closure (declared, or seen in all the data read) is not a gap: weekends of stock data.
  const declared = req.weekdays !== undefined;
  const closed = declared ? [0, 1, 2, 3, 4, 5, 6].filter((d) => !req.weekdays!.includes(d)) : detectClosedDays(c.time, c.length, req.resSec);
  const gaps: CandleGap[] = openGaps(findGaps(inRun, req.resSec), req.resSec, closed);
  const report: SeriesReport = {
    symbol: req.symbol,
    source,
    resSec: req.resSec,
    candles: end - first,
    warmupNeeded: req.warmup,
    warmupAvailable: first - start,
    gaps: gaps.map((g) => ({ from: iso(g.from), to: iso(g.to), missing: g.missing })),
    missingBars: gaps.reduce((a, g) => a + g.missing, 0),
    closedDays: closed.map((d) => WEEKDAYS[d]!),
    closedDaysDeclared: declared,
  };
  if (end > first) {
    report.first = iso(inRun[0]!);
    report.last = iso(inRun[inRun.length - 1]!);
    if (inRun[0]! - fromSec >= req.resSec) report.missingStart = { from: iso(fromSec), to: iso(inRun[0]!) };
    const lastClose = inRun[inRun.length - 1]! + req.resSec;
    if (toSec - lastClose >= req.resSec) report.missingEnd = { from: iso(lastClose), to: iso(toSec) };
  }
  return { series, report };
}

export function loadSeries(req: LoadSeriesRequest): {
  series: Series;
  report: SeriesReport;
  cols: CandleColumns;
  fileRes: number;
  /** The file's column the volume came from (null: none, volume 0). */
  volumeColumn: string | null;
} {
  // Through the project's column cache: the file's text is parsed once, not on every run.
  const cols = readCandleColumnsCached(req.file, req.base !== undefined ? { base: req.base } : {});
  const fileRes = inferResolution(req.file, cols.time);
  return { ...prepareSeries({ ...req, resSec: req.resSec || fileRes }, cols, fileRes, req.file), cols, fileRes, volumeColumn: cols.volumeColumn };
}

/**
 * Candles of a resolution a strategy declared (`candles:`), built from the data's own columns
 * (`cols`, `fileRes` seconds long; `resSec` a multiple of it): those closed by `toMs`, with up to
 * `history` of them before `startSec` (the first candle the run reads). The walk shows each one
 * once it closed.
 */
export function declaredSeries(symbol: string, cols: CandleColumns, fileRes: number, resSec: number, startSec: number, toMs: number, history: number): Series {
  const c = resSec === fileRes ? cols : resampleColumns(cols, resSec);
  const toSec = Math.floor(toMs / 1000);
  let first = 0;
  while (first < c.length && c.time[first]! < startSec) first++;
  const start = Math.max(0, first - history);
  let end = first;
  while (end < c.length && c.time[end]! + resSec <= toSec) end++;
  const slice = (a: Float64Array) => a.subarray(start, end);
  return {
    symbol,
    resSec,
    length: end - start,
    time: slice(c.time),
    open: slice(c.open),
    high: slice(c.high),
    low: slice(c.low),
    close: slice(c.close),
    volume: slice(c.volume),
    firstIndex: first - start,
  };
}

/** The problems of a set of series reports, one line each; `ok` is false when a market has no candle in the range. */
export function summarizeReports(reports: SeriesReport[]): DataReport {
  const problems: string[] = [];
  const notes: string[] = [];
  let ok = true;
  for (const r of reports) {
    if (r.closedDays.length > 0 && !r.closedDaysDeclared) {
      notes.push(
        `${r.symbol}: no candle on ${r.closedDays.join(', ')} in the whole data (${r.source}): taken as days the market is closed, not as gaps (declare backtest.data[].weekdays to set them)`,
      );
    }
    if (r.candles === 0) {
      ok = false;
      problems.push(`${r.symbol}: no candle in the requested range (${r.source})`);
      continue;
    }
    if (r.missingStart) problems.push(`${r.symbol}: no data from ${r.missingStart.from} to ${r.missingStart.to} (the data starts later)`);
    if (r.missingEnd) problems.push(`${r.symbol}: no data from ${r.missingEnd.from} to ${r.missingEnd.to} (the data ends earlier)`);
    if (r.gaps.length > 0) {
      const shown = r.gaps
        .slice(0, 5)
        .map((g) => `${g.from}..${g.to} (${g.missing})`)
        .join(', ');
      problems.push(`${r.symbol}: ${r.gaps.length} gap(s), ${r.missingBars} missing candle(s): ${shown}${r.gaps.length > 5 ? ', …' : ''}`);
    }
    if (r.warmupAvailable < r.warmupNeeded) {
      problems.push(`${r.symbol}: warm-up needs ${r.warmupNeeded} candle(s) before the start, the data has ${r.warmupAvailable}`);
    }
  }
  return { ok, series: reports, problems, notes };
}
