/** computeMetrics: the one entry point that turns a run's equity curve and trades into `Metrics`. */
import { ParameterError } from '../../core/errors.js';
import { dailyRiskFree, EquityFold, sharpe, sortino } from './equity.js';
import { checkClosedTrades, checkTrades, exposurePct, tradeColumns, tradeStats, type TradeColumns } from './trades.js';
import { DAY_MS, DEFAULT_THRESHOLDS, na, ok, type Metric, type Metrics, type MetricsInput, type MetricsOptions } from './types.js';

/**
 * Computes every metric. Pure and deterministic: the same input gives bit-identical output (no clock,
 * fixed summation order). Throws ParameterError (naming the field and index) on malformed input.
 */
export function computeMetrics(input: MetricsInput, options: MetricsOptions = {}): Metrics {
  const o = checkOptions(input, options);
  const { times, values } = input.equity;
  if (times.length !== values.length) {
    throw new ParameterError('equity.values.length', values.length, `equal to equity.times.length ${times.length}`);
  }
  const fold = new EquityFold();
  for (let i = 0; i < times.length; i++) fold.add(times[i]!, values[i]!);
  const trades = input.trades;
  return metricsOf(fold, { ...input, trades: tradeColumns(trades) }, o, () => checkClosedTrades(trades));
}

/** What computeFoldedMetrics reads besides the curve: computeMetrics' input with the trades as columns. */
export type FoldedMetricsInput = Omit<MetricsInput, 'equity' | 'trades'> & { trades: TradeColumns };

/**
 * computeMetrics of an equity curve folded as it was made and of trades given as columns (a
 * backtest's: it keeps no sample per candle and makes no object per trade for the metrics): the same
 * numbers as computeMetrics of the curve's points and the trades as objects.
 */
export function computeFoldedMetrics(equity: EquityFold, input: FoldedMetricsInput, options: MetricsOptions = {}): Metrics {
  return metricsOf(equity, input, checkOptions(input, options), () => checkTrades(input.trades));
}

interface Checked {
  rf: number;
  minDays: number;
  minReturns: number;
  minSqn: number;
}

function checkOptions(input: Pick<MetricsInput, 'feesPaid'>, options: MetricsOptions): Checked {
  const rf = options.riskFreeRate ?? 0;
  if (!Number.isFinite(rf) || rf <= -1) throw new ParameterError('riskFreeRate', String(rf), 'an annual rate > -1');
  const minDays = options.minDaysForCagr ?? DEFAULT_THRESHOLDS.minDaysForCagr;
  const minReturns = options.minDailyReturns ?? DEFAULT_THRESHOLDS.minDailyReturns;
  const minSqn = options.minTradesForSqn ?? DEFAULT_THRESHOLDS.minTradesForSqn;
  if (!(minReturns >= 2)) throw new ParameterError('minDailyReturns', minReturns, '>= 2');
  if (!(minSqn >= 2)) throw new ParameterError('minTradesForSqn', minSqn, '>= 2');
  if (!(minDays >= 0)) throw new ParameterError('minDaysForCagr', minDays, '>= 0');
  if (!Number.isFinite(input.feesPaid) || input.feesPaid < 0) {
    throw new ParameterError('feesPaid', String(input.feesPaid), 'a finite number >= 0');
  }
  return { rf, minDays, minReturns, minSqn };
}

function metricsOf(curve: EquityFold, input: FoldedMetricsInput, o: Checked, checkTradesOf: () => void): Metrics {
  const { rf, minDays, minReturns, minSqn } = o;
  curve.check();
  checkTradesOf();

  const start = curve.firstTime;
  const end = curve.lastTime;
  const dd = curve.drawdowns();
  const cagr = curve.cagrPct(minDays);
  const returns = curve.dailyReturns();
  const rfDaily = dailyRiskFree(rf);

  let calmar: Metric;
  if (cagr.value === null) calmar = na(`CAGR is n/a: ${cagr.reason}`);
  else if (dd.maxDrawdown === 0) calmar = na('no drawdown (max drawdown is 0)');
  else calmar = ok(cagr.value / 100 / dd.maxDrawdown);

  let buyAndHold: Metric = na('no benchmark prices given');
  if (input.benchmark) {
    const { firstPrice, lastPrice } = input.benchmark;
    if (!(firstPrice > 0) || !Number.isFinite(firstPrice)) throw new ParameterError('benchmark.firstPrice', String(firstPrice), 'a price > 0');
    if (!(lastPrice >= 0) || !Number.isFinite(lastPrice)) throw new ParameterError('benchmark.lastPrice', String(lastPrice), 'a price >= 0');
    buyAndHold = ok((lastPrice / firstPrice - 1) * 100);
  }

  const stats = tradeStats(input.trades, minSqn);
  if (input.pnlUnavailable && input.trades.length > 0) {
    const r = na(input.pnlUnavailable);
    stats.profitFactor = r;
    stats.expectancy = r;
    stats.sqn = r;
  }

  return {
    start,
    end,
    days: (end - start) / DAY_MS,
    startEquity: curve.firstValue,
    endEquity: curve.lastValue,
    totalReturnPct: curve.totalReturnPct(),
    cagrPct: cagr,
    maxDrawdownPct: dd.maxDrawdownPct,
    maxDrawdownDurationMs: dd.maxDrawdownDurationMs,
    longestDrawdownMs: dd.longestDrawdownMs,
    sharpe: sharpe(returns, rfDaily, minReturns),
    sortino: sortino(returns, rfDaily, minReturns),
    calmar,
    ...stats,
    // The given intervals (checked), else each trade's entry..exit (checked with the trades).
    exposurePct: input.exposure
      ? exposurePct(
          input.exposure.map((iv) => iv.start),
          input.exposure.map((iv) => iv.end),
          start,
          end,
          false,
        )
      : exposurePct(input.trades.entryTime, input.trades.exitTime, start, end, true),
    feesPaid: ok(input.feesPaid),
    buyAndHoldReturnPct: buyAndHold,
    dailyReturns: returns,
  };
}
