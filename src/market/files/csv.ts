/**
 * OHLCV CSV with a header line (plain files, backtesting.py, backtrader, Yahoo, and the bundled
 * format, which is a strict case of it). Column names are matched case-insensitively:
 * - time: `datetime`, `timestamp`, then `date` + `time` (combined when both exist), then `date`,
 *   `time`, then an unnamed first column (the pandas index of backtesting.py files);
 * - `open`, `high`, `low`, `close`, `volume` (volume may be absent: then 0).
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

export function csvLayout(file: string, headerLine: string): CsvLayout {
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
  return {
    time,
    clock,
    open: need('open'),
    high: need('high'),
    low: need('low'),
    close: need('close'),
    volume: at('volume'),
    width: header.length,
    header,
  };
}

function unquote(s: string): string {
  return s.charCodeAt(0) === 34 && s.length > 1 && s.charCodeAt(s.length - 1) === 34 ? s.slice(1, -1) : s;
}

/** Parse CSV text (header first) into the sink. Returns the number of data rows. */
export function parseCsv(file: string, text: string, sink: CandleSink): number {
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
      layout = csvLayout(file, line.charCodeAt(0) === 0xfeff ? line.slice(1) : line);
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
