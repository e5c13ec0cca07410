/**
 * A full L2 book side kept sorted (numbers for ordering, the exchange's strings for exact values).
 * Binance sends `[price, qty]` strings; qty 0 removes the level.
 */
import type { RawLevel } from './types.js';

interface Level {
  p: number;
  price: string;
  qty: string;
}

export class BookSide {
  private readonly levels: Level[] = [];
  /** bids: descending prices; asks: ascending. */
  constructor(readonly descending: boolean) {}

  get size(): number {
    return this.levels.length;
  }

  clear(): void {
    this.levels.length = 0;
  }

  private find(p: number): number {
    let lo = 0;
    let hi = this.levels.length;
    const desc = this.descending;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const q = this.levels[mid]!.p;
      if (desc ? q > p : q < p) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Set a level; a zero quantity removes it. */
  set(price: string, qty: string): void {
    const p = Number(price);
    if (!Number.isFinite(p)) throw new RangeError(`book level price ${JSON.stringify(price)} is not a number`);
    const q = Number(qty);
    if (!Number.isFinite(q) || q < 0) throw new RangeError(`book level quantity ${JSON.stringify(qty)} at ${price} is not a valid quantity`);
    const i = this.find(p);
    const hit = i < this.levels.length && this.levels[i]!.p === p;
    if (q === 0) {
      if (hit) this.levels.splice(i, 1);
    } else if (hit) {
      this.levels[i]!.qty = qty;
      this.levels[i]!.price = price;
    } else {
      this.levels.splice(i, 0, { p, price, qty });
    }
  }

  best(): number | undefined {
    return this.levels[0]?.p;
  }

  /** Quantity string at a price, or undefined. */
  at(price: string): string | undefined {
    const p = Number(price);
    const l = this.levels[this.find(p)];
    return l && l.p === p ? l.qty : undefined;
  }

  top(n: number): RawLevel[] {
    const out: RawLevel[] = [];
    const m = Math.min(n, this.levels.length);
    for (let i = 0; i < m; i++) {
      const l = this.levels[i]!;
      out.push([l.price, l.qty]);
    }
    return out;
  }
}
