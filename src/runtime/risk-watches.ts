/**
 * The live watches of a bot around its kernel: the margin monitor re-evaluated on every book update
 * of a market with an open position (the kernel's margin watch; its timer re-reads positions), the
 * trading state written by `mizan halt` / `mizan resume` (read from the journal).
 */
import type { Logger } from '../core/logger.js';
import type { TradingKernel } from '../kernel/kernel.js';
import type { MarketDataEngine } from '../market/engine.js';
import { watchTradingState } from '../risk/state-watch.js';
import type { Journal } from '../store/journal.js';

export interface RiskWatchDeps {
  logger: Logger;
  kernel: TradingKernel;
  market: MarketDataEngine;
  journal: Journal;
  symbols: readonly string[];
}

/** Start the watches; returns the function that stops them. */
export function startRiskWatches(d: RiskWatchDeps): () => void {
  const onBook = (symbol: string) => d.kernel.marginWatch.onPrice(symbol);
  d.market.on('book', onBook);
  // `mizan halt` / `mizan resume` write the journal; a running bot applies them within 2 s.
  const stateWatch = watchTradingState(d.journal, d.kernel.risk, { intervalMs: 2_000, logger: d.logger });
  return () => {
    d.market.off('book', onBook);
    stateWatch.stop();
  };
}
