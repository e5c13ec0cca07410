/**
 * A full L2 book side kept sorted (numbers for ordering, the exchange's strings for exact values).
 * Binance sends `[price, qty]` strings; qty 0 removes the level.
 *
 * The sorted order is an array of prices only (numbers: V8 keeps it as a packed array of doubles,
 * so inserting or removing a level moves plain 8-byte values), and each price's strings are in a
 * Map. A full-depth capture holds thousands of levels per side and changes ~46 of them a diff; with
 * level objects in the sorted array, each insertion and removal moved object pointers under the
 * garbage collector's write barrier, and the book was the largest cost of replaying a capture.
 * The best price is last, where the changes are: kept best first, every change near the top moved
 * the whole side.
 */
import { parseDecimalString } from '../../market/fast-parse.js';
import type { RawLevel } from './types.js';

/** `Number(s)`: a plain decimal string without allocating (the same double), anything else by Number. */
function toNumber(s: string): number {
  const v = parseDecimalString(s);
  return Number.isNaN(v) ? Number(s) : v;
}

export class BookSide {
  /**
   * Prices, best last: bids ascending, asks descending. Diffs change levels near the best price,
   * so the levels an insertion or removal moves are the few better ones, not the whole side.
   */
  private readonly prices: number[] = [];
  /** Each price's `[price, quantity]` strings, as given: a level that did not change is the same array in every `top`. */
  private readonly levels = new Map<number, RawLevel>();
  /** bids: descending prices; asks: ascending. */
  constructor(readonly descending: boolean) {}

  get size(): number {
    return this.prices.length;
  }

  clear(): void {
    this.prices.length = 0;
    this.levels.clear();
  }

  /** Index of the first price not worse than `p` (where `p` is or would go). */
  private find(p: number): number {
    const prices = this.prices;
    let lo = 0;
    let hi = prices.length;
    if (this.descending) {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (prices[mid]! < p) lo = mid + 1;
        else hi = mid;
      }
    } else {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (prices[mid]! > p) lo = mid + 1;
        else hi = mid;
      }
    }
    return lo;
  }

  /** Set a level; a zero quantity removes it. */
  set(price: string, qty: string): void {
    const p = toNumber(price);
    if (!Number.isFinite(p)) throw new RangeError(`book level price ${JSON.stringify(price)} is not a number`);
    const q = toNumber(qty);
    if (!Number.isFinite(q) || q < 0) throw new RangeError(`book level quantity ${JSON.stringify(qty)} at ${price} is not a valid quantity`);
    const levels = this.levels;
    if (q === 0) {
      if (levels.delete(p)) this.prices.splice(this.find(p), 1);
    } else {
      const n = levels.size;
      levels.set(p, [price, qty]);
      if (levels.size !== n) this.prices.splice(this.find(p), 0, p);
    }
  }

  best(): number | undefined {
    const n = this.prices.length;
    return n > 0 ? this.prices[n - 1] : undefined;
  }

  /** Quantity string at a price, or undefined. */
  at(price: string): string | undefined {
    return this.levels.get(Number(price))?.[1];
  }

  /** The best `n` levels, best first. */
  top(n: number): RawLevel[] {
    const prices = this.prices;
    const end = prices.length - Math.min(n, prices.length);
    const out: RawLevel[] = [];
    for (let i = prices.length - 1; i >= end; i--) out.push(this.levels.get(prices[i]!)!);
    return out;
  }
}
