/**
 * A full L2 book side kept sorted (numbers for ordering, the exchange's strings for exact values).
 * Binance sends `[price, qty]` strings; qty 0 removes the level.
 *
 * The sorted order is an array of prices only (numbers: V8 keeps it as a packed array of doubles,
 * so inserting or removing a level moves plain 8-byte values), and each price's strings are in a
 * Map. A full-depth capture holds thousands of levels per side and changes ~46 of them a diff; with
 * level objects in the sorted array, each insertion and removal moved object pointers under the
 * garbage collector's write barrier, and the book was the largest cost of replaying a capture.
 */
import type { RawLevel } from './types.js';

interface Level {
  price: string;
  qty: string;
}

export class BookSide {
  /** Prices, best first: bids descending, asks ascending. */
  private readonly prices: number[] = [];
  private readonly levels = new Map<number, Level>();
  /** bids: descending prices; asks: ascending. */
  constructor(readonly descending: boolean) {}

  get size(): number {
    return this.prices.length;
  }

  clear(): void {
    this.prices.length = 0;
    this.levels.clear();
  }

  /** Index of the first price not better than `p` (where `p` is or would go). */
  private find(p: number): number {
    const prices = this.prices;
    let lo = 0;
    let hi = prices.length;
    if (this.descending) {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (prices[mid]! > p) lo = mid + 1;
        else hi = mid;
      }
    } else {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (prices[mid]! < p) lo = mid + 1;
        else hi = mid;
      }
    }
    return lo;
  }

  /** Set a level; a zero quantity removes it. */
  set(price: string, qty: string): void {
    const p = Number(price);
    if (!Number.isFinite(p)) throw new RangeError(`book level price ${JSON.stringify(price)} is not a number`);
    const q = Number(qty);
    if (!Number.isFinite(q) || q < 0) throw new RangeError(`book level quantity ${JSON.stringify(qty)} at ${price} is not a valid quantity`);
    const level = this.levels.get(p);
    if (q === 0) {
      if (level !== undefined) {
        this.levels.delete(p);
        this.prices.splice(this.find(p), 1);
      }
    } else if (level !== undefined) {
      level.qty = qty;
      level.price = price;
    } else {
      this.levels.set(p, { price, qty });
      this.prices.splice(this.find(p), 0, p);
    }
  }

  best(): number | undefined {
    return this.prices[0];
  }

  /** Quantity string at a price, or undefined. */
  at(price: string): string | undefined {
    return this.levels.get(Number(price))?.qty;
  }

  top(n: number): RawLevel[] {
    const out: RawLevel[] = [];
    const m = Math.min(n, this.prices.length);
    for (let i = 0; i < m; i++) {
      const l = this.levels.get(this.prices[i]!)!;
      out.push([l.price, l.qty]);
    }
    return out;
  }
}
