/**
 * Intents: what a strategy asks for. Strategies never call the exchange; they return intents, the
 * risk module checks each one (pass, pass adjusted, deny), and the executor turns passed intents
 * into orders. Sizes given as a quote amount or a fraction of the free balance are resolved into a
 * base quantity at the last moment, with the current book.
 */
import type { Decimal } from './decimal.js';
import type { OrderType, Side } from './types/index.js';
import type { PositionSide } from './types/margin.js';

/** How big an order is: a base quantity, a quote amount to spend or receive, or a share of the free balance. */
export type Size =
  | { kind: 'base'; quantity: Decimal }
  | { kind: 'quote'; amount: Decimal }
  /** Share (0 < f <= 1) of the free balance of the asset the order spends: quote for a buy, base for a sell. */
  | { kind: 'fraction'; fraction: number };

interface IntentBase {
  /** The strategy instance that emitted it (set by the runner when the strategy leaves it out). */
  strategy: string;
  /** Free text that follows the order into the journal and the strategy's callbacks. */
  tag?: string;
}

/** Take-profit / stop-loss attached to an entry: placed by the executor once the entry has filled. */
export interface Brackets {
  takeProfit?: Decimal;
  stopLoss?: Decimal;
}

export interface SpotOrderIntent extends IntentBase {
  kind: 'order';
  symbol: string;
  side: Side;
  type: OrderType;
  size: Size;
  /** LIMIT and STOP_LIMIT. */
  price?: Decimal;
  /** STOP_LIMIT and STOP_MARKET. */
  stopPrice?: Decimal;
  brackets?: Brackets;
}

export interface CancelIntent extends IntentBase {
  kind: 'cancel';
  clientOrderId: string;
}

export interface CancelAllIntent extends IntentBase {
  kind: 'cancelAll';
  symbol: string;
}

export interface InstantOrderIntent extends IntentBase {
  kind: 'instant';
  symbol: string;
  side: Side;
  size: Size;
}

export interface MarginOpenIntent extends IntentBase {
  kind: 'marginOpen';
  market: string;
  side: PositionSide;
  collateral: Decimal;
  riskCoef: Decimal;
  /**
   * Left out: the open price of the exchange's dry run when one was taken (a strategy with
   * `risk.limits.minCallDistancePct`), else the mid of the market's book, rounded to the price tick,
   * in every mode (a backtest's book is the last close on both sides). The risk check's adjustment
   * says which it used.
   */
  openPrice?: Decimal;
  stopLoss?: Decimal;
  takeProfit?: Decimal;
}

export interface MarginAddCollateralIntent extends IntentBase {
  kind: 'marginAddCollateral';
  positionId: number;
  amount: Decimal;
}

export interface MarginCloseIntent extends IntentBase {
  kind: 'marginClose';
  positionId: number;
  /**
   * The worst price to close at. Left out: at the market, priced at the best bid (long) or ask
   * (short) moved by the strategy's `maxSlippagePct` (at most 4 %); the exchange closes at its own
   * price when it is at least that good, else the position waits for it.
   */
  price?: Decimal;
}

/**
 * Close the strategy's spot position in a market, as freqtrade's exit does: the kernel cancels the
 * resting legs of each bracket of the strategy there (their stop locks the coins a plain sell needs),
 * then sells what each bracket holds at market; the rest of the strategy's position there (bought
 * without a bracket) is sold at market as an order the risk rules check. Nothing to close: denied
 * (rule `exit`).
 */
export interface ExitIntent extends IntentBase {
  kind: 'exit';
  symbol: string;
}

/**
 * Moves an open margin position's stop loss and take profit (the exchange's `PATCH
 * positions/{id}/sltp`): both are replaced, one left out is removed. A trailing stop sends one on
 * every new high (long) or low (short). The exchange (and the simulator) refuses a stop loss on the
 * wrong side of the current price.
 */
export interface MarginBracketsIntent extends IntentBase {
  kind: 'marginBrackets';
  positionId: number;
  stopLoss?: Decimal;
  takeProfit?: Decimal;
}

export type Intent =
  | SpotOrderIntent
  | CancelIntent
  | CancelAllIntent
  | InstantOrderIntent
  | MarginOpenIntent
  | MarginAddCollateralIntent
  | MarginCloseIntent
  | ExitIntent
  | MarginBracketsIntent;

export type IntentKind = Intent['kind'];

/** Verdicts of the risk module: denials are values, not exceptions. */
export type Verdict<I extends Intent = Intent> =
  { ok: true; intent: I; adjustments: Adjustment[] } | { ok: false; intent: I; rule: string; reason: string; retryAfterMs?: number };

export interface Adjustment {
  rule: string;
  field: string;
  from: string;
  to: string;
  why: string;
}
