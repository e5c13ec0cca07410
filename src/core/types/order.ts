/** Orders (spec 2.12, 2.13) and account trades. */
import type { Decimal } from '../decimal.js';
import type { Side } from './market.js';

export type OrderType = 'LIMIT' | 'MARKET' | 'STOP_LIMIT' | 'STOP_MARKET';
export const ORDER_TYPES: readonly OrderType[] = ['LIMIT', 'MARKET', 'STOP_LIMIT', 'STOP_MARKET'];

/** Status strings seen from the exchange; others are kept as strings. `active` is the reliable flag. */
export type OrderStatus = 'NEW' | 'PARTIALLY_FILLED' | 'FILLED' | 'CANCELED' | 'FINISHED' | 'REJECTED' | 'EXPIRED' | (string & {});

export interface Fill {
  symbol: string;
  price: Decimal;
  quantity: Decimal;
  sum: Decimal;
  fee: Decimal;
  /**
   * Asset the fee was taken in (the received asset). Absent when the exchange's answer names none
   * (its instant-order documentation shows `feeAsset: {}`): the order's market says which it is.
   */
  feeAsset?: string;
  feeCoefficient?: Decimal;
  makerFeeCoefficient?: Decimal;
  takerFeeCoefficient?: Decimal;
  isBuyer: boolean;
  /** Milliseconds since the epoch. */
  timestamp: number;
}

export interface SpotOrder {
  symbol: string;
  type: OrderType | 'OTC';
  side: Side;
  clientOrderId: string;
  /** Limit price; for market orders the exchange may send 0 or the reference price. */
  price: Decimal;
  origQty: Decimal;
  origSum?: Decimal;
  executedQty: Decimal;
  executedSum?: Decimal;
  /** Average executed price. */
  executedPrice?: Decimal;
  executedPercent?: number;
  fee?: Decimal;
  stopPrice?: Decimal;
  stopPriceCondition?: string;
  sum?: Decimal;
  status: OrderStatus;
  active: boolean;
  fills: Fill[];
  /** Unix seconds, 0 when unknown. */
  transactTime?: number;
  createdAt?: string;
  updatedAt?: string;
}

export interface NewSpotOrder {
  symbol: string;
  side: Side;
  type: OrderType;
  quantity: Decimal;
  /** Required for LIMIT and STOP_LIMIT. */
  price?: Decimal;
  /** Required for STOP_LIMIT and STOP_MARKET. */
  stopPrice?: Decimal;
  /** Letters, digits and underscore. */
  clientId: string;
}

/** Instant (OTC) order response. */
export interface InstantOrder extends SpotOrder {
  sourceMarket?: string;
  destinationMarket?: string;
}

export interface NewInstantOrder {
  symbol: string;
  side: Side;
  quantity: Decimal;
}

export interface InstantQuote {
  symbol: string;
  side: Side;
  price: Decimal;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  ttlSeconds: number;
  currentTime: number;
}

/** A trade of the account (/v1/account/trades). */
export type AccountTrade = Fill;
