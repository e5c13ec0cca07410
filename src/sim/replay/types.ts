/**
 * Replay contracts. Sources produce events in time order with prices and quantities as exact
 * decimal strings (no Decimal per level until the driver pushes them into the simulator, where
 * they are parsed with toDecimal). The driver pushes into a `ReplayTarget`: the two methods of
 * `SimulatedExchange` that replay needs.
 */
import type { Decimal } from '../../core/decimal.js';
import type { Candle } from '../../core/types/market.js';

export interface ReplayLevel {
  price: Decimal;
  quantity: Decimal;
}

export interface ReplayTrade {
  symbol: string;
  price: Decimal;
  quantity: Decimal;
  /** True when the taker bought. */
  isBuyOrder: boolean;
  /** Milliseconds since the epoch. */
  timestamp: number;
}

/** What the replay needs from the simulator (SimulatedExchange fits). */
export interface ReplayTarget {
  replaceBookSide(symbol: string, side: 'bid' | 'ask', levels: ReplayLevel[], timeMs?: number): void;
  recordTrade(trade: ReplayTrade): void;
}

/** `[price, quantity]` as exact decimal strings. */
export type RawLevel = readonly [price: string, quantity: string];

export interface BookEvent {
  kind: 'book';
  symbol: string;
  /** Milliseconds since the epoch (source time). */
  time: number;
  /** Best first: bids high to low, asks low to high. May hold more than 50 levels. */
  bids: readonly RawLevel[];
  asks: readonly RawLevel[];
  /** Exchange update id the book is at (L2 captures only). */
  updateId?: number;
}

export interface TradeEvent {
  kind: 'trade';
  symbol: string;
  time: number;
  price: string;
  quantity: string;
  isBuyOrder: boolean;
}

export type ReplayEvent = BookEvent | TradeEvent;

export interface ReplaySource {
  readonly name: string;
  /** The markets this source emits events for. */
  readonly symbols: readonly string[];
  /** Bar length of `candles()`, seconds. */
  readonly resolutionSec: number;
  /** A fresh iterator over all events, times non-decreasing (ms). */
  events(): Iterator<ReplayEvent>;
  /** Candles of a symbol in source time, bar start in [fromSec, toSec]. */
  candles(symbol: string, fromSec?: number, toSec?: number): Candle[];
}

/** Tick and step of a market, as counts of decimal places (like /v1/markets). */
export interface MarketGrid {
  tickDecimals: number;
  stepDecimals: number;
}

export function inRange(candles: readonly Candle[], fromSec = -Infinity, toSec = Infinity): Candle[] {
  return candles.filter((c) => c.time >= fromSec && c.time <= toSec);
}
