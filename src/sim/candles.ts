/**
 * Candles for `/v1/udf/history`: a base series per market, given with `setCandles` (for example
 * from a candle file) and extended by every trade the simulator prints, aggregated on request into
 * the asked resolution (buckets aligned to the Unix epoch, as the exchange's are).
 */
import { Decimal } from '../core/decimal.js';
import type { Candle } from '../core/types/index.js';

interface Series {
  baseSeconds: number;
  candles: Candle[];
  /** The most candles kept: the larger of the store's cap and the series given with `set`. */
  limit: number;
}

/**
 * Candles a market keeps beyond the series it was given (7 days of 1-minute candles): trades add
 * one a minute, so a simulator that runs for weeks (a paper bot's) would otherwise grow by ~0.5 MB
 * a market a day (bench/soak.ts). The oldest go first.
 */
export const SIM_CANDLES_KEPT = 10_080;

function lowerBound(list: Candle[], time: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.time < time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class CandleStore {
  private readonly series = new Map<string, Series>();

  constructor(readonly maxCandles = SIM_CANDLES_KEPT) {
    if (!Number.isInteger(maxCandles) || maxCandles < 1) throw new RangeError(`maxCandles must be a positive integer, got ${maxCandles}`);
  }

  /** Replace a market's base series. `baseSeconds` defaults to the smallest spacing seen (60 when unknown). */
  set(symbol: string, candles: Candle[], baseSeconds?: number): void {
    const sorted = candles.map((c) => ({ ...c })).sort((a, b) => a.time - b.time);
    let base = baseSeconds;
    if (base === undefined) {
      base = Infinity;
      for (let i = 1; i < sorted.length; i++) base = Math.min(base, sorted[i]!.time - sorted[i - 1]!.time);
      if (!Number.isFinite(base) || base <= 0) base = 60;
    }
    this.series.set(symbol, { baseSeconds: base, candles: sorted, limit: Math.max(this.maxCandles, sorted.length) });
  }

  /** Add a trade to the base candle that holds its time. */
  record(symbol: string, price: Decimal, quantity: Decimal, timestampMs: number): void {
    let s = this.series.get(symbol);
    if (!s) this.series.set(symbol, (s = { baseSeconds: 60, candles: [], limit: this.maxCandles }));
    const time = Math.floor(timestampMs / 1000 / s.baseSeconds) * s.baseSeconds;
    const i = lowerBound(s.candles, time);
    const c = s.candles[i];
    if (c && c.time === time) {
      if (price.gt(c.high)) c.high = price;
      if (price.lt(c.low)) c.low = price;
      c.close = price;
      c.volume = c.volume.plus(quantity);
    } else {
      s.candles.splice(i, 0, { time, open: price, high: price, low: price, close: price, volume: quantity });
      if (s.candles.length > s.limit) s.candles.splice(0, s.candles.length - s.limit);
    }
  }

  /** Candles whose start lies in [fromSec, toSec], aggregated to `resolutionSeconds` (never finer than the base). */
  history(symbol: string, resolutionSeconds: number, fromSec: number, toSec: number): Candle[] {
    const s = this.series.get(symbol);
    if (!s) return [];
    const res = Math.max(resolutionSeconds, s.baseSeconds);
    const start = Math.floor(fromSec / res) * res;
    const out: Candle[] = [];
    for (let i = lowerBound(s.candles, start); i < s.candles.length; i++) {
      const c = s.candles[i]!;
      if (c.time > toSec) break;
      const t = Math.floor(c.time / res) * res;
      const cur = out[out.length - 1];
      if (cur && cur.time === t) {
        if (c.high.gt(cur.high)) cur.high = c.high;
        if (c.low.lt(cur.low)) cur.low = c.low;
        cur.close = c.close;
        cur.volume = cur.volume.plus(c.volume);
      } else {
        out.push({ time: t, open: c.open, high: c.high, low: c.low, close: c.close, volume: new Decimal(c.volume) });
      }
    }
    return out;
  }
}
