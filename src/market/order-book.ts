/**
 * Local order book of one market. Each stream message (`@buyDepth` / `@sellDepth`) is a full snapshot
 * of one side and replaces it (`applySide`, the hot path). Queries return exact Decimals; the
 * `...Number` accessors return doubles for indicators and hot loops.
 */
import { Decimal, ZERO, toDecimal, type DecimalInput } from '../core/decimal.js';
import type { BookLevel, DepthSnapshot } from '../core/types/market.js';
import { BookSideLevels, type SideRejection } from './book-side.js';
import type { BookSide, RawDepth, RawLevel } from './ports.js';

/** Taker direction of a walk: a buy consumes asks, a sell consumes bids. */
export type WalkDirection = 'buy' | 'sell';

export interface WalkResult {
  /** Base quantity filled. */
  filled: Decimal;
  /** Quote amount paid (buy) or received (sell), before fees. */
  cost: Decimal;
  /** cost / filled; undefined when nothing could be filled. */
  averagePrice: Decimal | undefined;
  /** Price of the last level touched; undefined when nothing could be filled. */
  worstPrice: Decimal | undefined;
  levelsUsed: number;
  /** True when the book ran out before the request was filled. */
  exhausted: boolean;
}

export interface BandSide {
  quantity: Decimal;
  notional: Decimal;
  levels: number;
}

export interface DepthBand {
  mid: Decimal;
  low: Decimal;
  high: Decimal;
  bid: BandSide;
  ask: BandSide;
}

const TEN_THOUSAND = new Decimal(10_000);
const HUNDRED = new Decimal(100);

export class OrderBook {
  readonly bids = new BookSideLevels('bid');
  readonly asks = new BookSideLevels('ask');

  constructor(readonly symbol: string) {}

  /** Replace one side (hot path). Returns why it was refused, or undefined when applied. */
  applySide(side: BookSide, levels: ArrayLike<RawLevel>, timeMs: number): SideRejection | undefined {
    return (side === 'bid' ? this.bids : this.asks).replace(levels, timeMs);
  }

  /** Replace both sides (a REST snapshot). Stops at the first refused side. */
  applySnapshot(depth: RawDepth | DepthSnapshot, timeMs: number): SideRejection | undefined {
    return this.bids.replace(depth.bids, timeMs) ?? this.asks.replace(depth.asks, timeMs);
  }

  side(side: BookSide): BookSideLevels {
    return side === 'bid' ? this.bids : this.asks;
  }

  /** True when both sides hold levels and the best bid is at or above the best ask. */
  isCrossed(): boolean {
    const { bids, asks } = this;
    if (bids.n === 0 || asks.n === 0) return false;
    if (bids.scale >= 0 && bids.scale === asks.scale) return (bids.px[0] as number) >= (asks.px[0] as number);
    return bids.priceNumber(0) >= asks.priceNumber(0);
  }

  /** Time of the most recent side update (ms), or -1. */
  get updatedAt(): number {
    return Math.max(this.bids.updatedAt, this.asks.updatedAt);
  }

  bestBidNumber(): number {
    return this.bids.n > 0 ? this.bids.priceNumber(0) : NaN;
  }

  bestAskNumber(): number {
    return this.asks.n > 0 ? this.asks.priceNumber(0) : NaN;
  }

  midNumber(): number {
    return (this.bestBidNumber() + this.bestAskNumber()) / 2;
  }

  bestBid(): BookLevel | undefined {
    return this.bids.n > 0 ? { price: this.bids.price(0), quantity: this.bids.quantity(0) } : undefined;
  }

  bestAsk(): BookLevel | undefined {
    return this.asks.n > 0 ? { price: this.asks.price(0), quantity: this.asks.quantity(0) } : undefined;
  }

  /** (best bid + best ask) / 2, exact; undefined when a side is empty. */
  mid(): Decimal | undefined {
    if (this.bids.n === 0 || this.asks.n === 0) return undefined;
    return this.bids.price(0).plus(this.asks.price(0)).div(2);
  }

  /** best ask − best bid; undefined when a side is empty. */
  spread(): Decimal | undefined {
    if (this.bids.n === 0 || this.asks.n === 0) return undefined;
    return this.asks.price(0).minus(this.bids.price(0));
  }

  /** Spread in basis points of the mid: 10,000 × spread / mid. */
  spreadBps(): Decimal | undefined {
    const mid = this.mid();
    const spread = this.spread();
    if (mid === undefined || spread === undefined || mid.isZero()) return undefined;
    return spread.mul(TEN_THOUSAND).div(mid);
  }

  /** Up to `limit` levels of a side, best first, as exact Decimals. */
  levels(side: BookSide, limit = Infinity): BookLevel[] {
    const s = this.side(side);
    const n = Math.min(s.n, limit);
    const out: BookLevel[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = { price: s.price(i), quantity: s.quantity(i) };
    return out;
  }

  /** Both sides as a DepthSnapshot of exact Decimals. */
  snapshot(): DepthSnapshot {
    return { symbol: this.symbol, bids: this.levels('bid'), asks: this.levels('ask') };
  }

  /**
   * Cumulative quantity and notional within ±`percent`% of the mid: bids priced at or above
   * mid × (1 − percent/100), asks at or below mid × (1 + percent/100). Undefined without a mid.
   */
  depthWithin(percent: DecimalInput): DepthBand | undefined {
    const mid = this.mid();
    if (mid === undefined) return undefined;
    const frac = toDecimal(percent, 'percent').div(HUNDRED);
    if (frac.isNeg()) throw new RangeError(`percent must not be negative, got ${frac.mul(HUNDRED).toString()}`);
    const low = mid.mul(Decimal.sub(1, frac));
    const high = mid.mul(frac.plus(1));
    return {
      mid,
      low,
      high,
      bid: this.band(this.bids, (p) => p.gte(low)),
      ask: this.band(this.asks, (p) => p.lte(high)),
    };
  }

  private band(s: BookSideLevels, inside: (p: Decimal) => boolean): BandSide {
    let quantity = ZERO;
    let notional = ZERO;
    let levels = 0;
    for (let i = 0; i < s.n; i++) {
      const p = s.price(i);
      if (!inside(p)) break;
      const q = s.quantity(i);
      quantity = quantity.plus(q);
      notional = notional.plus(p.mul(q));
      levels++;
    }
    return { quantity, notional, levels };
  }

  /** Walk the book for a base `quantity`: average fill price and total cost, exact. */
  walk(direction: WalkDirection, quantity: DecimalInput): WalkResult {
    const want = toDecimal(quantity, 'quantity');
    if (want.isNeg()) throw new RangeError(`quantity must not be negative, got ${want.toString()}`);
    const s = direction === 'buy' ? this.asks : this.bids;
    let remaining = want;
    let cost = ZERO;
    let used = 0;
    let worst: Decimal | undefined;
    for (let i = 0; i < s.n && remaining.gt(0); i++) {
      const p = s.price(i);
      const take = Decimal.min(remaining, s.quantity(i));
      cost = cost.plus(take.mul(p));
      remaining = remaining.minus(take);
      worst = p;
      used++;
    }
    const filled = want.minus(remaining);
    return {
      filled,
      cost,
      averagePrice: filled.gt(0) ? cost.div(filled) : undefined,
      worstPrice: worst,
      levelsUsed: used,
      exhausted: remaining.gt(0),
    };
  }

  /**
   * Walk the book for a quote `amount`: spend it buying (asks), or sell until it is received (bids).
   * The base quantity is exact up to the Decimal precision (40 digits) and not rounded to the
   * market's step; round it with the catalog's `qtyStep` before placing an order.
   */
  walkQuote(direction: WalkDirection, amount: DecimalInput): WalkResult {
    const want = toDecimal(amount, 'amount');
    if (want.isNeg()) throw new RangeError(`amount must not be negative, got ${want.toString()}`);
    const s = direction === 'buy' ? this.asks : this.bids;
    let remaining = want;
    let filled = ZERO;
    let used = 0;
    let worst: Decimal | undefined;
    for (let i = 0; i < s.n && remaining.gt(0); i++) {
      const p = s.price(i);
      const q = s.quantity(i);
      const levelNotional = p.mul(q);
      worst = p;
      used++;
      if (levelNotional.lte(remaining)) {
        filled = filled.plus(q);
        remaining = remaining.minus(levelNotional);
      } else {
        filled = filled.plus(remaining.div(p));
        remaining = ZERO;
      }
    }
    const cost = want.minus(remaining);
    return {
      filled,
      cost,
      averagePrice: filled.gt(0) ? cost.div(filled) : undefined,
      worstPrice: worst,
      levelsUsed: used,
      exhausted: remaining.gt(0),
    };
  }

  /**
   * Order-book imbalance over the top `depth` levels: (bidQty − askQty) / (bidQty + askQty), in
   * [−1, 1]; positive means more resting buy quantity. Undefined when both are empty.
   */
  imbalance(depth = 5): Decimal | undefined {
    let bid = ZERO;
    let ask = ZERO;
    for (let i = 0; i < Math.min(depth, this.bids.n); i++) bid = bid.plus(this.bids.quantity(i));
    for (let i = 0; i < Math.min(depth, this.asks.n); i++) ask = ask.plus(this.asks.quantity(i));
    const total = bid.plus(ask);
    return total.isZero() ? undefined : bid.minus(ask).div(total);
  }
}
