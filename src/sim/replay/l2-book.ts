/**
 * A full L2 book side kept sorted (numbers for ordering, the exchange's strings for exact values).
 * Binance sends `[price, qty]` strings; qty 0 removes the level.
 *
 * The sorted order is two arrays: the prices (numbers: V8 keeps them as a packed array of doubles,
 * searched by bisection) and, in the same order, each level's strings. The best price is last,
 * where the changes are: a full-depth capture holds thousands of levels per side and changes ~46 of
 * them a diff, a few hundred levels from the top on average, so an insertion or removal moves those
 * few hundred values (kept best first, every change near the top moved the whole side, and that
 * was the largest cost of replaying a capture). No Map: the bisection finds a level's strings too. */
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
  /**
   * The `[price, quantity]` strings of each price, as given, in the same order: a level that did not
   * change is the same array in every `top`. Found by the binary search of its price: no Map.
   */
  private readonly raws: RawLevel[] = [];
  /** bids: descending prices; asks: ascending. */
  constructor(readonly descending: boolean) {}

  get size(): number {
    return this.prices.length;
  }

  clear(): void {
    this.prices.length = 0;
    this.raws.length = 0;
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
    const i = this.find(p);
    const known = i < this.prices.length && this.prices[i] === p;
    if (q === 0) {
      if (known) {
        this.prices.splice(i, 1);
        this.raws.splice(i, 1);
      }
    } else if (known) this.raws[i] = [price, qty];
    else {
      this.prices.splice(i, 0, p);
      this.raws.splice(i, 0, [price, qty]);
    }
  }

  best(): number | undefined {
    const n = this.prices.length;
    return n > 0 ? this.prices[n - 1] : undefined;
  }

  /** Quantity string at a price, or undefined. */
  at(price: string): string | undefined {
    const p = Number(price);
    const i = this.find(p);
    return i < this.prices.length && this.prices[i] === p ? this.raws[i]![1] : undefined;
  }

  /** The best `n` levels, best first. */
  top(n: number): RawLevel[] {
    const raws = this.raws;
    const end = raws.length - Math.min(n, raws.length);
    const out: RawLevel[] = [];
    for (let i = raws.length - 1; i >= end; i--) out.push(raws[i]!);
    return out;
  }
}
