/**
 * The bundled candle format (mizan's own):
 * - `<name>.csv` or `<name>.csv.gz`: header exactly `time,open,high,low,close,volume`, `time` the
 *   bar start in integer Unix seconds (UTC), prices and volume as plain decimal strings (exact, no
 *   exponent), one row per bar, times increasing; missing bars are simply absent;
 * - `<name>.meta.json` next to it (optional for reading): symbol, resolution, source and licence.
 */
import { mkdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Candle } from '../../core/types/market.js';
import { CandleFileError, quote } from './errors.js';

export const BUNDLED_HEADER = 'time,open,high,low,close,volume';
const BUNDLED_FORMAT = 'mizan-candles/1';

export interface BundledMeta {
  format: typeof BUNDLED_FORMAT;
  symbol: string;
  /** Bar length in seconds. */
  resolutionSec: number;
  rows: number;
  /** First and last bar start, ISO UTC (filled in by the writer). */
  first?: string;
  last?: string;
  /** Where the numbers come from: repository, path, commit. */
  source: string;
  licence: string;
  notes?: string;
}

/** `x.csv.gz` / `x.csv` -> `x.meta.json`. */
function metaPathFor(csvPath: string): string {
  return csvPath.replace(/\.csv(\.gz)?$/i, '') + '.meta.json';
}

export function isBundledHeader(firstLine: string): boolean {
  return firstLine.replace(/\r$/, '').trim() === BUNDLED_HEADER;
}

function formatBundled(candles: readonly Candle[]): string {
  const lines: string[] = [BUNDLED_HEADER];
  for (const c of candles) {
    if (!Number.isInteger(c.time)) throw new RangeError(`bundled candles need integer seconds, got time ${c.time}`);
    lines.push(`${c.time},${c.open.toFixed()},${c.high.toFixed()},${c.low.toFixed()},${c.close.toFixed()},${c.volume.toFixed()}`);
  }
  return lines.join('\n') + '\n';
}

/** Write candles (gzipped when the path ends in .gz) and the metadata sidecar. Returns the meta written. */
export function writeBundledCandles(csvPath: string, candles: readonly Candle[], meta: Omit<BundledMeta, 'format' | 'rows' | 'first' | 'last'>): BundledMeta {
  const text = formatBundled(candles);
  mkdirSync(dirname(csvPath), { recursive: true });
  writeFileSync(csvPath, /\.gz$/i.test(csvPath) ? gzipSync(text, { level: 9 }) : text);
  const first = candles[0];
  const last = candles[candles.length - 1];
  const full: BundledMeta = {
    format: BUNDLED_FORMAT,
    symbol: meta.symbol,
    resolutionSec: meta.resolutionSec,
    rows: candles.length,
    ...(first ? { first: new Date(first.time * 1000).toISOString() } : {}),
    ...(last ? { last: new Date(last.time * 1000).toISOString() } : {}),
    source: meta.source,
    licence: meta.licence,
    ...(meta.notes !== undefined ? { notes: meta.notes } : {}),
  };
  writeFileSync(metaPathFor(csvPath), JSON.stringify(full, null, 2) + '\n');
  return full;
}

/** Read the sidecar of a bundled file, or undefined when there is none. */
export function readBundledMeta(csvPath: string): BundledMeta | undefined {
  const p = metaPathFor(csvPath);
  if (!existsSync(p)) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(p, 'utf8'));
  } catch (err) {
    throw new CandleFileError({ file: p }, `not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  const m = data as Partial<BundledMeta> | null;
  if (!m || m.format !== BUNDLED_FORMAT) throw new CandleFileError({ file: p, field: 'format' }, `expected ${quote(BUNDLED_FORMAT)}, got ${quote(m?.format)}`);
  if (typeof m.symbol !== 'string') throw new CandleFileError({ file: p, field: 'symbol' }, `expected a string, got ${quote(m.symbol)}`);
  if (typeof m.resolutionSec !== 'number' || !(m.resolutionSec > 0)) {
    throw new CandleFileError({ file: p, field: 'resolutionSec' }, `expected a positive number, got ${quote(m.resolutionSec)}`);
  }
  return m as BundledMeta;
}
