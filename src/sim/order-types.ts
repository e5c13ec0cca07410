/** The simulator's own order, fill and trade records (Decimal everywhere; the wire formats them). */
import type { Decimal } from '../core/decimal.js';
import type { OrderType, Side } from '../core/types/index.js';

export type BookSide = 'bid' | 'ask';

/** Status values the exchange has been seen to send; `active` is the open/closed flag. */
export type SimOrderStatus = 'NEW' | 'FILLED' | 'CANCELED';

/** Direction of a stop, fixed at creation from the last price. */
export type StopCondition = 'LESS_THAN_OR_EQUAL' | 'GREATER_THAN_OR_EQUAL';

export interface PlaceOrderRequest {
  symbol: string;
  side: Side;
  type: OrderType;
  quantity: Decimal;
  /** LIMIT and STOP_LIMIT. */
  price?: Decimal;
  /** STOP_LIMIT and STOP_MARKET. */
  stopPrice?: Decimal;
  /** Letters, digits, underscore; generated (`LIMIT-<uuid>`) when absent. */
  clientId?: string;
}

export interface SimFill {
  accountId: string;
  clientOrderId: string;
  symbol: string;
  price: Decimal;
  quantity: Decimal;
  sum: Decimal;
  fee: Decimal;
  /** The received asset: base for a buy, quote for a sell. */
  feeAsset: string;
  feeCoefficient: Decimal;
  makerFeeCoefficient: Decimal;
  takerFeeCoefficient: Decimal;
  isBuyer: boolean;
  isMaker: boolean;
  /** Milliseconds since the epoch. */
  timestamp: number;
}

export interface SimOrder {
  accountId: string;
  clientOrderId: string;
  symbol: string;
  side: Side;
  type: OrderType;
  /** Limit price; for MARKET and STOP_MARKET the reference price at creation or trigger. */
  price: Decimal;
  stopPrice?: Decimal;
  stopCondition?: StopCondition;
  /** Stops: true once the condition was met and the order entered the book (or executed). */
  triggered: boolean;
  origQty: Decimal;
  executedQty: Decimal;
  executedSum: Decimal;
  /** Sum of the fills' fees (in the received asset). */
  fee: Decimal;
  fills: SimFill[];
  status: SimOrderStatus;
  active: boolean;
  /** Arrival sequence: time priority. */
  seq: number;
  createdAt: number;
  updatedAt: number;
  /** The part of the account's balance still frozen for this order. */
  locked: Decimal;
  lockAsset: string;
}

/** A trade as the exchange prints it on `@trade` and `/v1/trades`. */
export interface SimTrade {
  symbol: string;
  price: Decimal;
  quantity: Decimal;
  /** True when the taker bought. */
  isBuyOrder: boolean;
  timestamp: number;
  /**
   * Set by the exchange on the trades it publishes: true when the trade is the fill of an order
   * placed on it (a taker, or a resting order a market trade printed through), false for a market
   * trade fed in with `recordTrade`. Ignored on input.
   */
  fromOrder?: boolean;
}

export interface LevelInput {
  price: Decimal;
  quantity: Decimal;
}

export function remaining(o: SimOrder): Decimal {
  return o.origQty.minus(o.executedQty);
}
