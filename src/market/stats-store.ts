/** Latest market statistics (`@marketCap`) and prices (`all@price`) per symbol, with receive times. */
import type { Decimal } from '../core/decimal.js';
import type { MarketStats, PriceTick } from '../core/types/market.js';

export interface Stamped<T> {
  value: T;
  /** Receive time (ms, from the Clock). */
  at: number;
}

export class MarketStatsStore {
  private readonly statsBySymbol = new Map<string, Stamped<MarketStats>>();
  private readonly prices = new Map<string, Stamped<PriceTick>>();

  setStats(symbol: string, stats: MarketStats, at: number): void {
    this.statsBySymbol.set(symbol, { value: stats, at });
  }

  setPrice(tick: PriceTick, at: number): void {
    this.prices.set(tick.symbol, { value: tick, at });
  }

  stats(symbol: string): Stamped<MarketStats> | undefined {
    return this.statsBySymbol.get(symbol);
  }

  price(symbol: string): Stamped<PriceTick> | undefined {
    return this.prices.get(symbol);
  }

  /** Symbols with any statistics or price. */
  symbols(): string[] {
    return [...new Set([...this.statsBySymbol.keys(), ...this.prices.keys()])];
  }

  /** The newer of the `all@price` price and the `@marketCap` last price. */
  lastPrice(symbol: string): Stamped<Decimal> | undefined {
    const p = this.prices.get(symbol);
    const s = this.statsBySymbol.get(symbol);
    const fromStats = s?.value.lastPrice !== undefined ? { value: s.value.lastPrice, at: s.at } : undefined;
    const fromPrice = p ? { value: p.value.price, at: p.at } : undefined;
    if (!fromStats) return fromPrice;
    if (!fromPrice) return fromStats;
    return fromPrice.at >= fromStats.at ? fromPrice : fromStats;
  }
}
