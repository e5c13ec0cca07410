/**
 * The risk engine as the trading core's RiskPort, and the feed of closed round trips into its
 * protections (a sell that brings a strategy's position in a market back to zero closes a trade).
 */
import type { Decimal } from '../core/decimal.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { RiskEngine } from '../risk/engine.js';
import type { FillEvent } from '../strategy/views.js';
import type { RiskPort } from './trading-core.js';

export function riskPort(engine: RiskEngine, portfolio: Portfolio): RiskPort {
  return {
    check: (intent) => engine.check(intent),
    reserved: (account: string, asset: string): Decimal => engine.reservations.reserved(account, asset),
    release: (id) => engine.release(id),
    onFill: (f: FillEvent) => {
      const p = portfolio.positions.get(f.strategy, f.symbol);
      const last = p?.closedTrades.at(-1);
      if (f.side === 'SELL' && p && p.quantity.isZero() && last && last.closedAt === f.timestamp) {
        engine.onTradeClosed({ strategy: f.strategy, symbol: f.symbol, pnl: last.pnl, ts: f.timestamp, ...(f.tag ? { reason: f.tag } : {}) });
      }
    },
  };
}
