/**
 * A closed candle as strategies receive it: plain numbers for indicators and hot loops (`c`, `h`, …),
 * and the exact Decimal values on demand (`close`, `high`, …), computed only when read. Backtests
 * push a million of these per second, so a bar read from columns (`Bar.fromColumns`: a backtest's
 * series) holds only a reference to the columns and its index: no number is copied or boxed and no
 * Decimal is made unless a strategy asks for one. A bar never changes: the columns behind it are
 * not written after they are loaded.
 */
import { Decimal, toDecimal } from '../core/decimal.js';
import type { Candle } from '../core/types/market.js';

/** OHLCV columns a bar can be read from (times in Unix seconds). */
export interface BarColumns {
  readonly time: ArrayLike<number>;
  readonly open: ArrayLike<number>;
  readonly high: ArrayLike<number>;
  readonly low: ArrayLike<number>;
  readonly close: ArrayLike<number>;
  readonly volume: ArrayLike<number>;
}

/** The Decimal values, made when first read. */
interface BarDecimals {
  open?: Decimal;
  high?: Decimal;
  low?: Decimal;
  close?: Decimal;
  volume?: Decimal;
}

export class Bar {
  private readonly cols: BarColumns;
  private readonly i: number;
  /** Length in seconds. */
  readonly seconds: number;
  private dec: BarDecimals | undefined;

  /** A bar from its numbers: start (Unix seconds), open, high, low, close, volume, length (seconds). */
  constructor(time: number, o: number, h: number, l: number, c: number, v: number, seconds: number);
  /** Row `index` of `columns` (no copy). */
  constructor(columns: BarColumns, index: number, seconds: number);
  constructor(time: number | BarColumns, o: number, h: number, l?: number, c?: number, v?: number, seconds?: number) {
    // Both forms set the same fields in the same order (one object shape for every bar).
    if (typeof time === 'number') {
      this.cols = { time: [time], open: [o], high: [h], low: [l!], close: [c!], volume: [v!] };
      this.i = 0;
      this.seconds = seconds!;
    } else {
      this.cols = time;
      this.i = o;
      this.seconds = h;
    }
    this.dec = undefined;
  }

  /** Row `index` of `columns` as a bar of `seconds` (the backtest's per-candle bar). */
  static fromColumns(columns: BarColumns, index: number, seconds: number): Bar {
    return new Bar(columns, index, seconds);
  }

  static fromCandle(c: Candle, seconds: number): Bar {
    const b = new Bar(c.time, c.open.toNumber(), c.high.toNumber(), c.low.toNumber(), c.close.toNumber(), c.volume.toNumber(), seconds);
    b.dec = { open: c.open, high: c.high, low: c.low, close: c.close, volume: c.volume };
    return b;
  }

  /** Start of the candle, Unix seconds. */
  get time(): number {
    return this.cols.time[this.i]!;
  }
  get o(): number {
    return this.cols.open[this.i]!;
  }
  get h(): number {
    return this.cols.high[this.i]!;
  }
  get l(): number {
    return this.cols.low[this.i]!;
  }
  get c(): number {
    return this.cols.close[this.i]!;
  }
  get v(): number {
    return this.cols.volume[this.i]!;
  }

  private decimals(): BarDecimals {
    return (this.dec ??= {});
  }
  get open(): Decimal {
    const d = this.decimals();
    return (d.open ??= toDecimal(this.o, 'open'));
  }
  get high(): Decimal {
    const d = this.decimals();
    return (d.high ??= toDecimal(this.h, 'high'));
  }
  get low(): Decimal {
    const d = this.decimals();
    return (d.low ??= toDecimal(this.l, 'low'));
  }
  get close(): Decimal {
    const d = this.decimals();
    return (d.close ??= toDecimal(this.c, 'close'));
  }
  get volume(): Decimal {
    const d = this.decimals();
    return (d.volume ??= toDecimal(this.v, 'volume'));
  }
  /** Close time in milliseconds (when the strategy may act on it). */
  get closeTimeMs(): number {
    return (this.time + this.seconds) * 1000;
  }
  toCandle(): Candle {
    return { time: this.time, open: this.open, high: this.high, low: this.low, close: this.close, volume: this.volume };
  }
  /** The plain fields (what `JSON.stringify` and logs show). */
  toJSON(): { time: number; o: number; h: number; l: number; c: number; v: number; seconds: number } {
    return { time: this.time, o: this.o, h: this.h, l: this.l, c: this.c, v: this.v, seconds: this.seconds };
  }
}
