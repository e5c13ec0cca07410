/**
 * Read candle files of any supported format, detected from the content (and the extension as a
 * hint): the bundled CSV, freqtrade JSON arrays (plain or gzip), freqtrade column-dict JSON, and
 * plain OHLCV CSV with a header. gzip is detected from the magic bytes.
 */
import { statSync } from 'node:fs';
import type { Candle } from '../../core/types/market.js';
import { trimColumns, type CandleColumns } from './columns.js';
import { isBundledHeader } from './bundled.js';
import { csvLayout, parseCsv } from './csv.js';
import { scanCsvColumns } from './csv-fast.js';
import { CandleFileError } from './errors.js';
import { isColumnDict, parseFreqtradeArrays, parseFreqtradeColumns } from './freqtrade.js';
import { ColumnSink, DecimalSink, type CandleSink, type PosKind } from './sink.js';
import { isGzip, readBytesMaybeGzip, readHead, readTextMaybeGzip } from './text.js';
import { scanCsvBytes } from './csv-bytes.js';
import { BLOCK_BYTES, scanCsvFile } from './csv-blocks.js';

export type CandleFileFormat = 'bundled' | 'freqtrade-json' | 'freqtrade-columns' | 'csv';

export interface CandleReadOptions {
  /** The market's base asset: a CSV without a `volume` column reads `Volume <BASE>` as the volume (csv.ts). */
  base?: string;
}

/** Columns read from a file: their format, and the column their volume came from (null: none, volume 0). */
export type ReadColumns = CandleColumns & { format: CandleFileFormat; volumeColumn: string | null };

interface Loaded {
  format: CandleFileFormat;
  text: string;
  json?: unknown;
}

function load(file: string, bytes?: Buffer): Loaded {
  const text = bytes === undefined ? readTextMaybeGzip(file) : bytes.toString('utf8');
  let i = 0;
  while (i < text.length && /\s|\ufeff/.test(text[i]!)) i++;
  const first = text[i];
  if (first === '[' || first === '{') {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new CandleFileError({ file }, `not valid JSON: ${(err as Error).message}`, { cause: err });
    }
    if (Array.isArray(json)) return { format: 'freqtrade-json', text, json };
    if (isColumnDict(json)) return { format: 'freqtrade-columns', text, json };
    throw new CandleFileError({ file }, 'JSON is neither an array of candle arrays nor a column dict with date and open');
  }
  const nl = text.indexOf('\n', i);
  const header = text.slice(i, nl < 0 ? text.length : nl);
  return { format: isBundledHeader(header) ? 'bundled' : 'csv', text };
}

/** The format of a candle file, from its content. */
export function detectCandleFormat(file: string): CandleFileFormat {
  return load(file).format;
}

function parseInto(file: string, l: Loaded, sink: CandleSink, base: string | undefined): void {
  if (l.format === 'freqtrade-json') parseFreqtradeArrays(file, l.json, sink);
  else if (l.format === 'freqtrade-columns') parseFreqtradeColumns(file, l.json, sink);
  else parseCsv(file, l.text, sink, base);
}

/** The first non-blank line of a CSV text (its header), without a BOM or a trailing CR. */
function headerLineOf(text: string): string {
  let i = 0;
  while (i < text.length && /\s|\ufeff/.test(text[i]!)) i++;
  const nl = text.indexOf('\n', i);
  return text.slice(i, nl < 0 ? text.length : nl).replace(/\r$/, '');
}

/** The column a CSV's volume is read from (null: none), once its rows were read (csvLayout's errors came first). */
function csvVolumeColumn(file: string, text: string, base: string | undefined): string | null {
  return csvLayout(file, headerLineOf(text), base).volumeName ?? null;
}

/** The column a JSON file's volume is read from: an array's sixth field, a column dict's `volume` (null: none). */
function jsonVolumeColumn(l: Loaded): string | null {
  if (l.format !== 'freqtrade-columns') return 'volume';
  return (l.json as Record<string, unknown>).volume === undefined ? null : 'volume';
}

function kindOf(f: CandleFileFormat): PosKind {
  return f === 'bundled' || f === 'csv' ? 'line' : 'row';
}

/** Read a candle file into Decimal candles (exact: CSV strings never pass through a float). */
export function readCandleFile(file: string, o: CandleReadOptions = {}): { format: CandleFileFormat; candles: Candle[] } {
  const l = load(file);
  const sink = new DecimalSink(file, kindOf(l.format));
  parseInto(file, l, sink, o.base);
  return { format: l.format, candles: sink.candles };
}

export function readCandles(file: string, o: CandleReadOptions = {}): Candle[] {
  return readCandleFile(file, o).candles;
}

/**
 * A CSV file's format from its bytes, when they start (after ASCII whitespace and a UTF-8 BOM) with
 * a plain ASCII header line; undefined for anything else (JSON, other leading characters): the text
 * path decides those.
 */
function csvFormatOfBytes(b: Buffer): 'bundled' | 'csv' | undefined {
  let i = b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  while (i < b.length && (b[i] === 32 || (b[i]! >= 9 && b[i]! <= 13))) i++;
  if (i >= b.length) return undefined;
  const c = b[i]!;
  if (c === 0x5b || c === 0x7b || c >= 0x80) return undefined;
  const nl = b.indexOf(10, i);
  return isBundledHeader(b.toString('utf8', i, nl < 0 ? b.length : nl)) ? 'bundled' : 'csv';
}

/**
 * Fast path for backtests: columnar Float64Arrays, no Decimal per candle. CSV files are scanned as
 * bytes (csv-bytes.ts: no string per row), into arrays sized from the first lines; a plain CSV file
 * is read in blocks (never whole), a gzipped one is gunzipped whole.
 */
export function readCandleColumns(file: string, o: CandleReadOptions = {}): ReadColumns {
  return readCandleColumnsInBlocks(file, BLOCK_BYTES, o);
}

/** readCandleColumns reading a plain CSV file `blockBytes` at a time (tests read with tiny blocks). */
export function readCandleColumnsInBlocks(file: string, blockBytes: number, o: CandleReadOptions = {}): ReadColumns {
  // A pipe or a device (`<(zcat candles.csv.gz)`) is read once, whole: its bytes cannot be read twice.
  const head = isRegularFile(file) ? readHead(file) : undefined;
  if (head && !isGzip(head)) {
    const csv = csvFormatOfBytes(head);
    if (csv !== undefined) {
      const sink = new ColumnSink(file, 'line', 0);
      const volumeColumn = () => csvVolumeColumn(file, head.toString('utf8'), o.base);
      if (scanCsvFile(file, sink, blockBytes, o.base)) return { ...trimColumns(sink.result()), format: csv, volumeColumn: volumeColumn() };
      sink.reset();
      parseCsv(file, readTextMaybeGzip(file), sink, o.base);
      return { ...trimColumns(sink.result()), format: csv, volumeColumn: volumeColumn() };
    }
  }
  const bytes = readBytesMaybeGzip(file);
  const csv = csvFormatOfBytes(bytes);
  if (csv !== undefined) {
    const sink = new ColumnSink(file, 'line', 0);
    const volumeColumn = () => csvVolumeColumn(file, bytes.toString('utf8', 0, Math.min(bytes.length, 1 << 16)), o.base);
    if (scanCsvBytes(file, bytes, sink, o.base)) return { ...trimColumns(sink.result()), format: csv, volumeColumn: volumeColumn() };
    sink.reset();
    parseCsv(file, bytes.toString('utf8'), sink, o.base);
    return { ...trimColumns(sink.result()), format: csv, volumeColumn: volumeColumn() };
  }
  return readCandleColumnsFromText(file, load(file, bytes), o);
}

function isRegularFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false; // the whole-file read below reports why it cannot be read
  }
}

/** The text path of the columnar reader (also the reference the byte scanner is tested against). */
export function readCandleColumnsFromText(file: string, l: Loaded = load(file), o: CandleReadOptions = {}): ReadColumns {
  const estimate = Array.isArray(l.json) ? l.json.length : Math.ceil(l.text.length / 32);
  const sink = new ColumnSink(file, kindOf(l.format), estimate);
  if (l.format === 'bundled' || l.format === 'csv') {
    if (!scanCsvColumns(file, l.text, sink, o.base)) {
      sink.reset();
      parseCsv(file, l.text, sink, o.base);
    }
    return { ...trimColumns(sink.result()), format: l.format, volumeColumn: csvVolumeColumn(file, l.text, o.base) };
  }
  parseInto(file, l, sink, o.base);
  return { ...trimColumns(sink.result()), format: l.format, volumeColumn: jsonVolumeColumn(l) };
}
