/**
 * A closed candle as strategies receive it: plain numbers for indicators and hot loops (`c`, `h`, …),
 * and the exact Decimal values on demand (`close`, `high`, …), computed only when read. Backtests
 * push a million of these per second, so no Decimal is made unless a strategy asks for one.
 */
import { Decimal, toDecimal } from '../core/decimal.js';
import type { Candle } from '../core/types/market.js';

export class Bar {
  private dOpen?: Decimal;
  private dHigh?: Decimal;
  private dLow?: Decimal;
  private dClose?: Decimal;
  private dVolume?: Decimal;

  constructor(
    /** Start of the candle, Unix seconds. */
    readonly time: number,
    readonly o: number,
    readonly h: number,
    readonly l: number,
    readonly c: number,
    readonly v: number,
    /** Length in seconds. */
    readonly seconds: number,
  ) {}

  static fromCandle(c: Candle, seconds: number): Bar {
    const b = new Bar(c.time, c.open.toNumber(), c.high.toNumber(), c.low.toNumber(), c.close.toNumber(), c.volume.toNumber(), seconds);
    b.dOpen = c.open;
    b.dHigh = c.high;
    b.dLow = c.low;
    b.dClose = c.close;
    b.dVolume = c.volume;
    return b;
  }

  get open(): Decimal {
    return (this.dOpen ??= toDecimal(this.o, 'open'));
  }
  get high(): Decimal {
    return (this.dHigh ??= toDecimal(this.h, 'high'));
  }
  get low(): Decimal {
    return (this.dLow ??= toDecimal(this.l, 'low'));
  }
  get close(): Decimal {
    return (this.dClose ??= toDecimal(this.c, 'close'));
  }
  get volume(): Decimal {
    return (this.dVolume ??= toDecimal(this.v, 'volume'));
  }
  /** Close time in milliseconds (when the strategy may act on it). */
  get closeTimeMs(): number {
    return (this.time + this.seconds) * 1000;
  }
  toCandle(): Candle {
    return { time: this.time, open: this.open, high: this.high, low: this.low, close: this.close, volume: this.volume };
  }
}
