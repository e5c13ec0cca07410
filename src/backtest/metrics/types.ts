/**
 * Inputs and outputs of the backtest metrics. Plain numbers (quote currency, ms since the Unix epoch):
 * the backtest driver converts its Decimal ledger once at the end of a run.
 */

/** A metric value, or n/a with the reason it is meaningless for this sample. */
export type Metric = { value: number } | { value: null; reason: string };

/** The equity curve: `times[i]` (ms, ascending) and the account value `values[i]` in the quote currency. */
export interface EquityCurve {
  times: ArrayLike<number>;
  values: ArrayLike<number>;
}

type TradeSide = 'long' | 'short';

/** A closed round trip. */
export interface ClosedTrade {
  side: TradeSide;
  entryTime: number;
  exitTime: number;
  entryPrice: number;
  exitPrice: number;
  quantity: number;
  /** Profit in the quote currency, net of fees. */
  pnl: number;
  /** Return of the trade in percent of the capital it committed (5 = +5 %), net of fees. */
  pnlPct: number;
  /** Fees paid on entry and exit, quote currency. */
  fees: number;
}

/** A time interval [start, end] in ms during which a position was open. */
interface Interval {
  start: number;
  end: number;
}

export interface MetricsInput {
  equity: EquityCurve;
  trades: readonly ClosedTrade[];
  /** All fees paid in the run (reference asset); includes fees of trades still open at the end. */
  feesPaid: number;
  /** First and last price of the benchmark instrument over the same range (for buy-and-hold). */
  benchmark?: { firstPrice: number; lastPrice: number };
  /** When a position was open. Default: the [entryTime, exitTime] of every trade. */
  exposure?: readonly Interval[];
  /**
   * Set when some trades' pnl cannot be valued in the equity's currency (a quote asset the run cannot
   * price): the metrics that add pnl across trades (profit factor, expectancy, SQN) are n/a with this
   * reason instead of adding amounts of different assets.
   */
  pnlUnavailable?: string;
}

export interface MetricsOptions {
  /** Annual risk-free rate as a fraction (0.2 = 20 %/year). Default 0. */
  riskFreeRate?: number;
  /** CAGR (and Calmar) are n/a for a curve spanning fewer days. Default 90. */
  minDaysForCagr?: number;
  /** Sharpe and Sortino are n/a with fewer daily returns. Default 30. */
  minDailyReturns?: number;
  /** SQN is n/a with fewer closed trades. Default 30. */
  minTradesForSqn?: number;
}

export const DEFAULT_THRESHOLDS = {
  minDaysForCagr: 90,
  minDailyReturns: 30,
  minTradesForSqn: 30,
} as const;

export const DAY_MS = 86_400_000;
export const DAYS_PER_YEAR = 365;

export interface Metrics {
  /** First and last equity timestamps (ms) and the span in days. */
  start: number;
  end: number;
  days: number;
  startEquity: number;
  endEquity: number;

  totalReturnPct: Metric;
  cagrPct: Metric;
  /** Largest peak-to-trough fall of the equity, as a positive percent of the peak. */
  maxDrawdownPct: Metric;
  /** From the peak before the deepest trough until the equity is back at that peak (or the end), ms. */
  maxDrawdownDurationMs: Metric;
  /** Longest time under water (from any peak until it is regained, or the end), ms. */
  longestDrawdownMs: Metric;
  sharpe: Metric;
  sortino: Metric;
  calmar: Metric;
  winRatePct: Metric;
  profitFactor: Metric;
  /** Mean net pnl per trade, quote currency. */
  expectancy: Metric;
  sqn: Metric;
  exposurePct: Metric;
  trades: Metric;
  avgTradePct: Metric;
  bestTradePct: Metric;
  worstTradePct: Metric;
  avgTradeDurationMs: Metric;
  maxTradeDurationMs: Metric;
  feesPaid: Metric;
  buyAndHoldReturnPct: Metric;
  /** Daily returns used for Sharpe and Sortino (fractions), in day order. */
  dailyReturns: number[];
}

/** The keys of `Metrics` that hold a `Metric`. */
export type MetricKey = {
  [K in keyof Metrics]: Metrics[K] extends Metric ? K : never;
}[keyof Metrics];

export function ok(value: number): Metric {
  return { value };
}

export function na(reason: string): Metric {
  return { value: null, reason };
}
