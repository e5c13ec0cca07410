/** Shared fixtures for the margin/instant/prop/withdrawal tests: a settable PriceView and market specs. */
import { Decimal } from '../../../src/core/decimal.js';
import type { MarketSpec, PriceView } from '../../../src/sim/margin/ports.js';

export class FakePrices implements PriceView {
  private readonly books = new Map<string, { bid?: Decimal; ask?: Decimal; last?: Decimal }>();
  set(symbol: string, bid: string | undefined, ask: string | undefined, last?: string): void {
    this.books.set(symbol, {
      bid: bid === undefined ? undefined : new Decimal(bid),
      ask: ask === undefined ? undefined : new Decimal(ask),
      last: last === undefined ? undefined : new Decimal(last),
    });
  }
  bestBid(s: string): Decimal | undefined {
    return this.books.get(s)?.bid;
  }
  bestAsk(s: string): Decimal | undefined {
    return this.books.get(s)?.ask;
  }
  lastPrice(s: string): Decimal | undefined {
    return this.books.get(s)?.last;
  }
  mid(s: string): Decimal | undefined {
    const b = this.books.get(s);
    return b?.bid && b.ask ? b.bid.plus(b.ask).div(2) : undefined;
  }
}

const SPECS: Record<string, MarketSpec> = {
  BTCUSDT: { base: 'BTC', quote: 'USDT', pricePrecision: 2, quantityPrecision: 6, makerFee: new Decimal('0.001'), takerFee: new Decimal('0.002') },
  ETHUSDT: { base: 'ETH', quote: 'USDT', pricePrecision: 2, quantityPrecision: 4, makerFee: new Decimal('0.001'), takerFee: new Decimal('0.002') },
  USDTTMN: { base: 'USDT', quote: 'TMN', pricePrecision: 0, quantityPrecision: 2, makerFee: new Decimal('0.0025'), takerFee: new Decimal('0.0035') },
  BTCTMN: { base: 'BTC', quote: 'TMN', pricePrecision: 0, quantityPrecision: 6, makerFee: new Decimal('0.0025'), takerFee: new Decimal('0.0035') },
};

export const specs = (s: string): MarketSpec | undefined => SPECS[s];

export const D = (v: string | number): Decimal => new Decimal(v);

export const HOUR = 3600_000;
export const T0 = Date.UTC(2024, 0, 1, 0, 0, 0);
