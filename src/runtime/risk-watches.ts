/**
 * The risk module's live watches of a bot: the margin monitor over open positions (warn, top up
 * within a budget, close before liquidation, through the owning strategy's intents), the trading
 * state written by `mizan halt` / `mizan resume`, and the halt's cancel-everything.
 */
import type { Decimal } from '../core/decimal.js';
import type { Logger } from '../core/logger.js';
import type { MarginPosition } from '../core/types/margin.js';
import type { MizanConfig } from '../config/schema.js';
import type { ExecutionEngine } from '../execution/engine.js';
import type { MarketDataEngine } from '../market/engine.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { RiskEngine } from '../risk/engine.js';
import { MarginMonitor } from '../risk/margin-monitor.js';
import type { PositionOwners } from '../risk/margin-owners.js';
import { simMarginFormulas } from '../risk/margin-topup.js';
import { watchTradingState } from '../risk/state-watch.js';
import { defaultMarginMarket } from '../sim/margin/config.js';
import type { Journal } from '../store/journal.js';
import type { BookView, MarketView } from '../strategy/views.js';
import { startMarginWatch } from './margin-watch.js';
import type { TradingCore } from './trading-core.js';

export interface RiskWatchDeps {
  config: MizanConfig;
  logger: Logger;
  core: TradingCore;
  engine: ExecutionEngine;
  risk: RiskEngine;
  portfolio: Portfolio;
  market: MarketDataEngine;
  journal: Journal;
  owners: PositionOwners;
  symbols: readonly string[];
  markets(symbol: string): MarketView | undefined;
  books(symbol: string): BookView | undefined;
  mark(symbol: string): Decimal | undefined;
}

/** Start the watches; returns the function that stops them. */
export function startRiskWatches(d: RiskWatchDeps): () => void {
  const monitor = new MarginMonitor({
    config: d.config.risk.marginMonitor ?? {},
    formulas: simMarginFormulas((m) => {
      const mv = d.markets(m);
      return mv ? { callMargin: defaultMarginMarket(mv.quote).callMargin, quantityPrecision: mv.quantityPrecision } : undefined;
    }),
    quoteOf: (m) => d.markets(m)?.quote ?? 'USDT',
    logger: d.logger.child({ component: 'margin' }),
  });
  const marginWatch = startMarginWatch({
    core: d.core,
    monitor,
    owners: d.owners,
    positions: () => d.portfolio.marginPositions(),
    mark: d.mark,
    closePrice: (p: MarginPosition) => (p.side === 'long' ? d.books(p.market)?.bestBid() : d.books(p.market)?.bestAsk()),
    refresh: () => d.core.executor.syncMargin('main'),
    intervalMs: 5_000,
    logger: d.logger,
  });
  const onBook = (symbol: string) => marginWatch.onPrice(symbol);
  d.market.on('book', onBook);
  // `mizan halt` / `mizan resume` write the journal; a running bot applies them within 2 s.
  const stateWatch = watchTradingState(d.journal, d.risk, { intervalMs: 2_000, logger: d.logger });
  const onHalt = ({ reason }: { reason: string }) => {
    d.logger.warn({ reason }, 'halted: cancelling every open order');
    for (const s of d.symbols) void d.engine.cancelAll(s);
  };
  d.risk.on('cancelAllOrders', onHalt);
  return () => {
    d.market.off('book', onBook);
    d.risk.off('cancelAllOrders', onHalt);
    marginWatch.stop();
    stateWatch.stop();
  };
}
