/**
 * The market-data engine's events into the kernel, in every mode that runs on the engine (live and
 * paper bots, book backtests): one wiring, so a strategy sees books, their health, trades, stats and
 * candles the same way whatever feeds the engine.
 */
import type { BookView } from '../core/views.js';
import type { MarketDataEngine } from '../market/engine.js';
import type { TradingKernel } from '../kernel/kernel.js';
import { Bar } from '../strategy/bar.js';
import { healthView } from './views.js';

/**
 * The market data engine's events into the kernel: book health changes and books to the strategies,
 * trades through the kernel (the last price, the brackets' watch, then the strategies), stats, and
 * closed candles through the kernel (after the strategies handled one, the equity goes to the
 * protections).
 */
export function wireMarketEvents(market: MarketDataEngine, kernel: TradingKernel, books: (symbol: string) => BookView | undefined): void {
  const core = kernel.core;
  const lastHealthy = new Map<string, boolean>();
  market.on('book', (symbol, _book, health) => {
    if (lastHealthy.get(symbol) !== health.healthy) {
      lastHealthy.set(symbol, health.healthy);
      core.onBookHealth(symbol, healthView(health));
    }
    const view = books(symbol);
    if (view) core.onBook(symbol, view);
  });
  market.on('health', (symbol, health) => {
    if (lastHealthy.get(symbol) === health.healthy) return;
    lastHealthy.set(symbol, health.healthy);
    core.onBookHealth(symbol, healthView(health));
  });
  market.on('trade', (t) => kernel.onTrade(t));
  market.on('stats', (s, st) => core.onStats(s, st));
  market.on('candleClosed', (symbol, res, c) => void kernel.onBar(symbol, Bar.fromCandle(c, res)));
}
