/**
 * `mizan`: what a strategy author needs. defineStrategy, the intent builders and sizes, the
 * indicators, Decimal helpers, and the types of bars, books, orders, fills, denials and the strategy
 * context. Everything else is under a subpath: `mizan/testing` (unit-test a strategy),
 * `mizan/backtest` (run backtests and sweeps from code), `mizan/exchange` (REST and stream clients),
 * `mizan/sim` (the simulated exchange). test/api/public-api.test.ts lists every name.
 */

// Decimal amounts and prices
export {
  Decimal,
  d,
  toDecimal,
  toDecimalOrUndefined,
  DecimalParseError,
  ZERO,
  ONE,
  cleanFloat,
  incrementFromDecimals,
  roundToDecimals,
  roundToIncrement,
  decimalPlaces,
  fitsDecimals,
  toPlain,
  dmin,
  dmax,
  dsum,
} from './core/decimal.js';
export type { DecimalInput, DecimalRounding, RoundMode } from './core/decimal.js';

// Strategies
export { defineStrategy } from './strategy/define.js';
export type {
  AnyStrategyDefinition,
  HandlerResult,
  MaybePromise,
  StrategyContext,
  StrategyDefinition,
  StrategyHandlers,
  StrategyStop,
} from './strategy/define.js';
export type { PlotSpec, PlotSpecs } from './strategy/plots.js';
export type { ParamSpec, ParamSpecs, ParamValues, ParamIssue } from './strategy/params.js';
export { resolveParams, describeParams } from './strategy/params.js';

// Intents: builders, sizes and their types
export {
  qty,
  quote,
  fraction,
  limit,
  market,
  stopLimit,
  stopMarket,
  cancel,
  cancelAll,
  exit,
  instant,
  marginOpen,
  marginAddCollateral,
  marginClose,
  marginBrackets,
} from './strategy/builders.js';
export type { Draft, OrderOptions, MarginOpenInput } from './strategy/builders.js';
export type * from './core/intents.js';

// What a strategy sees: bars, candle windows, books, orders, fills, denials, its context's views
export { Bar } from './strategy/bar.js';
export type { BarColumns } from './strategy/bar.js';
export { CandleWindow, type CandleNumbers } from './strategy/candle-window.js';
export type * from './strategy/views.js';
export type * from './core/types/market.js';
export type * from './core/types/order.js';
export type * from './core/types/margin.js';
export type { Balance, Balances, FeeRate, FeeRates } from './core/types/account.js';
export type { Clock } from './core/clock.js';
export type { Logger, LogFn } from './core/logger.js';

// Indicators
export * from './strategy/indicators/index.js';
