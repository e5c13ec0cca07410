/**
 * What strategies and the risk module see of a market during a backtest: the market's limits and
 * fees, and a one-level book at the last closed candle's close (bid = ask = close, deep enough for
 * any order). It is never the venue's book: the simulated exchange fills at the next open, so a
 * strategy deciding on a closed candle cannot read the future through its book.
 */
import { Decimal, incrementFromDecimals, toDecimal } from '../core/decimal.js';
import type { BookLevel, Side } from '../core/types/market.js';
import type { MarketSpec } from '../sim/markets.js';
import type { BookHealthView, BookView, MarketView, WalkResult } from '../core/views.js';

const DEEP = new Decimal('1e15');
const HEALTHY: BookHealthView = { healthy: true, reasons: [], bidAgeMs: 0, askAgeMs: 0, resyncs: 0 };

export function marketView(m: MarketSpec, fees: { makerFee: Decimal; takerFee: Decimal }): MarketView {
  return {
    symbol: m.symbol,
    base: m.baseAsset,
    quote: m.quoteAsset,
    qtyStep: incrementFromDecimals(m.stepSize),
    priceTick: incrementFromDecimals(m.tickSize),
    quantityPrecision: m.stepSize,
    pricePrecision: m.tickSize,
    minQty: m.minQty,
    maxQty: m.maxQty,
    minNotional: m.minNotional,
    makerFee: fees.makerFee,
    takerFee: fees.takerFee,
  };
}

/** A book at one price that changes per candle; the Decimal is made only when someone reads it. */
export class CloseBook implements BookView {
  private px = Number.NaN;
  private dec: Decimal | undefined;

  constructor(readonly symbol: string) {}

  set(price: number): void {
    if (price !== this.px) {
      this.px = price;
      this.dec = undefined;
    }
  }

  get price(): number {
    return this.px;
  }

  private d(): Decimal | undefined {
    if (Number.isNaN(this.px)) return undefined;
    return (this.dec ??= toDecimal(this.px, `${this.symbol} close`));
  }

  bestBid(): Decimal | undefined {
    return this.d();
  }
  bestAsk(): Decimal | undefined {
    return this.d();
  }
  mid(): Decimal | undefined {
    return this.d();
  }
  spread(): Decimal | undefined {
    return this.d() ? new Decimal(0) : undefined;
  }
  bids(): BookLevel[] {
    const p = this.d();
    return p ? [{ price: p, quantity: DEEP }] : [];
  }
  asks(): BookLevel[] {
    return this.bids();
  }
  walk(_side: Side, quantity: Decimal): WalkResult {
    const p = this.d();
    if (!p) return { filled: new Decimal(0), cost: new Decimal(0), exhausted: true };
    return { avgPrice: p, filled: quantity, cost: p.mul(quantity), exhausted: false };
  }
  health(): BookHealthView {
    return HEALTHY;
  }
}
