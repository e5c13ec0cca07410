/** The risk module: engine, rules, reservations, trading state, protections, margin monitor. */
export { RiskEngine, DEFAULT_ORDER_RATE } from './engine.js';
export type { RiskEngineDeps, RiskEngineEvents } from './engine.js';
export type { RiskVerdict, CheckOptions, MarginPreview } from './types.js';
export type {
  RiskPorts,
  RiskMarket,
  RiskBook,
  BalanceEntryView,
  OpenOrderRef,
  PositionRef,
  RiskSink,
  TradingStateName,
  TradingStateRecord,
  ProtectionsMemo,
} from './ports.js';
export { mergeLimits, DEFAULT_MAX_SLIPPAGE_PCT } from './limits.js';
export type { RiskLimits, StrategyLimits, OrderRateLimits, PositionValueLimits } from './limits.js';
export { Reservations } from './reservations.js';
export type { Reservation, ReservationKind, ReserveRequest, ReserveResult, ReservationsOptions } from './reservations.js';
export { followAcceptance } from './lock-coverage.js';
export { OrderRateBudget } from './order-rate.js';
export type { RateKind } from './order-rate.js';
export { TradingState } from './trading-state.js';
export type { TradingStateDeps, TradingStateEvents } from './trading-state.js';
export { Protections, emptyMemo, utcDay } from './protections/index.js';
export type { ProtectionsConfig, ClosedTrade, BreachAction, BotProtection } from './protections/index.js';
export { MarginMonitor, distancePct } from './margin-monitor.js';
export type { MarginMonitorConfig, MarginFormulas, MarginAction, MarginMonitorDeps } from './margin-monitor.js';
export { collateralForCallPrice, callPriceOf, positionAmounts, simMarginFormulas } from './margin-topup.js';
export type { MarginMarketParams } from './margin-topup.js';
export { PositionOwners } from './margin-owners.js';
export type { PositionOwnersOptions, OwnerStore } from './margin-owners.js';
export { watchTradingState } from './state-watch.js';
export type { TradingStateWatch, TradingStateWatchOptions, TradingStateSource, TradingStateTarget } from './state-watch.js';
export { registerRiskCommands, setTradingState, readTradingState, describeState } from '../cli/risk.js';
export type { RiskCommandDeps } from '../cli/risk.js';
export { roundToStep } from './grid.js';
export { MemorySink, journalRiskSink, RISK_KV } from './sinks.js';
export type { JournalLike, JournalReader } from './sinks.js';
export type { RiskRule, CheckState } from './rule.js';
export { roundPrice } from './rules/market-limits.js';
export { walkBase, walkQuote } from './book-walk.js';
export type { Walk } from './book-walk.js';
