/**
 * Adapters from the market-data engine's objects to the read-only views strategies and the risk
 * module see. Strategies never get the engine itself.
 */
import { Decimal } from '../core/decimal.js';
import type { Side } from '../core/types/market.js';
import type { BookHealth } from '../market/book-health.js';
import type { Market } from '../market/market-catalog.js';
import type { OrderBook } from '../market/order-book.js';
import type { BookHealthView, BookView, MarketView, WalkResult } from '../core/views.js';

const ZERO = new Decimal(0);

export function healthView(h: BookHealth): BookHealthView {
  return {
    healthy: h.healthy,
    reasons: [...h.reasons],
    bidAgeMs: h.bidAgeMs ?? Number.POSITIVE_INFINITY,
    askAgeMs: h.askAgeMs ?? Number.POSITIVE_INFINITY,
    resyncs: h.resyncs,
  };
}

export function bookView(symbol: string, book: OrderBook, health: () => BookHealth): BookView {
  return {
    symbol,
    bestBid: () => book.bestBid()?.price,
    bestAsk: () => book.bestAsk()?.price,
    mid: () => book.mid(),
    spread: () => book.spread(),
    bids: (depth) => book.levels('bid', depth ?? Infinity),
    asks: (depth) => book.levels('ask', depth ?? Infinity),
    walk: (side: Side, quantity: Decimal): WalkResult => {
      const r = book.walk(side === 'BUY' ? 'buy' : 'sell', quantity);
      return { ...(r.averagePrice ? { avgPrice: r.averagePrice } : {}), filled: r.filled, cost: r.cost, exhausted: r.exhausted };
    },
    health: () => healthView(health()),
  };
}

export function marketView(m: Market, defaults: { makerFee: Decimal; takerFee: Decimal }): MarketView {
  return {
    symbol: m.symbol,
    base: m.baseAsset,
    quote: m.quoteAsset,
    qtyStep: m.qtyStep,
    priceTick: m.priceTick,
    quantityPrecision: m.quantityPrecision,
    pricePrecision: m.pricePrecision,
    minQty: m.minQty,
    ...(m.maxQty ? { maxQty: m.maxQty } : {}),
    minNotional: m.minNotional,
    makerFee: m.makerFee ?? defaults.makerFee ?? ZERO,
    takerFee: m.takerFee ?? defaults.takerFee ?? ZERO,
    ...(m.riskCoef ? { riskCoef: m.riskCoef } : {}),
    ...(m.instant ? { instant: m.instant } : {}),
  };
}
