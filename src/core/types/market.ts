/** Market data resources (spec 2.2 - 2.6, 2.16). Money and quantities are Decimal. */
import type { Decimal } from '../decimal.js';

export type Side = 'BUY' | 'SELL';
export const SIDES: readonly Side[] = ['BUY', 'SELL'];

/** Market statistics (`stats` of /v1/markets, and the `@marketCap` stream). */
export interface MarketStats {
  bidPrice?: Decimal;
  bidVolume?: Decimal;
  bidCount?: number;
  askPrice?: Decimal;
  askVolume?: Decimal;
  askCount?: number;
  change24h?: Decimal;
  change7d?: Decimal;
  volume24h?: Decimal;
  volume7d?: Decimal;
  quoteVolume24h?: Decimal;
  highPrice24h?: Decimal;
  lowPrice24h?: Decimal;
  lastPrice?: Decimal;
  lastQty?: Decimal;
  lastTradeSide?: Side;
  /** Percent share of buy and sell orders. */
  directionBuy?: number;
  directionSell?: number;
  /** Present on stream statistics. */
  createdAt?: string;
}

/** A market as `/v1/markets` describes it. stepSize / tickSize are counts of decimal places. */
export interface MarketInfo {
  symbol: string;
  baseAsset: string;
  baseAssetPrecision: number;
  quoteAsset: string;
  quoteAssetPrecision: number;
  faName?: string;
  faBaseAsset?: string;
  faQuoteAsset?: string;
  /** Decimal places of the quantity increment. */
  stepSize: number;
  /** Decimal places of the price increment. */
  tickSize: number;
  minQty: Decimal;
  /** Absent in some payloads: no upper bound known. */
  maxQty?: Decimal;
  minNotional: Decimal;
  stats?: MarketStats;
  createdAt?: string;
}

/** Global currency statistics entry (/v1/currencies/stats). Analytics, so plain numbers. */
export interface CurrencyStats {
  key: string;
  name?: string;
  nameEn?: string;
  rank?: number;
  dominance?: number;
  volume24h?: number;
  marketCap?: number;
  price?: number;
  ath?: number;
  athChangePercentage?: number;
  athDate?: string;
  createdAt?: string;
  updatedAt?: string;
  dailyHighPrice?: number;
  dailyLowPrice?: number;
  weeklyHighPrice?: number;
  weeklyLowPrice?: number;
  percentChange: Record<string, number>;
  priceChange: Record<string, number>;
  maxSupply?: number | null;
  totalSupply?: number | null;
  circulatingSupply?: number | null;
}

export interface BookLevel {
  price: Decimal;
  quantity: Decimal;
  /** price × quantity as the exchange reported it (cumulative on some payloads). */
  sum?: Decimal;
}

/** Both sides of a book: bids high to low, asks low to high. */
export interface DepthSnapshot {
  symbol: string;
  bids: BookLevel[];
  asks: BookLevel[];
}

export interface PublicTrade {
  symbol: string;
  price: Decimal;
  quantity: Decimal;
  sum?: Decimal;
  /** True when the taker bought. */
  isBuyOrder: boolean;
  /** Milliseconds since the epoch. */
  timestamp: number;
}

/** One OHLCV candle. `time` is the candle's start in Unix seconds (as /v1/udf/history sends it). */
export interface Candle {
  time: number;
  open: Decimal;
  high: Decimal;
  low: Decimal;
  close: Decimal;
  volume: Decimal;
}

/** Resolutions of /v1/udf/history: the specification's set, and the current documentation's. */
export const SPEC_RESOLUTIONS = ['60', '180', '360', '720', 'D', '2D', '3D'] as const;
export const DOC_RESOLUTIONS = ['1', '15', '60', '240', '480', '720', '1D', '2D', '3D'] as const;
export type Resolution = (typeof SPEC_RESOLUTIONS)[number] | (typeof DOC_RESOLUTIONS)[number];
export const RESOLUTIONS: readonly Resolution[] = [...new Set<Resolution>([...SPEC_RESOLUTIONS, ...DOC_RESOLUTIONS])];

/** Length of a resolution in seconds. */
export function resolutionSeconds(resolution: Resolution): number {
  switch (resolution) {
    case 'D':
    case '1D':
      return 86_400;
    case '2D':
      return 2 * 86_400;
    case '3D':
      return 3 * 86_400;
    default:
      return Number(resolution) * 60;
  }
}

/** Entry of /hector/web/v1/markets `result.markets` (spec 2.16). */
export interface ActiveMarket {
  symbol: string;
  baseAsset: string;
  quoteAsset: string;
  faBaseAsset?: string;
  faQuoteAsset?: string;
  enBaseAsset?: string;
  enQuoteAsset?: string;
  categories: number[];
  price?: Decimal;
  change24h?: Decimal;
  volume24h?: Decimal;
  change7d?: Decimal;
  quoteVolume24h?: Decimal;
  createdAt?: string;
  spotIsNew: boolean;
  otcIsNew: boolean;
  isNew: boolean;
  isSpot: boolean;
  isOtc: boolean;
  isMargin: boolean;
  isTmnBased: boolean;
  isUsdtBased: boolean;
  isZeroFee: boolean;
  leverageStep?: Decimal;
  maxLeverage?: Decimal;
  amountPrecision?: number;
  pricePrecision?: number;
  flags?: unknown;
}

/** `all@price` stream entry. */
export interface PriceTick {
  symbol: string;
  price: Decimal;
  change24h?: Decimal;
}
