/** The exchange's REST client. */
export { WallexRestClient, type WallexRestClientOptions } from './client.js';
export { HttpCore, type HttpCoreOptions, type HttpMethod, type HttpResult, type RequestSpec } from './http.js';
export { OrderOutcomeUnknownError, mapHttpError, makeRedactor, type WriteOperation } from './errors.js';
export { OrderRateLimiter, DEFAULT_ORDER_RATE_LIMIT, type OrderRateLimit } from './limiter.js';
export { DEFAULT_RETRY_POLICY, backoffDelay, parseRetryAfter, type RetryPolicy } from './retry.js';
export { orderBody, type OpenOrdersQuery, type AccountTradesQuery } from './spot.js';
export type { CandleQuery } from './market.js';
export type { WithdrawalRequest, HistoryPage } from './account.js';
export type { LoanQuery } from './margin.js';
