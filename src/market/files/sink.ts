/**
 * Format parsers hand each row to a sink as raw values (strings from CSV, numbers from JSON). The
 * Decimal sink builds `Candle[]` exactly (strings never go through a float); the column sink fills
 * Float64Arrays for backtests. Both check the same things and name file, line/row and field:
 * a readable time, strictly increasing times, numeric OHLCV, prices > 0, low <= open, close <= high,
 * volume >= 0.
 */
import { Decimal, DecimalParseError, toDecimal } from '../../core/decimal.js';
import type { Candle } from '../../core/types/market.js';
import { allocColumns, trimColumns, type CandleColumns } from './columns.js';
import { CandleFileError, quote, type CandleFileLocation } from './errors.js';
import { parseTimeValue } from './time.js';

export type RawValue = string | number;

export interface CandleSink {
  /** `pos` is a 1-based line for text files, a 0-based row for JSON. */
  row(pos: number, time: RawValue, o: RawValue, h: RawValue, l: RawValue, c: RawValue, v: RawValue): void;
}

export type PosKind = 'line' | 'row';

function where(file: string, kind: PosKind, pos: number, field?: string): CandleFileLocation {
  const loc: CandleFileLocation = kind === 'line' ? { file, line: pos } : { file, row: pos };
  if (field !== undefined) loc.field = field;
  return loc;
}

abstract class CheckingSink implements CandleSink {
  protected lastTime = -Infinity;
  constructor(
    readonly file: string,
    readonly kind: PosKind,
  ) {}

  protected fail(pos: number, field: string | undefined, problem: string): never {
    throw new CandleFileError(where(this.file, this.kind, pos, field), problem);
  }

  protected time(pos: number, raw: RawValue): number {
    const t = parseTimeValue(raw);
    if (Number.isNaN(t)) this.fail(pos, 'time', `expected an epoch number or an ISO date, got ${quote(raw)}`);
    if (t <= this.lastTime) {
      this.fail(pos, 'time', `times must increase: ${quote(raw)} is not after the previous row`);
    }
    this.lastTime = t;
    return t;
  }

  protected shape(pos: number, o: number, h: number, l: number, c: number, v: number): void {
    // A price of zero or below is no trade price: one such row would value the account at nothing
    // (a 0,0,0,0 row moved a backtest's max drawdown from 11.8 % to 51.4 %).
    if (!(o > 0)) this.fail(pos, 'open', `open ${o} is not a positive price`);
    if (!(h > 0)) this.fail(pos, 'high', `high ${h} is not a positive price`);
    if (!(l > 0)) this.fail(pos, 'low', `low ${l} is not a positive price`);
    if (!(c > 0)) this.fail(pos, 'close', `close ${c} is not a positive price`);
    if (l > h) this.fail(pos, 'low', `low ${l} is above high ${h}`);
    if (o > h || c > h) this.fail(pos, 'high', `high ${h} is below open ${o} or close ${c}`);
    if (o < l || c < l) this.fail(pos, 'low', `low ${l} is above open ${o} or close ${c}`);
    if (v < 0) this.fail(pos, 'volume', `volume ${v} is negative`);
  }

  abstract row(pos: number, t: RawValue, o: RawValue, h: RawValue, l: RawValue, c: RawValue, v: RawValue): void;
}

export class DecimalSink extends CheckingSink {
  readonly candles: Candle[] = [];

  private dec(pos: number, field: string, raw: RawValue): Decimal {
    try {
      return toDecimal(raw, field);
    } catch (err) {
      if (err instanceof DecimalParseError) this.fail(pos, field, `expected a number, got ${quote(raw)}`);
      throw err;
    }
  }

  row(pos: number, t: RawValue, o: RawValue, h: RawValue, l: RawValue, c: RawValue, v: RawValue): void {
    const time = this.time(pos, t);
    const candle: Candle = {
      time,
      open: this.dec(pos, 'open', o),
      high: this.dec(pos, 'high', h),
      low: this.dec(pos, 'low', l),
      close: this.dec(pos, 'close', c),
      volume: this.dec(pos, 'volume', v),
    };
    // raw values passed toDecimal's strict check, so Number() of them is their float value
    this.shape(pos, Number(o), Number(h), Number(l), Number(c), Number(v));
    this.candles.push(candle);
  }
}

export class ColumnSink extends CheckingSink {
  private cols: CandleColumns;
  constructor(file: string, kind: PosKind, capacity: number) {
    super(file, kind);
    this.cols = allocColumns(Math.max(16, capacity));
  }

  private num(pos: number, field: string, raw: RawValue): number {
    const n = typeof raw === 'number' ? raw : raw.length === 0 ? NaN : Number(raw);
    if (!Number.isFinite(n)) this.fail(pos, field, `expected a number, got ${quote(raw)}`);
    return n;
  }

  row(pos: number, t: RawValue, o: RawValue, h: RawValue, l: RawValue, c: RawValue, v: RawValue): void {
    this.append(
      pos,
      this.time(pos, t),
      this.num(pos, 'open', o),
      this.num(pos, 'high', h),
      this.num(pos, 'low', l),
      this.num(pos, 'close', c),
      this.num(pos, 'volume', v),
    );
  }

  /** A row already read as numbers (`time` an epoch number of any unit). */
  rowNumbers(pos: number, t: number, open: number, high: number, low: number, close: number, volume: number): void {
    this.append(pos, this.time(pos, t), open, high, low, close, volume);
  }

  /** Check a parsed row's shape and add it to the columns. */
  private append(pos: number, time: number, open: number, high: number, low: number, close: number, volume: number): void {
    this.shape(pos, open, high, low, close, volume);
    let cols = this.cols;
    const i = cols.length;
    if (i === cols.time.length) cols = this.grow();
    cols.time[i] = time;
    cols.open[i] = open;
    cols.high[i] = high;
    cols.low[i] = low;
    cols.close[i] = close;
    cols.volume[i] = volume;
    cols.length = i + 1;
  }

  // The byte scanner's direct access (csv-bytes.ts ColumnWriter): it fills the arrays itself.
  get columns(): CandleColumns {
    return this.cols;
  }

  get last(): number {
    return this.lastTime;
  }

  sync(length: number, last: number): void {
    this.cols.length = length;
    this.lastTime = last;
  }

  /** Room for at least `rows` more rows: the arrays grown to exactly that when they are short. */
  reserve(rows: number): CandleColumns {
    const old = this.cols;
    if (old.time.length - old.length >= rows) return old;
    const next = allocColumns(old.length + rows);
    for (const k of ['time', 'open', 'high', 'low', 'close', 'volume'] as const) next[k].set(old[k].subarray(0, old.length));
    next.length = old.length;
    this.cols = next;
    return next;
  }

  /** Start again (the fast CSV scan gave up part way). */
  reset(): void {
    this.cols.length = 0;
    this.lastTime = -Infinity;
  }

  private grow(): CandleColumns {
    const old = this.cols;
    const next = allocColumns(old.time.length * 2);
    next.time.set(old.time);
    next.open.set(old.open);
    next.high.set(old.high);
    next.low.set(old.low);
    next.close.set(old.close);
    next.volume.set(old.volume);
    next.length = old.length;
    this.cols = next;
    return next;
  }

  result(): CandleColumns {
    return trimColumns(this.cols);
  }
}
