/**
 * The instant desk's bounds (`GET /v1/otc/markets`) merged into markets, as margin-bounds.ts does
 * the margin desk's: the risk module checks an instant order against them (the desk's minimum and
 * maximum total, its minimum quantity) instead of the spot market's limits. Live and paper read the
 * list from the exchange (the market catalog); a backtest from its simulator's instant desk, the
 * same object that refuses an order outside them. A market the list does not name, or names without
 * both totals, keeps none (the risk module then checks the spot limits, and the exchange its own).
 */
import type { InstantBounds } from '../core/views.js';
import type { OtcMarket } from '../exchange/parse/otc.js';

/** What this needs of a market (the catalog's Market, or a MarketView). */
export interface InstantBoundsTarget {
  symbol: string;
  instant?: InstantBounds;
}

/** The bounds an entry of /v1/otc/markets gives; undefined without both totals. */
function instantBoundsOf(o: OtcMarket): InstantBounds | undefined {
  if (!o.minNotional || !o.maxNotional) return undefined;
  return {
    minNotional: o.minNotional,
    maxNotional: o.maxNotional,
    ...(o.minQty && o.minQty.gt(0) ? { minQty: o.minQty } : {}),
    ...(o.maxQty && o.maxQty.gt(0) ? { maxQty: o.maxQty } : {}),
  };
}

export function withInstantBounds<T extends InstantBoundsTarget>(markets: T[], otc: readonly OtcMarket[] | undefined): T[] {
  if (!otc) return markets;
  const by = new Map(otc.map((o) => [o.symbol.toUpperCase(), o]));
  for (const m of markets) {
    const o = by.get(m.symbol);
    const b = o && instantBoundsOf(o);
    if (b) m.instant = b;
  }
  return markets;
}
