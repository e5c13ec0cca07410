/**
 * The one rule for valuing an asset in the reference asset, in every mode: through a market between
 * the two (either way round), or through one other asset (e.g. TMN via BTCTMN then BTCUSDT). Live and
 * paper read each leg's price from the local book's mid; a backtest from the last close. The
 * backtest's equity curve follows the same legs with plain numbers (backtest/equity-value.ts).
 */
import { Decimal } from '../core/decimal.js';

/** The reference asset and each market's base and quote. */
export interface RouteContext {
  reference: string;
  split(symbol: string): { base: string; quote: string };
}

/** One conversion step of an asset's value: times the price of market `book` (an index into the market list), or divided by it when `inverse`. */
export interface Leg {
  book: number;
  inverse: boolean;
}

/**
 * How to value `asset` in the reference with the markets `symbols`: [] for the reference itself,
 * one leg through a market between the two (a market quoting the asset in the reference first), or
 * two legs through one other asset; undefined when no market of the list converts it.
 */
export function routeOf(h: RouteContext, symbols: readonly string[], asset: string): Leg[] | undefined {
  if (asset === h.reference) return [];
  const leg = (from: string, to: string): Leg | undefined => {
    for (let j = 0; j < symbols.length; j++) {
      const sp = h.split(symbols[j]!);
      if (sp.base === from && sp.quote === to) return { book: j, inverse: false };
    }
    for (let j = 0; j < symbols.length; j++) {
      const sp = h.split(symbols[j]!);
      if (sp.quote === from && sp.base === to) return { book: j, inverse: true };
    }
    return undefined;
  };
  const direct = leg(asset, h.reference);
  if (direct) return [direct];
  for (const s of symbols) {
    const sp = h.split(s);
    const via = sp.base === asset ? sp.quote : sp.quote === asset ? sp.base : undefined;
    if (via === undefined || via === h.reference) continue;
    const a = leg(asset, via);
    const b = leg(via, h.reference);
    if (a && b) return [a, b];
  }
  return undefined;
}

export interface ValuationDeps extends RouteContext {
  /** The markets prices can be read from (their order is the legs' `book` index). */
  symbols: readonly string[];
  /** A market's current price (the book's mid, a backtest's last close), or undefined when none. */
  price(symbol: string): Decimal | undefined;
}

const ONE = new Decimal(1);

/** Values assets in the reference asset along their routes (found once per asset). */
export class AssetValuation {
  private readonly routes = new Map<string, Leg[] | undefined>();

  constructor(private readonly d: ValuationDeps) {}

  get reference(): string {
    return this.d.reference;
  }

  route(asset: string): Leg[] | undefined {
    if (!this.routes.has(asset)) this.routes.set(asset, routeOf(this.d, this.d.symbols, asset));
    return this.routes.get(asset);
  }

  /** One unit of `asset` in the reference, or undefined when no route or a leg has no price. */
  rate(asset: string): Decimal | undefined {
    const legs = this.route(asset);
    if (!legs) return undefined;
    let v = ONE;
    for (const l of legs) {
      const px = this.d.price(this.d.symbols[l.book]!);
      if (!px || px.isZero()) return undefined;
      v = l.inverse ? v.div(px) : v.mul(px);
    }
    return v;
  }

  /** The Portfolio's price port: one unit of `asset` in `reference` (the valuation's own reference only). */
  price(asset: string, reference: string): Decimal | undefined {
    return reference === this.d.reference ? this.rate(asset) : undefined;
  }
}
