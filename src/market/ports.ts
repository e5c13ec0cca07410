/**
 * Narrow ports the market-data layer needs from the exchange adapter. `WallexRestClient`
 * (src/exchange/rest) and `StreamClient` (src/exchange/stream) satisfy them; tests use in-memory fakes.
 * Return types are deliberately permissive (arrays or maps) so either shape of the adapters fits.
 */
import type { Timers } from '../core/timers.js';
import type { Decimal } from '../core/decimal.js';
import type { ActiveMarket, Candle, DepthSnapshot, MarketInfo, MarketStats, PriceTick, PublicTrade, Resolution } from '../core/types/market.js';
import type { FeeRates } from '../core/types/account.js';
import type { MarginMarket } from '../core/types/margin-extra.js';
import type { OtcMarket } from '../exchange/parse/otc.js';

/** Which side of a book: bids (`@buyDepth`) or asks (`@sellDepth`). */
export type BookSide = 'bid' | 'ask';

/**
 * One level as it arrives: over socket.io `price` is a string and `quantity` a number; REST may send
 * strings, numbers or exponent notation; an adapter may already have parsed them into Decimals.
 */
export interface RawLevel {
  readonly price: string | number | Decimal;
  readonly quantity: string | number | Decimal;
}

/** Both sides of a book in any of the accepted level shapes. */
export interface RawDepth {
  readonly bids: ArrayLike<RawLevel>;
  readonly asks: ArrayLike<RawLevel>;
}

/** REST order-book source: `/v1/depth` and, when available, `/v2/depth/all`. */
export interface DepthSource {
  getDepth(symbol: string): Promise<DepthSnapshot | RawDepth>;
  getAllDepths?(): Promise<Record<string, DepthSnapshot | RawDepth>>;
}

/** Query of `/v1/udf/history`: times are Unix seconds, both ends inclusive. */
export interface CandleQuery {
  symbol: string;
  resolution: Resolution;
  from: number;
  to: number;
}

/** REST candle source (`/v1/udf/history`). */
export interface CandleHistorySource {
  getCandles(query: CandleQuery): Promise<Candle[]>;
}

/** REST market information: `/v1/markets`, `/hector/web/v1/markets`, `/v1/account/fee`. */
export interface MarketInfoSource {
  getMarkets(): Promise<MarketInfo[] | Record<string, MarketInfo>>;
  getActiveMarkets?(): Promise<ActiveMarket[]>;
  getFees?(): Promise<FeeRates>;
  /** `/margin-trade/v1/public/markets`: risk-coefficient bounds of the margin markets. */
  getMarginMarkets?(): Promise<MarginMarket[]>;
  /** `/v1/otc/markets`: the instant desk's bounds per market (instant-bounds.ts). */
  getOtcMarkets?(): Promise<OtcMarket[]>;
}

/** Events the stream client emits (the subset the market-data engine listens to). */
export interface StreamEvents {
  depth: (symbol: string, side: BookSide, levels: ArrayLike<RawLevel>) => void;
  /** The same with unparsed levels (price string or number): listened to when `emitsRawDepth`. */
  depthRaw: (symbol: string, side: BookSide, levels: ArrayLike<RawLevel>) => void;
  trade: (trade: PublicTrade) => void;
  marketCap: (symbol: string, stats: MarketStats) => void;
  price: (tick: PriceTick) => void;
  /** `connIndex` tells several stream connections apart. */
  connectionDown: (connIndex: number, reason: string) => void;
  connectionUp: (connIndex: number) => void;
  /** `channel` is the stream channel name, e.g. `BTCUSDT@buyDepth`. */
  channelStale: (channel: string, reason: string) => void;
  channelFresh: (channel: string) => void;
}

/**
 * The stream client as the engine sees it. The client is expected to restore its subscriptions after
 * a reconnect (the engine can also re-subscribe: `resubscribeOnReconnect`).
 */
export interface StreamPort {
  on(event: 'depth', listener: StreamEvents['depth']): unknown;
  on(event: 'depthRaw', listener: StreamEvents['depthRaw']): unknown;
  on(event: 'trade', listener: StreamEvents['trade']): unknown;
  on(event: 'marketCap', listener: StreamEvents['marketCap']): unknown;
  on(event: 'price', listener: StreamEvents['price']): unknown;
  on(event: 'connectionDown', listener: StreamEvents['connectionDown']): unknown;
  on(event: 'connectionUp', listener: StreamEvents['connectionUp']): unknown;
  on(event: 'channelStale', listener: StreamEvents['channelStale']): unknown;
  on(event: 'channelFresh', listener: StreamEvents['channelFresh']): unknown;
  off(event: 'depth', listener: StreamEvents['depth']): unknown;
  off(event: 'depthRaw', listener: StreamEvents['depthRaw']): unknown;
  off(event: 'trade', listener: StreamEvents['trade']): unknown;
  off(event: 'marketCap', listener: StreamEvents['marketCap']): unknown;
  off(event: 'price', listener: StreamEvents['price']): unknown;
  off(event: 'connectionDown', listener: StreamEvents['connectionDown']): unknown;
  off(event: 'connectionUp', listener: StreamEvents['connectionUp']): unknown;
  off(event: 'channelStale', listener: StreamEvents['channelStale']): unknown;
  off(event: 'channelFresh', listener: StreamEvents['channelFresh']): unknown;
  subscribe(channel: string): unknown;
  unsubscribe?(channel: string): unknown;
  /**
   * True when the client emits `depthRaw`: the engine then takes unparsed levels (its book checks
   * and parses them itself: doubles for ordering, exact Decimals lazily) and skips parsing every
   * level into a Decimal first. Otherwise it listens to `depth`.
   */
  readonly emitsRawDepth?: boolean;
}

/** Timer functions, injected so tests (and backtests) can drive them. */
export type { Timers };

/** Node's timers, unref'd (core/timers.ts). */
export { realTimers } from '../core/timers.js';
