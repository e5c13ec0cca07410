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

// Market-data stream (curated: generic names stay inside the module)
export {
  StreamClient,
  DEFAULT_STALE_AFTER_MS,
  cleanChannel,
  parseChannel,
  marketChannels,
  StreamPayloadError,
} from './exchange/stream/index.js';
export type { StreamClientOptions, StreamClientEvents, StreamStats, ChannelKind, ChannelInfo, DepthSide, MalformedKind } from './exchange/stream/index.js';
// The account's private stream (live mode with a stream key)
export { PrivateStreamClient, validateStreamKey, parsePrivateMessage, PrivatePayloadError } from './exchange/stream/index.js';
export type {
  PrivateStreamOptions,
  PrivateStreamEvents,
  PrivateStreamStats,
  PrivateOrderUpdate,
  PrivateTrade,
  PrivateMessage,
  PrivateEventKind,
} from './exchange/stream/index.js';

// Simulated exchange
export {
  SimulatedExchange,
  createDefaultSimulator,
  createTestAccount,
  createWireServer,
  FaultInjector,
  SimError,
  runSim,
  StreamKeys,
} from './sim/index.js';
export type { WireServer, WireServerOptions, FaultConfig, SimOrder, SimFill, PlaceOrderRequest, MarketSpec, Route } from './sim/index.js';
export { createSimDesks, MarginDesk, InstantDesk, PropDesk, WithdrawalDesk, AccountExtras } from './sim/desks.js';

// Configuration
export { loadConfig, parseConfig, ConfigError, SIMULATOR_MARKETS, validateParams } from './config/index.js';
export type { MizanConfig, StrategyConfig, BacktestConfig, ExchangeConfig, ConfigIssue, Mode } from './config/index.js';

// Journal
export { Journal, computePnl } from './store/index.js';
export type { JournalPnlRow } from './store/index.js';

// Risk
export { RiskEngine, Reservations, TradingState, Protections, MarginMonitor, mergeLimits } from './risk/index.js';
export type { RiskVerdict, RiskPorts, RiskLimits as RiskEngineLimits, StrategyLimits, MarginAction } from './risk/index.js';

// Execution and portfolio
export { ExecutionEngine, DEFAULT_EXECUTION_OPTIONS } from './execution/engine.js';
export type { ExecutionOptions, ExecutionJournal } from './execution/engine.js';
export type { Venue } from './execution/venue.js';
export { RestVenue } from './execution/rest-venue.js';
export { PrivateStreamTracker } from './execution/private-stream.js';
export type { OrphanUpdate, PrivateTrackerStats, PrivateStreamSource } from './execution/private-stream.js';
export { ClientIdGenerator, isValidClientId } from './execution/client-id.js';
export { Portfolio } from './portfolio/portfolio.js';
export type { EquitySnapshot, PnlRow } from './portfolio/portfolio.js';

// Backtesting
export { runBacktest, BacktestDataError } from './backtest/run.js';
export { formatSummary, resultJson } from './backtest/result.js';
export { renderHtmlReport } from './backtest/report-html.js';
export { SimVenue, mapSimError, toSpotOrder } from './execution/sim-venue.js';

// Candle files and replay
export * from './market/files/index.js';
export { startReplay, candleSource, hftSource, derivedSource, derivedTmnSource, defaultReplaySources, sourceCandles } from './sim/replay/index.js';
export type { ReplayTarget, ReplaySource, ReplayHandle } from './sim/replay/index.js';
