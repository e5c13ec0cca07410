/**
 * One market's order book inside the simulator: per side, the replayed external liquidity (full
 * side snapshots from market data, consumed in place by the accounts' orders until the next
 * snapshot of that side replaces it) and the accounts' resting orders. Priority is price, then
 * time; at one price the replayed quantity counts as resting before any account order (an account
 * joining a level queues behind what was already there).
 */
import { Decimal, isPositive, dcmp, deq, dgt, dlt, dmin } from '../core/decimal.js';
import type { BookSide, LevelInput, SimOrder } from './order-types.js';
import { remaining } from './order-types.js';

export interface ReplayedLevel {
  price: Decimal;
  /** Decremented in place when account orders take it. */
  quantity: Decimal;
}

/** One planned match: against a replayed level (`maker: null`) or an account's resting order. */
export interface Execution {
  price: Decimal;
  quantity: Decimal;
  maker: SimOrder | null;
  level: ReplayedLevel | null;
}

const ZERO = new Decimal(0);

export class BookSideState {
  replayed: ReplayedLevel[] = [];
  readonly orders: SimOrder[] = [];

  constructor(readonly side: BookSide) {}

  /** True when price `a` has priority over price `b` on this side. */
  better(a: Decimal, b: Decimal): boolean {
    return this.side === 'bid' ? dgt(a, b) : dlt(a, b);
  }

  /** Negative when price `a` comes before `b` on this side (bids high to low, asks low to high). */
  order(a: Decimal, b: Decimal): number {
    const c = dcmp(a, b);
    return this.side === 'bid' ? -c : c;
  }

  replace(levels: LevelInput[]): void {
    const out: ReplayedLevel[] = [];
    let sorted = true;
    let prev: Decimal | undefined;
    for (const l of levels) {
      if (!(isPositive(l.quantity) && isPositive(l.price))) continue;
      if (prev && this.order(prev, l.price) >= 0) sorted = false;
      prev = l.price;
      out.push({ price: l.price, quantity: l.quantity });
    }
    if (sorted) {
      this.replayed = out; // the usual case: a snapshot arrives best first, one level per price
      return;
    }
    out.sort((a, b) => this.order(a.price, b.price));
    // Merge duplicate prices so the view shows one level per price.
    const merged: ReplayedLevel[] = [];
    for (const l of out) {
      const last = merged[merged.length - 1];
      if (last && deq(last.price, l.price)) last.quantity = last.quantity.plus(l.quantity);
      else merged.push(l);
    }
    this.replayed = merged;
  }

  /** Drop replayed levels that were fully taken. */
  compact(): void {
    if (this.replayed.some((l) => !isPositive(l.quantity))) this.replayed = this.replayed.filter((l) => isPositive(l.quantity));
  }

  addOrder(o: SimOrder): void {
    // After every order with a better or equal price (time priority within a price).
    let lo = 0;
    let hi = this.orders.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = this.orders[mid]!;
      if (this.better(o.price, m.price)) hi = mid;
      else lo = mid + 1;
    }
    this.orders.splice(lo, 0, o);
  }

  removeOrder(o: SimOrder): boolean {
    // Binary search to the first order at o's price, then scan that price for o itself.
    let lo = 0;
    let hi = this.orders.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.better(this.orders[mid]!.price, o.price)) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.orders.length; i++) {
      const cur = this.orders[i]!;
      if (cur === o) {
        this.orders.splice(i, 1);
        return true;
      }
      if (!deq(cur.price, o.price)) break;
    }
    return false;
  }

  bestReplayed(): ReplayedLevel | undefined {
    return this.replayed.find((l) => isPositive(l.quantity));
  }

  best(): Decimal | undefined {
    const r = this.bestReplayed()?.price;
    const o = this.orders[0]?.price;
    if (!r) return o;
    if (!o) return r;
    return this.better(o, r) ? o : r;
  }

  /**
   * Plan the matches of a taker against this side, best price first, up to `quantity`, at prices
   * no worse than `limit` (any price when absent). Nothing is changed.
   */
  plan(quantity: Decimal, limit: Decimal | undefined, replayedOnly = false): Execution[] {
    const out: Execution[] = [];
    let left = quantity;
    let i = 0;
    let j = 0;
    while (isPositive(left)) {
      while (i < this.replayed.length && !isPositive(this.replayed[i]!.quantity)) i++;
      const level = this.replayed[i];
      const order = replayedOnly ? undefined : this.orders[j];
      if (!level && !order) break;
      const useLevel = level !== undefined && (order === undefined || !this.better(order.price, level.price));
      const price = useLevel ? level!.price : order!.price;
      if (limit && this.better(limit, price)) break; // worse than the limit for the taker
      const avail = useLevel ? level!.quantity : remaining(order!);
      const q = dmin(avail, left);
      out.push({ price, quantity: q, maker: useLevel ? null : order!, level: useLevel ? level! : null });
      left = left.minus(q);
      if (useLevel) i++;
      else j++;
    }
    return out;
  }

  /** The merged side (replayed plus account orders), aggregated per price, best first. */
  levels(max = Infinity): LevelInput[] {
    const out: LevelInput[] = [];
    let i = 0;
    let j = 0;
    let last: LevelInput | undefined;
    for (;;) {
      while (i < this.replayed.length && !isPositive(this.replayed[i]!.quantity)) i++;
      const level = this.replayed[i];
      const order = this.orders[j];
      if (!level && !order) break;
      const useLevel = level !== undefined && (order === undefined || this.order(level.price, order.price) <= 0);
      const price = useLevel ? level!.price : order!.price;
      const q = useLevel ? level!.quantity : remaining(order!);
      if (last && deq(last.price, price)) last.quantity = last.quantity.plus(q);
      else {
        if (out.length >= max) break;
        out.push((last = { price, quantity: q }));
      }
      if (useLevel) i++;
      else j++;
    }
    return out;
  }

  /** Total quantity and count of entries (replayed levels plus account orders). */
  totals(): { volume: Decimal; count: number } {
    let volume = ZERO;
    let count = 0;
    for (const l of this.replayed) {
      if (isPositive(l.quantity)) {
        volume = volume.plus(l.quantity);
        count++;
      }
    }
    for (const o of this.orders) {
      volume = volume.plus(remaining(o));
      count++;
    }
    return { volume, count };
  }
}

export class SymbolBook {
  readonly bid = new BookSideState('bid');
  readonly ask = new BookSideState('ask');

  side(s: BookSide): BookSideState {
    return s === 'bid' ? this.bid : this.ask;
  }
}
