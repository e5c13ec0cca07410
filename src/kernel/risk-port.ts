/**
 * The risk engine as the trading core's RiskPort, the same in every mode: a mode's gate first (a
 * backtest's warm-up), a `marginClose` without a price priced to close at the market (the best bid,
 * long, or ask, short, moved by the strategy's slippage bound: its documented default,
 * core/intents.ts), and the ledger's closed round trips fed into the protections (the trade book's
 * close, with the same pnl a backtest's trades report). A margin open whose strategy has a
 * `minCallDistancePct` asks for the exchange's dry-run preview first (marginPreviewRequest); the
 * trading core takes it on the venue and passes it to the check.
 */
import type { Decimal } from '../core/decimal.js';
import type { Intent, Verdict } from '../core/intents.js';
import type { MarginPosition } from '../core/types/margin.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { RiskEngine } from '../risk/engine.js';
import type { RiskPort } from './trading-core.js';

export interface RiskPortOptions {
  /** A verdict the mode gives before risk; undefined lets risk decide. */
  gate?(intent: Intent): Verdict | undefined;
  /** The price that closes a margin position of `strategy` at the market (kernel.ts), or undefined without a book. */
  closePrice?(position: MarginPosition, strategy: string): Decimal | undefined;
  /** A denial made clearer by what the kernel knows (a sell refused for coins a bracket's resting leg locks). */
  explain?(verdict: Verdict): Verdict;
}

export function riskPort(risk: RiskEngine, portfolio: Portfolio, o: RiskPortOptions = {}): RiskPort {
  portfolio.trades.onClose((t) => {
    risk.onTradeClosed({ strategy: t.strategy, symbol: t.symbol, pnl: t.pnl, ts: t.closedAt, exit: t.exit, ...(t.tag ? { reason: t.tag } : {}) });
  });
  return {
    check: (intent, options) => {
      const early = o.gate?.(intent);
      if (early) return early;
      let v: Verdict | undefined;
      if (intent.kind === 'marginClose' && !intent.price) {
        const pos = portfolio.marginPositions().find((x) => x.id === intent.positionId);
        const price = pos ? o.closePrice?.(pos, intent.strategy) : undefined;
        if (price) v = risk.check({ ...intent, price }, options);
      }
      v ??= risk.check(intent, options);
      return !v.ok && o.explain ? o.explain(v) : v;
    },
    // Undefined at once for anything but a margin open with a minimum call distance; the mode's gate
    // (a backtest's warm-up) is asked only then: a gated intent is denied without a preview.
    marginPreviewRequest: (intent) => {
      const req = risk.marginPreviewRequest(intent);
      return req && !o.gate?.(intent) ? req : undefined;
    },
    precheckWanted: (intent) => !o.gate?.(intent),
    reserved: (account, asset) => risk.reservations.reserved(account, asset),
    release: (id) => risk.release(id),
  };
}
