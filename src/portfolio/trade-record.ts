/**
 * A closed (or still open) round trip as a backtest's result lists it, and the margin figures the
 * trade book builds one from. The trade book (src/portfolio/trade-book.ts) books them; the result,
 * its breakdowns and reports read them.
 */
import type { Decimal } from '../core/decimal.js';

/** The tag (and trade exit) of backtest.closeAtEnd's orders (close-at-end.ts). */
export const CLOSE_AT_END = 'close at end';
/** The exit of a trade a stop loss closed (a bracket's stop leg, a margin position's own): the stoploss guard counts these. */
export const STOP_LOSS_EXIT = 'stop loss';
/** The exit of a margin position the exchange liquidated: the stoploss guard counts these too. */
export const LIQUIDATION_EXIT = 'liquidation';
/** The exit of a margin position the margin monitor closed (risk.marginMonitor.closeAtPct). */
export const MONITOR_EXIT = 'margin monitor';

export interface TradeRecord {
  strategy: string;
  symbol: string;
  side: 'long' | 'short';
  entryTime: number;
  exitTime: number;
  entryPrice: string;
  exitPrice: string;
  quantity: string;
  /** Net of fees, quote currency. */
  pnl: string;
  pnlPct: number;
  fees: string;
  entryTag?: string;
  exitTag?: string;
  /**
   * How it ended: `signal` (the strategy's sell or marginClose), `stop loss` / `take profit` (a
   * bracket's exit, a margin position's own), `liquidation`, `close at end` (backtest.closeAtEnd),
   * `open at end`, or another margin close reason as the exchange gives it.
   */
  exit: string;
  /** The quote asset of pnl and fees, only when it is not the run's reference asset. */
  quote?: string;
  /** pnl in the reference asset at the exit's price, only for a trade in another quote asset the run can price. */
  pnlReference?: string;
}

/**
 * A margin position's close reason in the words of spot trades: closed by the bot (the strategy's
 * marginClose) `signal` (the trade book names the margin monitor's closes `margin monitor`), its stop
 * loss and take profit `stop loss` and `take profit`; any other reason as the exchange gives it
 * (`expired`).
 */
export function marginExit(reason: string | null | undefined): string {
  if (reason === 'user') return 'signal';
  if (reason === 'stop_loss') return STOP_LOSS_EXIT;
  if (reason === 'take_profit') return 'take profit';
  return reason ? String(reason) : 'closed';
}

/** What a margin position cost and holds beyond its wire form (the sim desk's `costs`). */
export interface MarginCosts {
  openFee: Decimal;
  closeFee: Decimal;
  interest: Decimal;
  /** Of the closing fee and the interest, what the position's equity paid (less than both after a gap liquidation). */
  closeCostsPaid?: Decimal;
  /** Base quantity held: + long, − short. */
  baseQty: Decimal;
}
