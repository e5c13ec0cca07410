/**
 * What a strategy can see, and the events every layer reports in (execution's order updates and
 * fills, risk's denials and margin alerts, the portfolio's positions): shared types, so they live in
 * core/ (the strategy API re-exports them from strategy/views.ts). These are read-only views that
 * the kernel builds from the market-data engine, the portfolio, the order tracker and the journal. None of them can place an order: the
 * only way a strategy acts is by returning intents. (The REST client and the withdrawal call are
 * not reachable from here.)
 */
import type { Decimal } from './decimal.js';
import type { Intent } from './intents.js';
import type { BookLevel, MarketStats, PublicTrade, Side } from './types/market.js';
import type { MarginPosition } from './types/margin.js';

export interface MarketView {
  symbol: string;
  base: string;
  quote: string;
  /** Quantity increment (from stepSize decimals). */
  qtyStep: Decimal;
  /** Price increment (from tickSize decimals). */
  priceTick: Decimal;
  quantityPrecision: number;
  pricePrecision: number;
  minQty: Decimal;
  maxQty?: Decimal;
  minNotional: Decimal;
  makerFee: Decimal;
  takerFee: Decimal;
  /** Margin markets: the exchange's risk-coefficient bounds (`/margin-trade/v1/public/markets`). */
  riskCoef?: RiskCoefBounds;
  /** Instant (OTC) markets: the instant desk's own bounds (`/v1/otc/markets`), not the spot market's. */
  instant?: InstantBounds;
}

/**
 * The instant desk's bounds of a market (`GET /v1/otc/markets`): an instant order's total (quantity ×
 * the instant price, in the quote asset) must be from `minNotional` to `maxNotional`, and its
 * quantity at least `minQty` (at most `maxQty`) where the desk says so. Above the maximum the exchange
 * answers 422; below the minimum it refuses what the spot market's own minimum may let through.
 */
export interface InstantBounds {
  minNotional: Decimal;
  maxNotional: Decimal;
  minQty?: Decimal;
  maxQty?: Decimal;
}

export interface RiskCoefBounds {
  min: Decimal;
  max: Decimal;
  step?: Decimal;
}

export interface BookHealthView {
  healthy: boolean;
  /** Why the book is not healthy: crossed, unsorted, side_too_old, stream_down, channel_stale, … */
  reasons: string[];
  bidAgeMs: number;
  askAgeMs: number;
  resyncs: number;
}

export interface WalkResult {
  /** Average fill price; undefined when nothing could be filled. */
  avgPrice?: Decimal;
  filled: Decimal;
  /** Quote amount paid (buy) or received (sell). */
  cost: Decimal;
  /** True when the book ran out before the quantity was filled. */
  exhausted: boolean;
}

export interface BookView {
  symbol: string;
  bestBid(): Decimal | undefined;
  bestAsk(): Decimal | undefined;
  mid(): Decimal | undefined;
  spread(): Decimal | undefined;
  /** Top levels, bids high to low. */
  bids(depth?: number): BookLevel[];
  /** Top levels, asks low to high. */
  asks(depth?: number): BookLevel[];
  /** Walk the book as a market order of this side and quantity would. */
  walk(side: Side, quantity: Decimal): WalkResult;
  health(): BookHealthView;
}

export interface BalanceView {
  asset: string;
  value: Decimal;
  locked: Decimal;
  /** value − locked − reserved by this bot's in-flight intents. */
  free: Decimal;
}

export interface SpotPositionView {
  symbol: string;
  quantity: Decimal;
  avgPrice: Decimal;
  realizedPnl: Decimal;
}

export type OrderState = 'pending' | 'open' | 'partially_filled' | 'filled' | 'cancelled' | 'rejected' | 'expired' | 'unknown';

export interface OrderView {
  clientOrderId: string;
  strategy: string;
  symbol: string;
  side: Side;
  type: string;
  price?: Decimal;
  stopPrice?: Decimal;
  quantity: Decimal;
  filled: Decimal;
  avgPrice?: Decimal;
  state: OrderState;
  tag?: string;
  createdAt: number;
}

export interface OrderUpdate {
  order: OrderView;
  previous: OrderState;
  /** For rejections and cancels: the exchange's or the executor's reason. */
  reason?: string;
}

export interface FillEvent {
  clientOrderId: string;
  strategy: string;
  symbol: string;
  side: Side;
  price: Decimal;
  quantity: Decimal;
  fee: Decimal;
  feeAsset: string;
  timestamp: number;
  tag?: string;
}

export interface Denial {
  intent: Intent;
  rule: string;
  reason: string;
  /**
   * When the rule knows it, how long until the same intent may pass (the order rate: the next free
   * slot of the window). Absent when only a change of the account or the market would let it pass.
   */
  retryAfterMs?: number;
}

export interface MarginAlert {
  position: MarginPosition;
  /** What the margin monitor did or asks for. */
  action: 'warn' | 'topUp' | 'close';
  markPrice: Decimal;
  distanceToCallPct: number;
  distanceToLiquidationPct: number;
}

/**
 * The bot's trading state: `active` (every rule as usual), `reducing` (only intents that lower
 * exposure pass), `halted` (nothing but cancels; a halt cancels every open order).
 */
export type TradingStateName = 'active' | 'reducing' | 'halted';

/** A change of the trading state, as `onTradingState` receives it. */
export interface TradingStateChange {
  state: TradingStateName;
  previous: TradingStateName;
  /** Why (`mizan halt --reason`, the API's body, a protection's breach, `resumed by the operator`). */
  reason?: string;
  /** When the new state began, epoch ms. */
  since: number;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };

/** Small persistent key-value state per strategy instance; survives restarts (journal). */
export interface KeyValueStore {
  get<T extends JsonValue = JsonValue>(key: string): T | undefined;
  set(key: string, value: JsonValue): void;
  delete(key: string): void;
}

export type { MarketStats, PublicTrade };
