/**
 * What `mizan backtest` needs before its first candle, in one module: the config loader, the logger,
 * the account's fee rates, the run, the progress bar and the secrets' scrubbing. `mizan` (dist/src/)
 * imports it when the command runs (`mizan --help` does not load it); the bundled `mizan backtest`
 * (backtest-main.ts) imports it statically, so its code comes in the command's own chunks (fewer
 * files to read before the first candle).
 */
export { default as cliProgress } from 'cli-progress';
export { loadConfig } from '../config/load.js';
export { createLogger } from '../runtime/logger.js';
export { resolveAccountFees } from '../backtest/account-fees.js';
export { runBacktest } from '../backtest/run.js';
export { configSecrets } from '../runtime/secrets.js';
export { scrub } from '../core/scrub.js';
// `mizan sweep` takes these two modules whole (backtest.ts, load()): from here too, not by imports of
// their own (each dynamic import is a place where the bundle splits its chunks).
export * as feesModule from '../backtest/account-fees.js';
export * as runModule from '../backtest/run.js';
