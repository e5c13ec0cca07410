/**
 * One side of an order book. The hot path (`replace`, a full side snapshot from the stream) parses
 * each price string straight to an integer number of ticks at the side's price scale (`scale`
 * decimals; 62525.04 at scale 2 is 6252504) and compares integers: no Decimal and no division per
 * level. The scale starts at the one given (the market's tick, when the caller knows it) and grows
 * when a plain price has more decimals. A side holding a price that is not a plain decimal that fits
 * 2^53 ticks (sign, exponent, surrounding space, a Decimal or number that is not exact at the scale)
 * is parsed as before instead: each level as a float64 (`scale` is then −1). Exact Decimal prices and
 * quantities are made lazily, per level and once per side version, when an exact query needs them:
 * a tick price from its ticks, a number quantity from its double (the same number), and only a price
 * of the float64 path or a quantity given as a string or Decimal from the value kept as given.
 *
 * Why doubles are safe for the checks of the fallback: parsing a decimal string to the nearest double
 * is monotone, so `a < b` on the doubles implies `a < b` exactly; two distinct decimals can only round
 * to the same double beyond ~16 significant digits, which a side check reports as `unsorted`.
 */
import { Decimal, toDecimal } from '../core/decimal.js';
import { decimalToNumber, parseDecimalString, parseTicks, plainDecimals, pow10 } from './fast-parse.js';
import type { BookSide, RawLevel } from './ports.js';

/** Why a side was refused. */
type SideProblem = 'malformed' | 'unsorted';

export interface SideRejection {
  problem: SideProblem;
  /** Index of the offending level and what was wrong with it. */
  index: number;
  detail: string;
}

type RawValue = string | number | Decimal;

/** Parse to a double without allocating; NaN for anything that is not a plain decimal number. */
function num(v: RawValue): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return parseDecimalString(v);
  if (v instanceof Decimal) return decimalToNumber(v);
  return NaN;
}

const INITIAL_CAPACITY = 64;
/** The largest price scale kept as ticks (10^scale stays an exact double well below 10^22). */
const MAX_SCALE = 18;
/** `replaceTicks` could not hold the side as ticks: take the float64 path. */
const NOT_TICKS = 0;
const TEN = new Decimal(10);

/** Ticks of a number price at `scale`, or −1 when it is not exactly a decimal of that many places. */
function numberTicks(v: number, scale: number): number {
  const f = pow10(scale);
  const t = Math.round(v * f);
  // Below 10^15 ticks the shortest string of v (what toDecimal reads) is exactly t × 10^−scale.
  return t > 0 && t < 1e15 && t / f === v ? t : -1;
}

export class BookSideLevels {
  readonly isBid: boolean;
  /** Number of levels. */
  n = 0;
  /** Time of the last successful replace (ms), or -1 if never set. */
  updatedAt = -1;
  /** Incremented on every successful replace. */
  version = 0;
  /** Decimals of the ticks in `px`; −1 when `px` holds float64 prices (the fallback path). */
  scale = -1;
  /** `px`: prices as integer ticks at `scale` (or float64s when `scale` is −1). */
  px: Float64Array;
  qty: Float64Array;
  /** Prices as given; kept only on the float64 path (`scale` −1): ticks are the exact price. */
  private rawPx: RawValue[];
  /** Quantities as given; kept only when one is not a number (`rawQtyKept`): a number is its `qty`. */
  private rawQty: RawValue[];
  private rawQtyKept = false;
  // Scratch buffers: a refused side leaves the current levels untouched.
  private sPx: Float64Array;
  private sQty: Float64Array;
  private sRawPx: RawValue[];
  private sRawQty: RawValue[];
  private decVersion = -1;
  private decPx: (Decimal | undefined)[] = [];
  private decQty: (Decimal | undefined)[] = [];

  /** Scale the next replace tries first: the given one, grown by what the stream showed. */
  private hint: number;

  /** `priceDecimals`: the market's price scale when known (the catalog's tick); learned otherwise. */
  constructor(side: BookSide, priceDecimals = 0) {
    if (!Number.isInteger(priceDecimals) || priceDecimals < 0 || priceDecimals > MAX_SCALE) {
      throw new RangeError(`priceDecimals must be an integer from 0 to ${MAX_SCALE}, got ${String(priceDecimals)}`);
    }
    this.hint = priceDecimals;
    this.isBid = side === 'bid';
    this.px = new Float64Array(INITIAL_CAPACITY);
    this.qty = new Float64Array(INITIAL_CAPACITY);
    this.sPx = new Float64Array(INITIAL_CAPACITY);
    this.sQty = new Float64Array(INITIAL_CAPACITY);
    this.rawPx = [];
    this.rawQty = [];
    this.sRawPx = [];
    this.sRawQty = [];
  }

  /**
   * Replace the whole side. Levels with quantity exactly 0 carry no liquidity and are skipped.
   * Returns undefined when applied, or why the side was refused (then nothing changes).
   */
  replace(levels: ArrayLike<RawLevel>, timeMs: number): SideRejection | undefined {
    const r = this.replaceTicks(levels, timeMs);
    return r === NOT_TICKS ? this.replaceDoubles(levels, timeMs) : r;
  }

  /** The tick path; NOT_TICKS when a price cannot be held as ticks (nothing changed then). */
  private replaceTicks(levels: ArrayLike<RawLevel>, timeMs: number): SideRejection | undefined | typeof NOT_TICKS {
    const len = levels.length;
    if (len > this.sPx.length) this.growScratch(len);
    const sPx = this.sPx;
    const sQty = this.sQty;
    const sRawQty = this.sRawQty;
    const bid = this.isBid;
    let sc = this.hint;
    let k = 0;
    // Number quantities are not kept as given (their double is them); from the first that is not a
    // number on, every quantity of the side is, the numbers before it copied from their doubles.
    let keepQty = false;
    let prev = bid ? Infinity : -Infinity;
    for (let i = 0; i < len; i++) {
      const l = levels[i];
      if (l === null || typeof l !== 'object') return { problem: 'malformed', index: i, detail: 'level is not an object' };
      const rp = l.price;
      const rq = l.quantity;
      const p = typeof rp === 'string' ? parseTicks(rp, sc) : typeof rp === 'number' ? numberTicks(rp, sc) : -1;
      if (p < 0) {
        // More decimals than the scale: grow it and start the side again; anything else: fall back.
        const need = typeof rp === 'string' ? plainDecimals(rp) : typeof rp === 'number' ? plainDecimals(String(rp)) : -1;
        if (need <= sc || need > MAX_SCALE) return NOT_TICKS;
        sc = need;
        k = 0;
        prev = bid ? Infinity : -Infinity;
        i = -1;
        continue;
      }
      const q = typeof rq === 'number' ? rq : num(rq);
      if (p === 0) return { problem: 'malformed', index: i, detail: `price ${String(rp)}` };
      if (!(q >= 0) || q === Infinity) return { problem: 'malformed', index: i, detail: `quantity ${String(rq)}` };
      if (q === 0) continue;
      if (bid ? p >= prev : p <= prev) {
        return { problem: 'unsorted', index: i, detail: `price ${String(rp)} after ${prev / pow10(sc)}` };
      }
      prev = p;
      sPx[k] = p;
      sQty[k] = q;
      if (keepQty) sRawQty[k] = rq;
      else if (typeof rq !== 'number') {
        keepQty = true;
        for (let j = 0; j < k; j++) sRawQty[j] = sQty[j] as number;
        sRawQty[k] = rq;
      }
      k++;
    }
    this.hint = sc;
    this.commit(k, sc, keepQty, timeMs);
    return undefined;
  }

  /** The float64 path: every price parsed to the nearest double. */
  private replaceDoubles(levels: ArrayLike<RawLevel>, timeMs: number): SideRejection | undefined {
    const len = levels.length;
    if (len > this.sPx.length) this.growScratch(len);
    const sPx = this.sPx;
    const sQty = this.sQty;
    const sRawPx = this.sRawPx;
    const sRawQty = this.sRawQty;
    const bid = this.isBid;
    let k = 0;
    let prev = bid ? Infinity : -Infinity;
    for (let i = 0; i < len; i++) {
      const l = levels[i];
      if (l === null || typeof l !== 'object') return { problem: 'malformed', index: i, detail: 'level is not an object' };
      const rp = l.price;
      const rq = l.quantity;
      const p = num(rp);
      const q = num(rq);
      if (!(p > 0) || p === Infinity) return { problem: 'malformed', index: i, detail: `price ${String(rp)}` };
      if (!(q >= 0) || q === Infinity) return { problem: 'malformed', index: i, detail: `quantity ${String(rq)}` };
      if (q === 0) continue;
      if (bid ? p >= prev : p <= prev) {
        return { problem: 'unsorted', index: i, detail: `price ${String(rp)} after ${prev}` };
      }
      prev = p;
      sPx[k] = p;
      sQty[k] = q;
      sRawPx[k] = rp;
      sRawQty[k] = rq;
      k++;
    }
    this.commit(k, -1, true, timeMs);
    return undefined;
  }

  /** Make the scratch levels current (a refused side never gets here: the old levels stay). */
  private commit(k: number, scale: number, rawQtyKept: boolean, timeMs: number): void {
    const { sPx, sQty, sRawPx, sRawQty } = this;
    this.sPx = this.px;
    this.sQty = this.qty;
    this.sRawPx = this.rawPx;
    this.sRawQty = this.rawQty;
    this.px = sPx;
    this.qty = sQty;
    this.rawPx = sRawPx;
    this.rawQty = sRawQty;
    this.n = k;
    this.scale = scale;
    this.rawQtyKept = rawQtyKept;
    this.updatedAt = timeMs;
    this.version++;
  }

  /** Price of level i as a double (the nearest double to the exact price). */
  priceNumber(i: number): number {
    const p = this.px[i] as number;
    return this.scale < 0 ? p : p / pow10(this.scale);
  }

  private growScratch(len: number): void {
    let cap = this.sPx.length;
    while (cap < len) cap *= 2;
    this.sPx = new Float64Array(cap);
    this.sQty = new Float64Array(cap);
  }

  /** Exact price of level i (0 = best); parsed on first use after each replace. */
  price(i: number): Decimal {
    if (this.decVersion !== this.version) this.resetDecimals();
    return (this.decPx[i] ??= this.scale < 0 ? toDecimal(this.rawPx[i], 'price') : this.tickDecimal(i));
  }

  /** Exact quantity of level i (0 = best); parsed on first use after each replace. */
  quantity(i: number): Decimal {
    if (this.decVersion !== this.version) this.resetDecimals();
    return (this.decQty[i] ??= toDecimal(this.rawQtyKept ? this.rawQty[i] : this.qty[i], 'quantity'));
  }

  private tickDecimal(i: number): Decimal {
    const t = new Decimal(this.px[i] as number);
    return this.scale === 0 ? t : t.div(TEN.pow(this.scale));
  }

  private resetDecimals(): void {
    this.decPx = [];
    this.decQty = [];
    this.decVersion = this.version;
  }
}
