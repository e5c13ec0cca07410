/**
 * One side of an order book. The hot path (`replace`, a full side snapshot from the stream) stores
 * each level as a float64 for ordering checks plus the raw value as it arrived (a string from the
 * stream, a number, or a Decimal): no Decimal is allocated per level. Exact Decimal prices and
 * quantities are parsed lazily, per level and once per side version, when an exact query needs them.
 *
 * Why doubles are safe for the checks: parsing a decimal string to the nearest double is monotone,
 * so `a < b` on the doubles implies `a < b` exactly; two distinct decimals can only round to the same
 * double beyond ~16 significant digits, which a side check reports as `unsorted` (never as sorted).
 */
import { Decimal, toDecimal } from '../core/decimal.js';
import { decimalToNumber, parseDecimalString } from './fast-parse.js';
import type { BookSide, RawLevel } from './ports.js';

/** Why a side was refused. */
export type SideProblem = 'malformed' | 'unsorted';

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

export class BookSideLevels {
  readonly isBid: boolean;
  /** Number of levels. */
  n = 0;
  /** Time of the last successful replace (ms), or -1 if never set. */
  updatedAt = -1;
  /** Incremented on every successful replace. */
  version = 0;
  px: Float64Array;
  qty: Float64Array;
  rawPx: RawValue[];
  rawQty: RawValue[];
  // Scratch buffers: a refused side leaves the current levels untouched.
  private sPx: Float64Array;
  private sQty: Float64Array;
  private sRawPx: RawValue[];
  private sRawQty: RawValue[];
  private decVersion = -1;
  private decPx: (Decimal | undefined)[] = [];
  private decQty: (Decimal | undefined)[] = [];

  constructor(side: BookSide) {
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
    // Swap buffers.
    this.sPx = this.px;
    this.sQty = this.qty;
    this.sRawPx = this.rawPx;
    this.sRawQty = this.rawQty;
    this.px = sPx;
    this.qty = sQty;
    this.rawPx = sRawPx;
    this.rawQty = sRawQty;
    this.n = k;
    this.updatedAt = timeMs;
    this.version++;
    return undefined;
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
    return (this.decPx[i] ??= toDecimal(this.rawPx[i], 'price'));
  }

  /** Exact quantity of level i (0 = best); parsed on first use after each replace. */
  quantity(i: number): Decimal {
    if (this.decVersion !== this.version) this.resetDecimals();
    return (this.decQty[i] ??= toDecimal(this.rawQty[i], 'quantity'));
  }

  private resetDecimals(): void {
    this.decPx = [];
    this.decQty = [];
    this.decVersion = this.version;
  }
}
