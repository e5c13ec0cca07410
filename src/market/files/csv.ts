/**
 * OHLCV CSV with a header line (plain files, backtesting.py, backtrader, Yahoo, and the bundled
 * format, which is a strict case of it). Column names are matched case-insensitively:
 * - time: `datetime`, `timestamp`, then `date` + `time` (combined when both exist), then `date`,
 *   `time`, then an unnamed first column (the pandas index of backtesting.py files);
 * - `open`, `high`, `low`, `close`, `volume`. Volume in mizan is the base asset's (what the candles
 *   built from trades sum, what `volumeCapPct` takes a share of): without a `volume` column it is read
 *   from `Volume <BASE>` (`Volume BTC` of CryptoDataDownload's files for BTC/USDT; any separator, or
 *   none) when the reader is given the market's base asset. Volume-like columns (a name with
 *   `volume`, or `vol` alone or before a separator) none of which is the base asset's (`Volume BTC`
 *   and `Volume USDT` read without a base, or for ETH/USDT) stop the read naming them: taking the
 *   quote's volume, or none, would be wrong silently. No volume-like column at all: volume 0 (the
 *   reader's `volumeColumn` says so; a backtest notes it).
 * Extra columns (`OpenInterest`, `Adj Close`, ...) are ignored. Quotes around fields are stripped;
 * quoted fields containing commas are not supported (no candle file has them).
 * Rows with one field more than the header whose second field is a clock time (`09:01:00`) are read
 * as separate date and time fields (backtrader's 1-minute file has that shape). Any other row with
 * more or fewer fields than the header is refused, naming the line: its columns cannot be trusted.
 */
import { CandleFileError, quote } from './errors.js';
import type { CandleSink } from './sink.js';

const CLOCK = /^\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?$/;

export interface CsvLayout {
  time: number;
  /** Column of a separate clock-time field to append to the date, or -1. */
  clock: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  /** The volume column's name as the header writes it; undefined when there is none (volume 0). */
  volumeName: string | undefined;
  width: number;
  header: string[];
}

function clean(name: string): string {
  return name
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .trim()
    .toLowerCase();
}

/** A column name that reads as a volume of some kind: `volume` in it, or `vol` alone or before a separator. */
function volumeLike(name: string): boolean {
  return name.includes('volume') || /^vol([^a-z]|$)/.test(name);
}

/**
 * The column read as the volume: `volume`, else `Volume <base>` (letters and digits compared, so
 * `Volume BTC`, `volume_btc` and `Volume (BTC)` all match), else none (-1) when no column looks like
 * a volume. Volume-like columns none of which is the base asset's: an error naming them.
 */
function volumeColumn(file: string, headerLine: string, header: readonly string[], base: string | undefined): number {
  const exact = header.indexOf('volume');
  if (exact >= 0) return exact;
  if (base !== undefined) {
    const want = `volume${base.toLowerCase()}`;
    const i = header.findIndex((h) => h.replace(/[^a-z0-9]/g, '') === want);
    if (i >= 0) return i;
  }
  const like = headerLine
    .split(',')
    .map((h) =>
      h
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .trim(),
    )
    .filter((h, i) => volumeLike(header[i] ?? ''));
  if (like.length === 0) return -1;
  const which =
    base !== undefined
      ? `none of them is the base asset's volume (Volume ${base})`
      : "and no market was given to tell which is the base asset's (Volume <BASE>)";
  throw new CandleFileError(
    { file, line: 1, field: 'volume' },
    `volume columns ${like.map((h) => quote(h)).join(', ')}, ${which}: a candle's volume in mizan is the base asset's, read from a column named volume or Volume <BASE>`,
  );
}

/** The columns of a header line; `base` (the market's base asset) lets `Volume <BASE>` be the volume. */
export function csvLayout(file: string, headerLine: string, base?: string): CsvLayout {
  const header = headerLine.split(',').map(clean);
  const at = (name: string): number => header.indexOf(name);
  let time = at('datetime');
  let clock = -1;
  if (time < 0) time = at('timestamp');
  if (time < 0 && at('date') >= 0 && at('time') >= 0) {
    time = at('date');
    clock = at('time');
  }
  if (time < 0) time = at('date');
  if (time < 0) time = at('time');
  if (time < 0 && header[0] === '') time = 0;
  if (time < 0) {
    throw new CandleFileError(
      { file, line: 1, field: 'time' },
      `no time column in header ${quote(headerLine)} (expected time, date, timestamp, datetime or an unnamed first column)`,
    );
  }
  const need = (name: string): number => {
    const i = at(name);
    if (i < 0) throw new CandleFileError({ file, line: 1, field: name }, `no ${name} column in header ${quote(headerLine)}`);
    return i;
  };
  const open = need('open');
  const high = need('high');
  const low = need('low');
  const close = need('close');
  const volume = volumeColumn(file, headerLine, header, base);
  const names = headerLine.split(',');
  return {
    time,
    clock,
    open,
    high,
    low,
    close,
    volume,
    volumeName:
      volume >= 0
        ? (names[volume] ?? '')
            .trim()
            .replace(/^"(.*)"$/, '$1')
            .trim()
        : undefined,
    width: header.length,
    header,
  };
}

function unquote(s: string): string {
  return s.charCodeAt(0) === 34 && s.length > 1 && s.charCodeAt(s.length - 1) === 34 ? s.slice(1, -1) : s;
}

/** Parse CSV text (header first) into the sink; `base` as for csvLayout. Returns the number of data rows. */
export function parseCsv(file: string, text: string, sink: CandleSink, base?: string): number {
  let pos = 0;
  let lineNo = 0;
  let layout: CsvLayout | undefined;
  let rows = 0;
  const n = text.length;
  while (pos < n) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = n;
    let line = text.slice(pos, end);
    pos = end + 1;
    lineNo++;
    if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
    if (line.trim().length === 0) continue;
    if (layout === undefined) {
      layout = csvLayout(file, line.charCodeAt(0) === 0xfeff ? line.slice(1) : line, base);
      continue;
    }
    let f = line.split(',');
    let time: string;
    if (f.length === layout.width + 1 && layout.clock < 0 && CLOCK.test(f[layout.time + 1] ?? '')) {
      time = `${unquote(f[layout.time]!)} ${f[layout.time + 1]}`;
      f = [...f.slice(0, layout.time + 1), ...f.slice(layout.time + 2)];
    } else {
      if (f.length !== layout.width) {
        throw new CandleFileError({ file, line: lineNo }, `expected ${layout.width} fields (as the header has), got ${f.length}: ${quote(line)}`);
      }
      time = unquote(f[layout.time]!);
      if (layout.clock >= 0) time = `${time} ${unquote(f[layout.clock]!)}`;
    }
    sink.row(
      lineNo,
      time,
      unquote(f[layout.open]!),
      unquote(f[layout.high]!),
      unquote(f[layout.low]!),
      unquote(f[layout.close]!),
      layout.volume >= 0 ? unquote(f[layout.volume]!) : '0',
    );
    rows++;
  }
  if (layout === undefined) throw new CandleFileError({ file }, 'the file is empty (no header line)');
  return rows;
}
