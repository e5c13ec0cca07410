/**
 * The candle model: one OHLCV bar -> a price path with trade prints and a 50-level book at every
 * print. Integer arithmetic on grid units (ticks for prices, volume units for quantities), seeded
 * per candle so the same bar always gives the same path, whatever the replay starts from.
 *
 * Path: open -> the nearer extreme (high when high - open <= open - low) -> the other extreme ->
 * close. N prints (default 12, at least the 4 waypoints) are spread over the three legs in
 * proportion to their length (in ticks); prints between waypoints follow the straight line with
 * seeded noise, clamped to [low, high]. Print i is at `start + floor(i * bar / N)`.
 * Quantities: the bar's volume (in units) is split over the prints with exponential weights, one
 * unit reserved for each waypoint first, so the prints sum to the volume exactly and a candle
 * rebuilt from the prints equals the bar. A print that gets 0 units only moves the book.
 * Side: a print above the previous one is a taker buy, below a taker sell, equal: a coin flip.
 * Book: a taker buy at P lifts the best ask, so best ask = P and best bid = P - spread; a taker sell
 * hits the best bid, so best bid = P and best ask = P + spread. The spread is 1..maxSpreadTicks
 * ticks. Each side has `levels` levels, 1 tick apart with probability 0.7, else 2 or 3 ticks, and
 * sizes `base * U(0.3, 1.7) * (1 + 0.05 * depth)` units (base = `sizeScale` times the average
 * print of a typical bar); the level that a print hits holds at least that print's quantity.
 * Bids stop above zero, so a price of fewer than ~150 ticks has fewer bid levels.
 */
import { mixSeed, mulberry32, type Rng } from './prng.js';

export interface GridCandle {
  /** Bar start, seconds. */
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  /** Volume in quantity units. */
  volume: number;
}

export interface CandleModelOptions {
  seed: number;
  barMs: number;
  tradesPerCandle: number;
  levels: number;
  maxSpreadTicks: number;
  /** Typical level size in quantity units. */
  baseLevelUnits: number;
}

export interface ModelStep {
  time: number;
  price: number;
  /** 0: no trade at this step, only the book moves. */
  quantity: number;
  isBuyOrder: boolean;
  /** [ticks, units], best first. */
  bids: [number, number][];
  asks: [number, number][];
}

function waypoints(c: GridCandle): number[] {
  const highFirst = c.high - c.open <= c.open - c.low;
  return highFirst ? [c.open, c.high, c.low, c.close] : [c.open, c.low, c.high, c.close];
}

/** The print prices of a bar: waypoints included, in order. */
function pathPrices(c: GridCandle, n: number, rng: Rng): number[] {
  const w = waypoints(c);
  const legs = [Math.abs(w[1]! - w[0]!), Math.abs(w[2]! - w[1]!), Math.abs(w[3]! - w[2]!)];
  const interior = Math.max(0, n - 4);
  const total = legs[0]! + legs[1]! + legs[2]!;
  const share = legs.map((l) => (total === 0 ? interior / 3 : (interior * l) / total));
  const counts = share.map(Math.floor);
  let left = interior - counts[0]! - counts[1]! - counts[2]!;
  const order = [0, 1, 2].sort((a, b) => share[b]! - counts[b]! - (share[a]! - counts[a]!));
  for (let k = 0; left > 0; k = (k + 1) % 3, left--) counts[order[k]!]!++;
  const out: number[] = [w[0]!];
  for (let leg = 0; leg < 3; leg++) {
    const a = w[leg]!;
    const b = w[leg + 1]!;
    const k = counts[leg]!;
    const noise = Math.abs(b - a) * 0.15;
    for (let j = 1; j <= k; j++) {
      const lin = a + ((b - a) * j) / (k + 1);
      const p = Math.round(lin + (rng() * 2 - 1) * noise);
      out.push(Math.min(c.high, Math.max(c.low, p)));
    }
    out.push(b);
  }
  return out;
}

/** Split `units` over n prints: one unit to each waypoint first, the rest by exponential weights. */
function splitVolume(units: number, n: number, waypointIdx: readonly number[], rng: Rng): number[] {
  const q = new Array<number>(n).fill(0);
  let rest = units;
  for (const i of waypointIdx) {
    if (rest === 0) break;
    q[i]!++;
    rest--;
  }
  if (rest === 0) return q;
  const w = q.map(() => -Math.log(1 - rng()) + 1e-9);
  const sum = w.reduce((a, b) => a + b, 0);
  let given = 0;
  let biggest = 0;
  for (let i = 0; i < n; i++) {
    const part = Math.floor((rest * w[i]!) / sum);
    q[i]! += part;
    given += part;
    if (w[i]! > w[biggest]!) biggest = i;
  }
  q[biggest]! += rest - given;
  return q;
}

function side(rng: Rng, start: number, dir: 1 | -1, count: number, base: number, topAtLeast: number): [number, number][] {
  const out: [number, number][] = [];
  let p = start;
  for (let i = 0; i < count && p >= 1; i++) {
    let size = Math.max(1, Math.round(base * (0.3 + rng() * 1.4) * (1 + 0.05 * i)));
    if (i === 0 && size < topAtLeast) size += topAtLeast;
    out.push([p, size]);
    const r = rng();
    p += dir * (r < 0.7 ? 1 : r < 0.9 ? 2 : 3);
  }
  return out;
}

/** The steps of one bar. Deterministic for (seed, bar time). */
export function modelCandle(c: GridCandle, o: CandleModelOptions): ModelStep[] {
  const rng = mulberry32(mixSeed(o.seed, c.time));
  const n = Math.max(4, o.tradesPerCandle);
  const prices = pathPrices(c, n, rng);
  const legCounts = prices.length;
  const wpIdx = [0, 0, 0, legCounts - 1];
  // indices of the two extremes: the first print equal to each waypoint after the open
  const w = waypoints(c);
  wpIdx[1] = prices.indexOf(w[1]!, 1);
  wpIdx[2] = prices.indexOf(w[2]!, Math.max(1, wpIdx[1]!));
  const qty = splitVolume(c.volume, legCounts, wpIdx, rng);
  const steps: ModelStep[] = [];
  const startMs = c.time * 1000;
  let prev = prices[0]!;
  for (let i = 0; i < legCounts; i++) {
    const p = prices[i]!;
    const isBuy = p > prev ? true : p < prev ? false : rng() < 0.5;
    prev = p;
    const q = qty[i]!;
    const spread = 1 + Math.floor(rng() * o.maxSpreadTicks);
    const lifted = isBuy && q > 0;
    const bestAsk = lifted ? p : p + spread;
    const bestBid = lifted ? p - spread : p;
    const bids = side(rng, bestBid, -1, o.levels, o.baseLevelUnits, lifted ? 0 : q);
    const asks = side(rng, bestAsk, 1, o.levels, o.baseLevelUnits, lifted ? q : 0);
    steps.push({ time: startMs + Math.floor((i * o.barMs) / legCounts), price: p, quantity: q, isBuyOrder: isBuy, bids, asks });
  }
  return steps;
}
