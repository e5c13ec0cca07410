/**
 * mizan's public API. Strategies and user code import only from here.
 */
export * from './core/index.js';

// Strategy API
export { defineStrategy } from './strategy/define.js';
export type {
  AnyStrategyDefinition,
  HandlerResult,
  StrategyContext,
  StrategyDefinition,
  StrategyHandlers,
} from './strategy/define.js';
export type { ParamSpec, ParamSpecs, ParamValues } from './strategy/params.js';
export { resolveParams, describeParams } from './strategy/params.js';
export * from './strategy/builders.js';
export * from './strategy/views.js';
export { CandleWindow, type CandleNumbers } from './strategy/candle-window.js';
export { Bar } from './strategy/bar.js';
export * from './strategy/indicators/index.js';
export * from './backtest/metrics/index.js';

// Exchange REST client (parsers under the `parse` namespace)
export * from './exchange/rest/index.js';
export * as parse from './exchange/parse/index.js';
