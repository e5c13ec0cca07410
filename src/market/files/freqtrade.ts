/**
 * freqtrade candle JSON:
 * - arrays: `[[ts_ms_utc, open, high, low, close, volume], ...]` (plain or .json.gz);
 * - column dict (pandas `to_json()` default): `{"date": {"0": ms, ...}, "open": {...}, ...}`.
 * Times are UTC bar starts. Values may be numbers or numeric strings.
 */
import { CandleFileError, quote } from './errors.js';
import type { CandleSink, RawValue } from './sink.js';

function raw(file: string, row: number, field: string, v: unknown): RawValue {
  if (typeof v === 'number' || typeof v === 'string') return v;
  throw new CandleFileError({ file, row, field }, `expected a number, got ${quote(v)}`);
}

export function parseFreqtradeArrays(file: string, data: unknown, sink: CandleSink): number {
  if (!Array.isArray(data)) throw new CandleFileError({ file }, 'expected a JSON array of candle arrays');
  for (let i = 0; i < data.length; i++) {
    const r: unknown = data[i];
    if (!Array.isArray(r) || r.length < 6) {
      throw new CandleFileError({ file, row: i }, `expected [ts_ms, open, high, low, close, volume], got ${quote(r)}`);
    }
    sink.row(
      i,
      raw(file, i, 'time', r[0]),
      raw(file, i, 'open', r[1]),
      raw(file, i, 'high', r[2]),
      raw(file, i, 'low', r[3]),
      raw(file, i, 'close', r[4]),
      raw(file, i, 'volume', r[5]),
    );
  }
  return data.length;
}

const FIELDS = ['open', 'high', 'low', 'close', 'volume'] as const;

export function isColumnDict(data: unknown): data is Record<string, Record<string, unknown>> {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return false;
  const o = data as Record<string, unknown>;
  return (o.date !== undefined || o.time !== undefined || o.timestamp !== undefined) && typeof o.open === 'object';
}

export function parseFreqtradeColumns(file: string, data: unknown, sink: CandleSink): number {
  if (!isColumnDict(data)) {
    throw new CandleFileError({ file }, 'expected a column-dict JSON object {"date": {...}, "open": {...}, ...}');
  }
  const dates = data.date ?? data.time ?? data.timestamp;
  if (dates === null || typeof dates !== 'object') throw new CandleFileError({ file, field: 'date' }, 'the date column is not an object');
  const cols: Record<string, unknown>[] = FIELDS.map((name) => {
    const col = data[name];
    if (name === 'volume' && col === undefined) return {};
    if (col === null || typeof col !== 'object') {
      throw new CandleFileError({ file, field: name }, `the ${name} column is missing or not an object`);
    }
    return col;
  });
  const keys = Object.keys(dates);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const vol = cols[4]![k];
    sink.row(
      i,
      raw(file, i, 'time', dates[k]),
      raw(file, i, 'open', cols[0]![k]),
      raw(file, i, 'high', cols[1]![k]),
      raw(file, i, 'low', cols[2]![k]),
      raw(file, i, 'close', cols[3]![k]),
      vol === undefined || vol === null ? 0 : raw(file, i, 'volume', vol),
    );
  }
  return keys.length;
}
