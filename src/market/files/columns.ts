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

/**
 * The same candles in one SharedArrayBuffer (six Float64Array views over it, `length` rows each): a
 * worker thread given these shares the memory instead of receiving a copy (structured cloning copies
 * an ordinary typed array, and with it the whole buffer under a trimmed view). Already-shared columns
 * come back as they are.
 */
export function shareColumns(c: CandleColumns): CandleColumns {
  if (c.time.buffer instanceof SharedArrayBuffer) return c;
  const n = c.length;
  const buf = new SharedArrayBuffer(6 * n * Float64Array.BYTES_PER_ELEMENT);
  const view = (k: number, from: Float64Array): Float64Array => {
    const a = new Float64Array(buf, k * n * Float64Array.BYTES_PER_ELEMENT, n);
    a.set(from.subarray(0, n));
    return a;
  };
  return {
    length: n,
    time: view(0, c.time),
    open: view(1, c.open),
    high: view(2, c.high),
    low: view(3, c.low),
    close: view(4, c.close),
    volume: view(5, c.volume),
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
