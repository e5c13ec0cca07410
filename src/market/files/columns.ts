/**
 * Columnar candles for backtest hot loops: plain Float64Arrays, no Decimal per candle
 * (ARCHITECTURE.md: decimal.js is ~400x slower than a float add). `time` is Unix seconds.
 */
import { toDecimal } from '../../core/decimal.js';
import type { Candle } from '../../core/types/market.js';

export interface CandleColumns {
  length: number;
  time: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
}

export function allocColumns(capacity: number): CandleColumns {
  return {
    length: 0,
    time: new Float64Array(capacity),
    open: new Float64Array(capacity),
    high: new Float64Array(capacity),
    low: new Float64Array(capacity),
    close: new Float64Array(capacity),
    volume: new Float64Array(capacity),
  };
}

/** Trim the arrays to `length` (views, no copy). */
export function trimColumns(c: CandleColumns): CandleColumns {
  const n = c.length;
  return {
    length: n,
    time: c.time.subarray(0, n),
    open: c.open.subarray(0, n),
    high: c.high.subarray(0, n),
    low: c.low.subarray(0, n),
    close: c.close.subarray(0, n),
    volume: c.volume.subarray(0, n),
  };
}

export function candlesToColumns(candles: readonly Candle[]): CandleColumns {
  const c = allocColumns(candles.length);
  for (let i = 0; i < candles.length; i++) {
    const k = candles[i]!;
    c.time[i] = k.time;
    c.open[i] = k.open.toNumber();
    c.high[i] = k.high.toNumber();
    c.low[i] = k.low.toNumber();
    c.close[i] = k.close.toNumber();
    c.volume[i] = k.volume.toNumber();
  }
  c.length = candles.length;
  return c;
}

/** Back to Decimal candles (prices through their shortest printed form, as toDecimal does). */
export function columnsToCandles(c: CandleColumns): Candle[] {
  const out: Candle[] = new Array(c.length);
  for (let i = 0; i < c.length; i++) {
    out[i] = {
      time: c.time[i]!,
      open: toDecimal(c.open[i]!),
      high: toDecimal(c.high[i]!),
      low: toDecimal(c.low[i]!),
      close: toDecimal(c.close[i]!),
      volume: toDecimal(c.volume[i]!),
    };
  }
  return out;
}
