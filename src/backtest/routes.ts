/**
 * How a backtest values one asset in its reference asset: through a market of the run between the
 * two, or through one other asset. One rule for the equity curve (plain numbers, every candle) and
 * for converting fees and trade pnl (Decimals, when paid).
 */
import type { Series } from './data.js';

/** The run's reference asset and each market's base and quote. */
export interface RouteContext {
  reference: string;
  split(symbol: string): { base: string; quote: string };
}

/** One conversion step of an asset's value: times the close of series `book` (or divided by it when `inverse`). */
export interface Leg {
  book: number;
  inverse: boolean;
}

/**
 * How the run values an asset in the reference: [] for the reference itself, one leg through a market
 * of the run between the two (either way round), or two legs through one other asset (e.g. TMN via
 * BTCTMN then BTCUSDT); undefined when no market of the run converts it.
 */
export function routeOf(h: RouteContext, series: readonly Series[], asset: string): Leg[] | undefined {
  if (asset === h.reference) return [];
  const leg = (from: string, to: string): Leg | undefined => {
    for (let j = 0; j < series.length; j++) {
      const sp = h.split(series[j]!.symbol);
      if (sp.base === from && sp.quote === to) return { book: j, inverse: false };
    }
    for (let j = 0; j < series.length; j++) {
      const sp = h.split(series[j]!.symbol);
      if (sp.quote === from && sp.base === to) return { book: j, inverse: true };
    }
    return undefined;
  };
  const direct = leg(asset, h.reference);
  if (direct) return [direct];
  for (const s of series) {
    const sp = h.split(s.symbol);
    const via = sp.base === asset ? sp.quote : sp.quote === asset ? sp.base : undefined;
    if (via === undefined || via === h.reference) continue;
    const a = leg(asset, via);
    const b = leg(via, h.reference);
    if (a && b) return [a, b];
  }
  return undefined;
}
