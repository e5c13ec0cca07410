/**
 * `mizan/exchange`: the Wallex API clients on their own. The REST client (typed, validated, retried
 * where safe, order-rate limited; its withdrawal call is refused unless the client is created with
 * `allowWithdrawals: true`), the market-data and private stream clients, the market-data engine
 * (local books, health, candles) and the error classes a caller can catch.
 */
export { WallexRestClient, type WallexRestClientOptions } from '../exchange/rest/client.js';
export { OrderOutcomeUnknownError, type WriteOperation } from '../exchange/rest/errors.js';
export { DEFAULT_ORDER_RATE_LIMIT, type OrderRateLimit } from '../exchange/rest/limiter.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../exchange/rest/retry.js';
export type { OpenOrdersQuery, AccountTradesQuery } from '../exchange/rest/spot.js';
export type { CandleQuery } from '../exchange/rest/market.js';
export type { WithdrawalRequest } from '../exchange/rest/account.js';
export type { LoanQuery } from '../exchange/rest/margin.js';
export {
  MizanError,
  FinalError,
  RetryableError,
  ParameterError,
  ResponseParseError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  InsufficientBalanceError,
  NotFoundError,
  MethodNotAllowedError,
  DuplicateOrderError,
  ValidationError,
  ExchangeRejectedError,
  ForbiddenOperationError,
  RateLimitError,
  RequestTimeoutError,
  NetworkError,
  ExchangeUnavailableError,
  isRetryable,
} from '../core/errors.js';
export type { FieldErrors, ErrorContext } from '../core/errors.js';
export type * from '../core/types/index.js';

// Market-data stream
export { StreamClient, DEFAULT_STALE_AFTER_MS, marketChannels, StreamPayloadError } from '../exchange/stream/index.js';
export type { StreamClientOptions, StreamClientEvents, StreamStats, ChannelKind, ChannelInfo, DepthSide, MalformedKind } from '../exchange/stream/index.js';
// The account's private stream
export { PrivateStreamClient, validateStreamKey, PrivatePayloadError } from '../exchange/stream/index.js';
export type {
  PrivateStreamOptions,
  PrivateStreamEvents,
  PrivateStreamStats,
  PrivateOrderUpdate,
  PrivateTrade,
  PrivateMessage,
  PrivateEventKind,
} from '../exchange/stream/index.js';

// Local order books, their health, trades and candles from the stream
export { MarketDataEngine, DEFAULT_ENGINE_OPTIONS } from '../market/engine.js';
export type { MarketDataEngineOptions, MarketDataEngineEvents, MarketDataEngineDeps } from '../market/engine.js';
export { OrderBook } from '../market/order-book.js';
export type { BookHealth, StaleReason } from '../market/book-health.js';
export { SystemClock, ManualClock, type Clock } from '../core/clock.js';
export { silentLogger, type Logger } from '../core/logger.js';
export { Decimal, d, type DecimalInput } from '../core/decimal.js';
