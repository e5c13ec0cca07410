/**
 * One side of the recorded book as the book backtest's exchange holds it (fill-engine.ts): the
 * frames as the recording gives them, unparsed (`depthRaw`), read only where an order of ours needs
 * them (the quantity at its price, whether the best price reaches it, the levels an order takes).
 *
 * A frame is held by the market-data engine's own tick book (market/book-side.ts): prices as integer
 * ticks, Decimals made per level only when asked for. Its frames are one side of a book, sorted best
 * first, as the exchange sends them. A frame the tick book refuses (two levels at one price, a price
 * spelled with an exponent, a value that is not a number) is read as before, level by level with the
 * stream's Decimal parser: of a frame's levels at one price the last one with a quantity counts, and
 * a frame with a value that is not a number is refused whole (`replace` answers false, the side
 * stays as it was). Both readings answer every query with the same exact values.
 */
import { type Decimal, deq, dgt, dlt, isPositive } from '../../core/decimal.js';
import type { BookLevel } from '../../core/types/market.js';
import { parseDepth } from '../../exchange/stream/parse.js';
import { BookSideLevels } from '../../market/book-side.js';
import { parseTicks } from '../../market/fast-parse.js';
import type { RawLevel } from '../../market/ports.js';

/**
 * A price's key in a side's levels (`toFixed`), remembered per Decimal: an order's price is looked
 * up on every frame of its side, and formatting it each time was most of a lookup's cost.
 */
const keys = new WeakMap<Decimal, string>();
export function priceKey(price: Decimal): string {
  let key = keys.get(price);
  if (key === undefined) keys.set(price, (key = price.toFixed()));
  return key;
}

/** A frame the tick book refused, as parsed Decimal levels; its levels by price built when asked for. */
class LooseLevels {
  private map: Map<string, BookLevel> | undefined;
  private sortedLevels: BookLevel[] | undefined;

  constructor(
    private readonly frame: readonly BookLevel[],
    private readonly bid: boolean,
  ) {}

  /** The levels (quantity > 0) by price; of a frame's levels at one price, the last one counts. */
  get levels(): Map<string, BookLevel> {
    if (this.map === undefined) {
      this.map = new Map();
      for (const l of this.frame) if (isPositive(l.quantity)) this.map.set(priceKey(l.price), l);
    }
    return this.map;
  }

  /** Set one level (a quantity of 0 removes it). */
  set(price: Decimal, quantity: Decimal): void {
    const key = priceKey(price);
    if (quantity.gt(0)) this.levels.set(key, { price, quantity });
    else this.levels.delete(key);
    this.sortedLevels = undefined;
  }

  quantityAt(price: Decimal): Decimal | undefined {
    return this.levels.get(priceKey(price))?.quantity;
  }

  /** Best first. */
  sorted(): BookLevel[] {
    return (this.sortedLevels ??= [...this.levels.values()].sort((a, b) => (this.bid ? b.price.cmp(a.price) : a.price.cmp(b.price))));
  }

  best(): Decimal | undefined {
    let best: Decimal | undefined;
    for (const l of this.levels.values()) if (best === undefined || (this.bid ? dgt(l.price, best) : dlt(l.price, best))) best = l.price;
    return best;
  }
}

export class VenueBookSide {
  private readonly ticks: BookSideLevels;
  /** Set while the side's current levels are a frame the tick book refused (or a per-level update). */
  private loose: LooseLevels | undefined;

  /** `priceDecimals`: the market's tick (the scale the tick book tries first). */
  constructor(
    private readonly bid: boolean,
    priceDecimals: number,
  ) {
    this.ticks = new BookSideLevels(bid ? 'bid' : 'ask', priceDecimals);
  }

  /** Replace the side with a frame (levels best first); when a value is not a number, nothing changes and the answer says which. */
  replace(levels: ArrayLike<RawLevel>, t: number): string | undefined {
    if (this.ticks.replace(levels, t) === undefined) {
      this.loose = undefined;
      return undefined;
    }
    let parsed: BookLevel[];
    try {
      parsed = parseDepth(levels);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    this.loose = new LooseLevels(parsed, this.bid);
    return undefined;
  }

  /** Set one level (0: remove it); the side is read level by level from then on, until the next frame. */
  set(price: Decimal, quantity: Decimal): void {
    this.loose ??= new LooseLevels(this.sorted(), this.bid);
    this.loose.set(price, quantity);
  }

  /** Index of the level at exactly `price` in the tick book, or −1. */
  private indexOf(price: Decimal): number {
    const s = this.ticks;
    const n = s.n;
    if (s.scale >= 0) {
      // A price with more decimals than the side's scale is at no level of it.
      const t = parseTicks(priceKey(price), s.scale);
      if (t < 0) return -1;
      const px = s.px;
      for (let i = 0; i < n; i++) if (px[i] === t) return i;
      return -1;
    }
    const v = Number(priceKey(price));
    for (let i = 0; i < n; i++) if (s.priceNumber(i) === v && deq(s.price(i), price)) return i;
    return -1;
  }

  /** The quantity at `price` (> 0), or undefined when the side holds none there. */
  quantityAt(price: Decimal): Decimal | undefined {
    if (this.loose) return this.loose.quantityAt(price);
    const i = this.indexOf(price);
    return i < 0 ? undefined : this.ticks.quantity(i);
  }

  /** The sign of (best price − `price`): 1, 0 or −1; undefined when the side is empty. */
  bestVs(price: Decimal): number | undefined {
    if (this.loose) {
      const best = this.loose.best();
      return best === undefined ? undefined : best.cmp(price);
    }
    const s = this.ticks;
    if (s.n === 0) return undefined;
    if (s.scale >= 0) {
      const t = parseTicks(priceKey(price), s.scale);
      if (t >= 0) return Math.sign((s.px[0] as number) - t);
    }
    return s.price(0).cmp(price);
  }

  /** Number of levels (quantity > 0). */
  get size(): number {
    return this.loose ? this.loose.levels.size : this.ticks.n;
  }

  /** Level i, best first (i < size). */
  level(i: number): BookLevel {
    if (this.loose) return this.loose.sorted()[i]!;
    return { price: this.ticks.price(i), quantity: this.ticks.quantity(i) };
  }

  /** Every level, best first. */
  sorted(): BookLevel[] {
    if (this.loose) return this.loose.sorted();
    const out: BookLevel[] = [];
    for (let i = 0; i < this.ticks.n; i++) out.push(this.level(i));
    return out;
  }

  /** The levels by price (`toFixed`). */
  levels(): Map<string, BookLevel> {
    if (this.loose) return this.loose.levels;
    return new Map(this.sorted().map((l) => [priceKey(l.price), l]));
  }
}
