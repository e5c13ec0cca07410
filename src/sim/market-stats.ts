/**
 * Rolling market statistics for `/v1/markets` stats and the `@marketCap` stream: traded quantity
 * and quote amount, high, low and percent change over 24 hours and 7 days, the last trade, and the
 * share of buy and sell trades. Trades are kept in hourly buckets (at most 169 per market), so a
 * snapshot costs the same however long the replay runs.
 */
import { Decimal } from '../core/decimal.js';
import type { Side } from '../core/types/index.js';
import type { SimTrade } from './order-types.js';

const HOUR = 3_600_000;

interface Bucket {
  hour: number;
  open: Decimal;
  high: Decimal;
  low: Decimal;
  close: Decimal;
  volume: Decimal;
  quoteVolume: Decimal;
  buys: number;
  sells: number;
}

export interface TradeStats {
  change24h: number;
  change7d: number;
  volume24h: Decimal;
  volume7d: Decimal;
  quoteVolume24h: Decimal;
  high24h?: Decimal;
  low24h?: Decimal;
  lastPrice?: Decimal;
  lastQty?: Decimal;
  lastTradeSide?: Side;
  directionBuy: number;
  directionSell: number;
}

const ZERO = new Decimal(0);

function pct(from: Decimal | undefined, to: Decimal | undefined): number {
  if (!from || !to || from.isZero()) return 0;
  return to.minus(from).div(from).mul(100).toDecimalPlaces(2).toNumber();
}

export class MarketStatsTracker {
  private readonly buckets = new Map<string, Bucket[]>();
  private readonly lastTrade = new Map<string, SimTrade>();

  record(t: SimTrade): void {
    const hour = Math.floor(t.timestamp / HOUR);
    let list = this.buckets.get(t.symbol);
    if (!list) this.buckets.set(t.symbol, (list = []));
    let b = list[list.length - 1];
    if (!b || b.hour < hour) {
      b = { hour, open: t.price, high: t.price, low: t.price, close: t.price, volume: ZERO, quoteVolume: ZERO, buys: 0, sells: 0 };
      list.push(b);
      while (list.length > 0 && list[0]!.hour <= hour - 24 * 7) list.shift();
    }
    // A trade older than the newest bucket (out of order) counts in the newest bucket.
    if (t.price.gt(b.high)) b.high = t.price;
    if (t.price.lt(b.low)) b.low = t.price;
    b.close = t.price;
    b.volume = b.volume.plus(t.quantity);
    b.quoteVolume = b.quoteVolume.plus(t.quantity.mul(t.price));
    if (t.isBuyOrder) b.buys++;
    else b.sells++;
    const prev = this.lastTrade.get(t.symbol);
    if (!prev || prev.timestamp <= t.timestamp) this.lastTrade.set(t.symbol, t);
  }

  snapshot(symbol: string, nowMs: number): TradeStats {
    const hourNow = Math.floor(nowMs / HOUR);
    const list = this.buckets.get(symbol) ?? [];
    const last = this.lastTrade.get(symbol);
    let volume24h = ZERO;
    let volume7d = ZERO;
    let quote24h = ZERO;
    let high: Decimal | undefined;
    let low: Decimal | undefined;
    let open24: Decimal | undefined;
    let open7: Decimal | undefined;
    let buys = 0;
    let sells = 0;
    for (const b of list) {
      if (b.hour <= hourNow - 24 * 7) continue;
      open7 ??= b.open;
      volume7d = volume7d.plus(b.volume);
      if (b.hour <= hourNow - 24) continue;
      open24 ??= b.open;
      volume24h = volume24h.plus(b.volume);
      quote24h = quote24h.plus(b.quoteVolume);
      high = high && high.gte(b.high) ? high : b.high;
      low = low && low.lte(b.low) ? low : b.low;
      buys += b.buys;
      sells += b.sells;
    }
    const n = buys + sells;
    const directionBuy = n === 0 ? 50 : Math.round((buys / n) * 100);
    return {
      change24h: pct(open24, last?.price),
      change7d: pct(open7, last?.price),
      volume24h,
      volume7d,
      quoteVolume24h: quote24h,
      high24h: high,
      low24h: low,
      lastPrice: last?.price,
      lastQty: last?.quantity,
      lastTradeSide: last ? (last.isBuyOrder ? 'BUY' : 'SELL') : undefined,
      directionBuy,
      directionSell: 100 - directionBuy,
    };
  }
}
