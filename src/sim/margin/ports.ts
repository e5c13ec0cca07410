/**
 * The narrow ports the simulator's margin, instant, trading-credit and withdrawal desks depend on.
 * `SimulatedExchange` (or a test) provides them; the desks never reach into the matching engine.
 * Prices are Decimal; `undefined` means "no price known for that market now".
 */
import type { Decimal } from '../../core/decimal.js';

export interface PriceView {
  /** (best bid + best ask) / 2, or undefined when either side is empty. */
  mid(symbol: string): Decimal | undefined;
  bestBid(symbol: string): Decimal | undefined;
  bestAsk(symbol: string): Decimal | undefined;
  lastPrice(symbol: string): Decimal | undefined;
}

export interface MarketSpec {
  base: string;
  quote: string;
  /** Decimal places of the price increment (the market's tickSize). */
  pricePrecision: number;
  /** Decimal places of the quantity increment (the market's stepSize). */
  quantityPrecision: number;
  makerFee: Decimal;
  takerFee: Decimal;
}

export type MarketSpecs = (symbol: string) => MarketSpec | undefined;

/** The market's reference price: mid, else last trade, else undefined. */
export function referencePrice(prices: PriceView, symbol: string): Decimal | undefined {
  return prices.mid(symbol) ?? prices.lastPrice(symbol);
}

/** The price a market buy would get now: best ask, else the reference price. */
export function buyPrice(prices: PriceView, symbol: string): Decimal | undefined {
  return prices.bestAsk(symbol) ?? referencePrice(prices, symbol);
}

/** The price a market sell would get now: best bid, else the reference price. */
export function sellPrice(prices: PriceView, symbol: string): Decimal | undefined {
  return prices.bestBid(symbol) ?? referencePrice(prices, symbol);
}

/** ISO-8601 without milliseconds, as the exchange writes times (`2022-05-18T11:10:30Z`). */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The exchange's money object: `{currency, value}` with the value as a number string. */
export interface WireMoney {
  currency: string;
  value: string;
}

export function money(currency: string, value: Decimal): WireMoney {
  return { currency, value: value.toFixed() };
}
