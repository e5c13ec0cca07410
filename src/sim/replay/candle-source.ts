/**
 * A replay source from candles: each bar becomes a price path with trade prints and a consistent
 * book at every print (the model is in candle-model.ts). Prices are put on the market's tick grid
 * (rounded to nearest: the order low <= open, close <= high is kept); volumes on a quantity grid of
 * max(step decimals, the data's decimals), capped so volumes stay exact integers of units.
 * `candles()` returns these grid bars, which are exactly what the prints rebuild.
 */
import { Decimal, toDecimal } from '../../core/decimal.js';
import type { Candle } from '../../core/types/market.js';
import { modelCandle, type CandleModelOptions, type GridCandle } from './candle-model.js';
import { hashString } from './prng.js';
import { inRange, type RawLevel, type ReplayEvent, type ReplaySource } from './types.js';
import { toUnits, unitsToString } from './units.js';

export interface CandleSourceOptions {
  /** Price decimals (tick). Default: the most decimals used by the prices, at most 8. */
  tickDecimals?: number;
  /** Minimum quantity decimals (step). Default 6. */
  stepDecimals?: number;
  /** Bar length in seconds. Default: the smallest time difference in the data. */
  resolutionSec?: number;
  seed?: number;
  /** Prints per bar (at least 4). Default 12. */
  tradesPerCandle?: number;
  /** Book levels per side. Default 50. */
  levels?: number;
  /** Spread drawn from 1..maxSpreadTicks ticks. Default 3. */
  maxSpreadTicks?: number;
  /** Typical level size as a multiple of a median bar's average print. Default 1. */
  sizeScale?: number;
}

export interface CandleSource extends ReplaySource {
  readonly tickDecimals: number;
  readonly quantityDecimals: number;
}

function maxDecimals(values: Iterable<Decimal>, cap: number): number {
  let m = 0;
  for (const v of values) m = Math.max(m, v.decimalPlaces());
  return Math.min(m, cap);
}

function detectResolution(candles: readonly Candle[]): number {
  let best = Infinity;
  for (let i = 1; i < candles.length; i++) best = Math.min(best, candles[i]!.time - candles[i - 1]!.time);
  return Number.isFinite(best) && best > 0 ? best : 60;
}

function safeQuantityDecimals(candles: readonly Candle[], wanted: number): number {
  let maxVol = new Decimal(0);
  for (const c of candles) if (c.volume.gt(maxVol)) maxVol = c.volume;
  let qd = wanted;
  while (qd > 0 && maxVol.mul(new Decimal(10).pow(qd)).gt(Number.MAX_SAFE_INTEGER)) qd--;
  return qd;
}

export function candleSource(symbol: string, candles: readonly Candle[], opts: CandleSourceOptions = {}): CandleSource {
  if (candles.length === 0) throw new RangeError(`candleSource ${symbol}: no candles`);
  const td =
    opts.tickDecimals ??
    maxDecimals(
      candles.flatMap((c) => [c.open, c.high, c.low, c.close]),
      8,
    );
  const step = opts.stepDecimals ?? 6;
  const qd = safeQuantityDecimals(
    candles,
    Math.max(
      step,
      maxDecimals(
        candles.map((c) => c.volume),
        12,
      ),
    ),
  );
  const resolutionSec = opts.resolutionSec ?? detectResolution(candles);
  const grid: GridCandle[] = candles.map((c) => ({
    time: c.time,
    open: toUnits(c.open, td),
    high: toUnits(c.high, td),
    low: toUnits(c.low, td),
    close: toUnits(c.close, td),
    volume: toUnits(c.volume, qd, 'down'),
  }));
  const n = Math.max(4, opts.tradesPerCandle ?? 12);
  const vols = grid
    .map((g) => g.volume)
    .filter((v) => v > 0)
    .sort((a, b) => a - b);
  const median = vols.length ? vols[Math.floor(vols.length / 2)]! : 10 ** qd;
  const model: CandleModelOptions = {
    seed: (opts.seed ?? 1) ^ hashString(symbol),
    barMs: resolutionSec * 1000,
    tradesPerCandle: n,
    levels: opts.levels ?? 50,
    maxSpreadTicks: Math.max(1, opts.maxSpreadTicks ?? 3),
    baseLevelUnits: Math.max(1, Math.round((median / n) * (opts.sizeScale ?? 1))),
  };
  const gridCandles: Candle[] = grid.map((g) => ({
    time: g.time,
    open: toDecimal(unitsToString(g.open, td)),
    high: toDecimal(unitsToString(g.high, td)),
    low: toDecimal(unitsToString(g.low, td)),
    close: toDecimal(unitsToString(g.close, td)),
    volume: toDecimal(unitsToString(g.volume, qd)),
  }));
  const levels = (side: [number, number][]): RawLevel[] => side.map(([p, q]) => [unitsToString(p, td), unitsToString(q, qd)] as const);

  function* events(): Generator<ReplayEvent> {
    for (const g of grid) {
      for (const s of modelCandle(g, model)) {
        yield { kind: 'book', symbol, time: s.time, bids: levels(s.bids), asks: levels(s.asks) };
        if (s.quantity > 0) {
          yield {
            kind: 'trade',
            symbol,
            time: s.time,
            price: unitsToString(s.price, td),
            quantity: unitsToString(s.quantity, qd),
            isBuyOrder: s.isBuyOrder,
          };
        }
      }
    }
  }

  return {
    name: `candles:${symbol}`,
    symbols: [symbol],
    resolutionSec,
    tickDecimals: td,
    quantityDecimals: qd,
    events,
    candles: (sym, from, to) => (sym === symbol ? inRange(gridCandles, from, to) : []),
  };
}
