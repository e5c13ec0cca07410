/**
 * `mizan/backtest`: run a backtest or a parameter sweep from code and read its result.
 *
 *   const config = loadConfig('config/backtest.yaml');
 *   const run = await runBacktest(config);
 *   console.log(formatSummary(run.result));
 */
export { loadConfig, parseConfig, ConfigError, formatIssues } from '../config/index.js';
export type { ConfigOptions, ConfigIssue, MizanConfig, StrategyConfig, BacktestConfig, Mode } from '../config/index.js';
export { runBacktest, BacktestDataError } from '../backtest/run.js';
export type { BacktestOptions, BacktestRun } from '../backtest/run.js';
export { formatSummary, resultJson, RESULT_FORMAT } from '../backtest/result.js';
export type { BacktestResult, OrderRecord } from '../backtest/result.js';
export type { BreakdownRow, Breakdowns, Paint } from '../backtest/breakdowns.js';
export type { PlotSeries } from '../backtest/plots.js';
export type { TradeRecord } from '../portfolio/trade-record.js';
export type { BookMetrics } from '../backtest/book/book-stats.js';
export type { UnhealthyBook, UnhealthyStretch } from '../backtest/book/book-unhealthy.js';
export type { BookChartMarket, BookChartFill } from '../backtest/book/book-chart.js';
export { renderHtmlReport } from '../backtest/report-html.js';
export { parseParamRange, expandSweep, runSweep, rankRows, sweepCsv } from '../backtest/sweep.js';
export type { ParamRange, Combo, SweepRow, SweepOptions } from '../backtest/sweep.js';
export { computeMetrics, METRIC_DEFINITIONS, formatMetrics, formatMetricValue } from '../backtest/metrics/index.js';
export type { MetricDefinition, MetricUnit, Metric, MetricKey, Metrics, ClosedTrade, EquityCurve } from '../backtest/metrics/index.js';
export { loadStrategyInstances, importStrategy, listBundledStrategies } from '../runtime/strategy-loader.js';
export { readCandles, readCandleFile, readCandleColumns, detectCandleFormat, findGaps, CandleFileError } from '../market/files/index.js';
export type { CandleFileFormat, CandleReadOptions, ReadColumns, CandleColumns, CandleGap } from '../market/files/index.js';
