/**
 * The USDTTMN rate path used to derive Toman markets. Not market data: there is no USDT/Toman
 * series in the shared data, so the rate is a documented assumption.
 * `waveRate`: base x (1 + amplitude x sin(2 pi t / period)), rounded to whole Toman; t is epoch ms,
 * so the rate at a given time is the same in every replay and every loop.
 * `usdtTmnCandles` turns such a path into bars (open = rate at the start, close = rate at the end,
 * high/low a few Toman beyond, seeded volume) for a candle replay of USDTTMN itself.
 */
import { Decimal } from '../../core/decimal.js';
import type { Candle } from '../../core/types/market.js';
import type { Factor } from './derived.js';
import { mixSeed, mulberry32 } from './prng.js';

export interface WaveRateOptions {
  /** Central rate, Toman per USDT. */
  base: number;
  /** Relative amplitude (0.002 = ±0.2%). Default 0.002. */
  amplitude?: number;
  /** Default one hour. */
  periodMs?: number;
}

export function constantRate(rate: Decimal | string | number): Factor {
  const r = new Decimal(rate);
  return () => r;
}

export function waveRate(opts: WaveRateOptions): Factor {
  const amp = opts.amplitude ?? 0.002;
  const period = opts.periodMs ?? 3_600_000;
  return (t) => new Decimal(Math.round(opts.base * (1 + amp * Math.sin((2 * Math.PI * t) / period))));
}

export interface RateCandleOptions {
  fromSec: number;
  toSec: number;
  resolutionSec?: number;
  seed?: number;
  /** Typical volume per bar in USDT. Default 20000. */
  volume?: number;
  /** Largest extra excursion of high/low beyond open and close, Toman. Default 20. */
  wiggle?: number;
}

export function usdtTmnCandles(rate: Factor, o: RateCandleOptions): Candle[] {
  const res = o.resolutionSec ?? 60;
  const out: Candle[] = [];
  const start = Math.floor(o.fromSec / res) * res;
  for (let t = start; t <= o.toSec; t += res) {
    const rng = mulberry32(mixSeed(o.seed ?? 7, t));
    const open = rate(t * 1000);
    const close = rate((t + res) * 1000);
    const w = o.wiggle ?? 20;
    const high = Decimal.max(open, close).plus(Math.floor(rng() * w));
    const low = Decimal.min(open, close).minus(Math.floor(rng() * w));
    const volume = new Decimal(((o.volume ?? 20_000) * (0.3 + rng() * 1.4)).toFixed(2));
    out.push({ time: t, open, high, low, close, volume });
  }
  return out;
}
