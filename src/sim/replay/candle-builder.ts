/** Build OHLCV candles from trade prints (exact decimal strings in, Decimal candles out). */
import { Decimal } from '../../core/decimal.js';
import type { Candle } from '../../core/types/market.js';

export class CandleBuilder {
  private readonly bars: Candle[] = [];
  private hiN = -Infinity;
  private loN = Infinity;
  /** `maxBars`: the newest bars kept (the oldest are dropped), unbounded by default (one pass of a file). */
  constructor(
    readonly resolutionSec: number,
    readonly maxBars = Infinity,
  ) {
    if (!(resolutionSec > 0)) throw new RangeError(`resolutionSec must be positive, got ${resolutionSec}`);
    if (!(maxBars >= 1)) throw new RangeError(`maxBars must be at least 1, got ${maxBars}`);
  }

  /** Add a print; times must not go back past the current bar. */
  add(timeMs: number, price: string, quantity: string): void {
    const start = Math.floor(timeMs / 1000 / this.resolutionSec) * this.resolutionSec;
    const last = this.bars[this.bars.length - 1];
    const p = Number(price);
    if (!last || start > last.time) {
      const d = new Decimal(price);
      this.bars.push({ time: start, open: d, high: d, low: d, close: d, volume: new Decimal(quantity) });
      if (this.bars.length > this.maxBars) this.bars.splice(0, this.bars.length - this.maxBars);
      this.hiN = p;
      this.loN = p;
      return;
    }
    const bar = start < last.time ? undefined : last;
    if (!bar) return; // late print for a finished bar: ignored (sources are time-ordered)
    const d = new Decimal(price);
    if (p > this.hiN) {
      bar.high = d;
      this.hiN = p;
    }
    if (p < this.loN) {
      bar.low = d;
      this.loN = p;
    }
    bar.close = d;
    bar.volume = bar.volume.plus(quantity);
  }

  candles(fromSec = -Infinity, toSec = Infinity): Candle[] {
    return this.bars.filter((c) => c.time >= fromSec && c.time <= toSec).map((c) => ({ ...c }));
  }

  get length(): number {
    return this.bars.length;
  }
}
