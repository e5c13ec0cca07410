/**
 * Candle resampling and gap filling, on UTC boundaries counted from the Unix epoch (like the live
 * aggregator). Empty candles (`empty: true`, from the live aggregator or `fillGaps`) carry no trades:
 * they never set a bucket's open, high or low; a bucket made only of empty candles is itself empty,
 * at the previous close. So resampling live 1-minute candles gives the same candles as aggregating the
 * trades at the larger resolution directly. A last bucket not fully covered by the input is still
 * returned (it is the partial candle of that period).
 */
import { Decimal } from '../core/decimal.js';
import type { Candle } from '../core/types/market.js';

export interface ResampledCandle extends Candle {
  resolution: number;
  tradeCount: number;
  empty: boolean;
}

type AnyCandle = Candle & { empty?: boolean; tradeCount?: number };

const ZERO = new Decimal(0);

/** Resample candles of `fromSec` seconds to `toSec` (a whole multiple). Input may be unsorted. */
export function resample(candles: readonly Candle[], fromSec: number, toSec: number): ResampledCandle[] {
  if (!Number.isInteger(fromSec) || fromSec < 1) throw new RangeError(`fromSec must be a positive integer, got ${fromSec}`);
  if (!Number.isInteger(toSec) || toSec < fromSec || toSec % fromSec !== 0) {
    throw new RangeError(`toSec must be a whole multiple of fromSec (${fromSec}), got ${toSec}`);
  }
  const sorted = [...candles].sort((a, b) => a.time - b.time);
  const out: ResampledCandle[] = [];
  let cur: ResampledCandle | undefined;
  let prevClose: Decimal | undefined;
  for (const c of sorted as AnyCandle[]) {
    if (c.time % fromSec !== 0) throw new RangeError(`candle time ${c.time} is not on a ${fromSec}s boundary`);
    const bucket = Math.floor(c.time / toSec) * toSec;
    if (!cur || cur.time !== bucket) {
      if (cur) {
        out.push(cur);
        prevClose = cur.close;
      }
      const p = c.empty ? c.close : c.open;
      cur = { time: bucket, open: p, high: p, low: p, close: p, volume: ZERO, resolution: toSec, tradeCount: 0, empty: true };
      if (c.empty && prevClose) cur.open = cur.high = cur.low = cur.close = prevClose;
    }
    if (c.empty) continue;
    if (cur.empty) {
      cur.open = c.open;
      cur.high = c.high;
      cur.low = c.low;
      cur.empty = false;
    } else {
      if (c.high.gt(cur.high)) cur.high = c.high;
      if (c.low.lt(cur.low)) cur.low = c.low;
    }
    cur.close = c.close;
    cur.volume = cur.volume.plus(c.volume);
    cur.tradeCount += c.tradeCount ?? 0;
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * Insert an empty candle (volume 0, prices = previous close, `empty: true`) for every missing period
 * between the first and the last candle. Input may be unsorted; duplicates keep the first.
 */
export function fillGaps(candles: readonly Candle[], resSec: number): ResampledCandle[] {
  const sorted = [...candles].sort((a, b) => a.time - b.time);
  const out: ResampledCandle[] = [];
  for (const c of sorted as AnyCandle[]) {
    const prev = out.at(-1);
    if (prev && c.time === prev.time) continue;
    if (prev) {
      for (let t = prev.time + resSec; t < c.time; t += resSec) {
        const p = prev.close;
        out.push({ time: t, open: p, high: p, low: p, close: p, volume: ZERO, resolution: resSec, tradeCount: 0, empty: true });
      }
    }
    out.push({ ...c, resolution: resSec, tradeCount: c.tradeCount ?? 0, empty: c.empty ?? false });
  }
  return out;
}
