/** Market data: local order books and their health, trade tape, statistics, candles, market catalog. */
export * from './ports.js';
export * from './errors.js';
export { OrderBook, type WalkDirection, type WalkResult, type DepthBand, type BandSide } from './order-book.js';
export { BookSideLevels, type SideProblem, type SideRejection } from './book-side.js';
export { parseDecimalString } from './fast-parse.js';
export { type BookHealth, type StaleReason, type SideReason } from './book-health.js';
export { BookTracker, DEFAULT_BOOK_TRACKER_OPTIONS, type BookTrackerOptions, type BookTrackerDeps, type BookTrackerEvents } from './book-tracker.js';
export { fetchDepths, type DepthOutcome } from './depth-fetch.js';
export { ResyncScheduler, DEFAULT_RESYNC_OPTIONS, type ResyncSchedulerOptions, type ResyncRunner } from './resync-scheduler.js';
export { TradeTape, TradeRing } from './trade-tape.js';
export { MarketStatsStore, type Stamped } from './stats-store.js';
export { CandleAggregator, type LiveCandle } from './candle-aggregator.js';
export { resample, fillGaps, type ResampledCandle } from './resample.js';
export { CandleHistory, type CandleHistoryOptions, type CandleHistoryDeps, type CandleFetchResult, type CandleHistoryGap } from './candle-history.js';
export { CandleCache, type CandleStore } from './candle-cache.js';
export { mergeRanges, subtractRanges, timesToRanges, type Range } from './ranges.js';
export {
  MarketCatalog,
  mergeMarkets,
  normalizeSymbol,
  type Market,
  type FeeSource,
  type MarketCatalogOptions,
  type MarketCatalogEvents,
} from './market-catalog.js';
export {
  MarketDataEngine,
  DEFAULT_ENGINE_OPTIONS,
  type MarketDataEngineOptions,
  type MarketDataEngineEvents,
  type MarketDataEngineDeps,
  type EngineCounters,
} from './engine.js';
export * from './files/index.js';
