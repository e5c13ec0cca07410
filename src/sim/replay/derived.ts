/**
 * Markets derived from another market's replay: prices times a factor (e.g. BTCTMN = BTCUSDT x
 * USDTTMN rate, ETHUSDT = BTCUSDT x an ETH/BTC ratio), on the derived market's grid.
 * - Book: bid prices rounded down and ask prices rounded up to the tick, so the derived book stays
 *   uncrossed; base levels that land on the same derived price are merged (quantities added);
 *   quantities times `quantityFactor`, rounded down to the step, empty levels dropped; at most
 *   `levels` levels per side (the base should carry more levels when several merge into one).
 * - Trades: taker buys rounded up, taker sells rounded down (the side of the book they hit).
 * - Candles: the base market's bars times the factor at the bar's start (high up, low down, open
 *   and close to nearest); volume times the quantity factor. An approximation when the factor
 *   moves within a bar.
 */
import { Decimal, toDecimal } from '../../core/decimal.js';
import type { Candle } from '../../core/types/market.js';
import type { BookEvent, RawLevel, ReplayEvent, ReplaySource, TradeEvent } from './types.js';
import { unitsToString } from './units.js';

export type Factor = (timeMs: number) => Decimal;

export interface DerivedMarket {
  symbol: string;
  /** Symbol of the base source's market. */
  from: string;
  factor: Factor;
  /** Multiplies quantities (e.g. 1 / ratio so notional is kept). Default 1. */
  quantityFactor?: Factor;
  tickDecimals: number;
  stepDecimals: number;
  /** Default 50. */
  levels?: number;
  /**
   * Extra spread of the derived market, basis points (default 0): bids and taker-sell prints times
   * (1 - s/2), asks and taker-buy prints times (1 + s/2). A derived market whose factor moves (a
   * Toman rate) needs a spread wider than the factor moves between two side messages, or its book
   * crosses; real Toman books are that wide anyway.
   */
  spreadBps?: number;
}

function halfSpread(m: DerivedMarket): Decimal {
  return new Decimal(m.spreadBps ?? 0).div(20_000);
}

const ONE = new Decimal(1);

/** Exact integer count of 1e-8 units of a plain decimal string, or undefined (more decimals, exponent). */
function units8(s: string): number | undefined {
  const dot = s.indexOf('.');
  const int = dot < 0 ? s : s.slice(0, dot);
  let frac = dot < 0 ? '' : s.slice(dot + 1);
  if (frac.length > 8) {
    if (!/^0*$/.test(frac.slice(8))) return undefined;
    frac = frac.slice(0, 8);
  }
  const n = Number(int) * 1e8 + (frac.length ? Number(frac.padEnd(8, '0')) : 0);
  return Number.isSafeInteger(n) && /^\d+$/.test(int) && /^\d*$/.test(frac) ? n : undefined;
}

const E8 = new Decimal(1e8);

/**
 * Bucket of a derived price on the tick grid (floor for bids, ceil for asks). Computed in floats,
 * and again with Decimal when the float lands within 1e-12 (relative) of a grid line (where a float could
 * round to the wrong side), so the result is exact. (The float product is within ~1e-15 relative.)
 */
function bucket(p: string, f: Decimal, fNum: number, scale: number, td: number, bid: boolean): number {
  const x = Number(p) * fNum * scale;
  const r = Math.round(x);
  if (Math.abs(x - r) > Math.abs(x) * 1e-12 + 1e-9) return bid ? Math.floor(x) : Math.ceil(x);
  return toDecimal(p, 'price')
    .mul(f)
    .toDecimalPlaces(td, bid ? Decimal.ROUND_FLOOR : Decimal.ROUND_CEIL)
    .mul(scale)
    .toNumber();
}

function deriveSide(levels: readonly RawLevel[], f: Decimal, qf: Decimal, m: DerivedMarket, bid: boolean): RawLevel[] {
  const max = m.levels ?? 50;
  const td = m.tickDecimals;
  const scale = 10 ** td;
  const fNum = f.toNumber();
  const out: RawLevel[] = [];
  let cur: number | undefined;
  let sumUnits = 0; // base quantity in 1e-8 units
  let sumDec: Decimal | undefined; // used instead when a quantity is not a plain <= 8-decimal string
  const qfNum = qf.toNumber();
  const shift = 10 ** (8 - m.stepDecimals);
  const flush = (): void => {
    if (cur === undefined || cur <= 0) return;
    let qUnits: number;
    const x = (sumUnits * qfNum) / shift;
    if (sumDec === undefined && m.stepDecimals <= 8 && Math.abs(x - Math.round(x)) > Math.abs(x) * 1e-12 + 1e-9) {
      qUnits = Math.floor(x);
    } else {
      const base = (sumDec ?? new Decimal(0)).plus(new Decimal(sumUnits).div(E8));
      qUnits = base
        .mul(qf)
        .toDecimalPlaces(m.stepDecimals, Decimal.ROUND_FLOOR)
        .mul(10 ** m.stepDecimals)
        .toNumber();
    }
    if (qUnits > 0) out.push([unitsToString(cur, td), unitsToString(qUnits, m.stepDecimals)]);
  };
  for (const [p, q] of levels) {
    const b = bucket(p, f, fNum, scale, td, bid);
    if (b !== cur) {
      flush();
      if (out.length >= max) return out;
      cur = b;
      sumUnits = 0;
      sumDec = undefined;
    }
    const u = units8(q);
    if (u !== undefined && Number.isSafeInteger(sumUnits + u)) sumUnits += u;
    else sumDec = (sumDec ?? new Decimal(0)).plus(toDecimal(q, 'quantity'));
  }
  if (out.length < max) flush();
  return out;
}

function deriveBook(ev: BookEvent, m: DerivedMarket): BookEvent {
  const f = m.factor(ev.time);
  const qf = m.quantityFactor ? m.quantityFactor(ev.time) : ONE;
  const h = halfSpread(m);
  return {
    kind: 'book',
    symbol: m.symbol,
    time: ev.time,
    bids: deriveSide(ev.bids, h.isZero() ? f : f.mul(ONE.minus(h)), qf, m, true),
    asks: deriveSide(ev.asks, h.isZero() ? f : f.mul(ONE.plus(h)), qf, m, false),
  };
}

function deriveTrade(ev: TradeEvent, m: DerivedMarket): TradeEvent | undefined {
  const h = halfSpread(m);
  const f = m.factor(ev.time).mul(ev.isBuyOrder ? ONE.plus(h) : ONE.minus(h));
  const qf = m.quantityFactor ? m.quantityFactor(ev.time) : ONE;
  const price = toDecimal(ev.price, 'price')
    .mul(f)
    .toDecimalPlaces(m.tickDecimals, ev.isBuyOrder ? Decimal.ROUND_CEIL : Decimal.ROUND_FLOOR);
  const qty = toDecimal(ev.quantity, 'quantity').mul(qf).toDecimalPlaces(m.stepDecimals, Decimal.ROUND_FLOOR);
  if (qty.lte(0) || price.lte(0)) return undefined;
  return { kind: 'trade', symbol: m.symbol, time: ev.time, price: price.toFixed(), quantity: qty.toFixed(), isBuyOrder: ev.isBuyOrder };
}

function deriveCandle(c: Candle, m: DerivedMarket): Candle {
  const f = m.factor(c.time * 1000);
  const qf = m.quantityFactor ? m.quantityFactor(c.time * 1000) : ONE;
  const td = m.tickDecimals;
  return {
    time: c.time,
    open: c.open.mul(f).toDecimalPlaces(td, Decimal.ROUND_HALF_UP),
    high: c.high.mul(f).toDecimalPlaces(td, Decimal.ROUND_CEIL),
    low: c.low.mul(f).toDecimalPlaces(td, Decimal.ROUND_FLOOR),
    close: c.close.mul(f).toDecimalPlaces(td, Decimal.ROUND_HALF_UP),
    volume: c.volume.mul(qf).toDecimalPlaces(m.stepDecimals, Decimal.ROUND_FLOOR),
  };
}

export interface DerivedSourceOptions {
  /** Also emit the base source's own events (default true). */
  includeBase?: boolean;
  /** Levels per side of the base market's own book events (default 50). */
  baseLevels?: number;
}

/** One source emitting the base events and the derived markets' events, from one pass of the base. */
export function derivedSource(base: ReplaySource, markets: readonly DerivedMarket[], opts: DerivedSourceOptions = {}): ReplaySource {
  const includeBase = opts.includeBase ?? true;
  const baseLevels = opts.baseLevels ?? 50;
  for (const m of markets) {
    if (!base.symbols.includes(m.from)) throw new RangeError(`derived ${m.symbol}: base source has no market ${m.from}`);
  }
  function* events(): Generator<ReplayEvent> {
    const it = base.events();
    for (let r = it.next(); !r.done; r = it.next()) {
      const ev = r.value;
      if (includeBase) {
        yield ev.kind === 'book' && (ev.bids.length > baseLevels || ev.asks.length > baseLevels)
          ? { ...ev, bids: ev.bids.slice(0, baseLevels), asks: ev.asks.slice(0, baseLevels) }
          : ev;
      }
      for (const m of markets) {
        if (m.from !== ev.symbol) continue;
        if (ev.kind === 'book') yield deriveBook(ev, m);
        else {
          const t = deriveTrade(ev, m);
          if (t) yield t;
        }
      }
    }
  }
  const symbols = [...(includeBase ? base.symbols : []), ...markets.map((m) => m.symbol)];
  return {
    name: `derived:${markets.map((m) => m.symbol).join(',')}`,
    symbols,
    resolutionSec: base.resolutionSec,
    events,
    candles(symbol, from, to) {
      const m = markets.find((x) => x.symbol === symbol);
      if (m) return base.candles(m.from, from, to).map((c) => deriveCandle(c, m));
      return includeBase ? base.candles(symbol, from, to) : [];
    },
  };
}

/** `<BASE>USDT` -> `<BASE>TMN` markets: USDT prices times a USDTTMN rate, whole Toman. */
function tmnMarkets(usdtSymbols: readonly string[], rate: Factor, stepDecimals: Record<string, number> = {}): DerivedMarket[] {
  return usdtSymbols.map((s) => {
    if (!s.endsWith('USDT')) throw new RangeError(`tmnMarkets: ${s} is not a USDT market`);
    const symbol = s.slice(0, -4) + 'TMN';
    return { symbol, from: s, factor: rate, tickDecimals: 0, stepDecimals: stepDecimals[symbol] ?? 6 };
  });
}

/** Derive TMN markets from a source of USDT markets (all of them unless `symbols` is given). */
export function derivedTmnSource(
  usdtSource: ReplaySource,
  rate: Factor,
  opts: DerivedSourceOptions & { symbols?: readonly string[]; stepDecimals?: Record<string, number> } = {},
): ReplaySource {
  const syms = opts.symbols ?? usdtSource.symbols.filter((s) => s.endsWith('USDT'));
  return derivedSource(usdtSource, tmnMarkets(syms, rate, opts.stepDecimals), opts);
}
