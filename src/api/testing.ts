/**
 * `mizan/testing`: unit-test a strategy with scripted candles, books and fills (src/testing/harness.ts).
 */
export { harness, drafts, bar, candle, simpleBook, fillEvent, ManualClock } from '../testing/harness.js';
export type { Harness, HarnessOptions, MarketRules } from '../testing/harness.js';
export { silentLogger } from '../core/logger.js';
