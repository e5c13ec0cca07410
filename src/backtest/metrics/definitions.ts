/**
 * What every metric means: the text docs/backtesting.md, `formatMetrics` and the HTML report show.
 * `unit` says how to print the value.
 */
import { DEFAULT_THRESHOLDS, type MetricKey } from './types.js';

export type MetricUnit = 'pct' | 'ratio' | 'money' | 'count' | 'duration';

export interface MetricDefinition {
  key: MetricKey;
  name: string;
  unit: MetricUnit;
  formula: string;
  /** When the metric is n/a instead of a number. */
  na: string;
}

const T = DEFAULT_THRESHOLDS;

export const METRIC_DEFINITIONS: readonly MetricDefinition[] = [
  {
    key: 'totalReturnPct',
    name: 'Total return',
    unit: 'pct',
    formula: '(E_end / E_start - 1) * 100, E = equity (quote currency, fees deducted)',
    na: 'fewer than 2 equity points',
  },
  {
    key: 'cagrPct',
    name: 'CAGR',
    unit: 'pct',
    formula: '((E_end / E_start)^(365 / days) - 1) * 100, days = (t_end - t_start) / 86 400 000 ms',
    na: `span under ${T.minDaysForCagr} days (option minDaysForCagr), or E_end <= 0`,
  },
  {
    key: 'maxDrawdownPct',
    name: 'Max drawdown',
    unit: 'pct',
    formula: 'max over t of (1 - E_t / max(E_0..E_t)) * 100, shown as a positive percent of the peak',
    na: 'fewer than 2 equity points',
  },
  {
    key: 'maxDrawdownDurationMs',
    name: 'Max drawdown duration',
    unit: 'duration',
    formula: 'time from the peak before the deepest trough until equity is back at that peak (or the last point if never)',
    na: 'fewer than 2 equity points',
  },
  {
    key: 'longestDrawdownMs',
    name: 'Longest drawdown',
    unit: 'duration',
    formula: 'longest time under water: from any peak until equity is back at or above it (or the last point)',
    na: 'fewer than 2 equity points',
  },
  {
    key: 'sharpe',
    name: 'Sharpe ratio',
    unit: 'ratio',
    formula:
      'mean(r_d - rf_d) / stdev(r_d - rf_d) * sqrt(365); r_d = daily returns of the equity resampled to UTC days ' +
      '(last point of each day, carried over empty days), stdev with n - 1, rf_d = (1 + rf)^(1/365) - 1, rf = 0 by default',
    na: `fewer than ${T.minDailyReturns} daily returns (option minDailyReturns), or zero variance`,
  },
  {
    key: 'sortino',
    name: 'Sortino ratio',
    unit: 'ratio',
    formula: 'mean(r_d - rf_d) / sqrt(sum(min(0, r_d - rf_d)^2) / n) * sqrt(365), same daily returns as Sharpe',
    na: `fewer than ${T.minDailyReturns} daily returns, or no day below the risk-free rate`,
  },
  {
    key: 'calmar',
    name: 'Calmar ratio',
    unit: 'ratio',
    formula: '(CAGR / 100) / (max drawdown / 100), over the whole run (not the classic trailing 36 months)',
    na: 'CAGR is n/a, or max drawdown is 0',
  },
  {
    key: 'winRatePct',
    name: 'Win rate',
    unit: 'pct',
    formula: 'trades with pnl > 0 / closed trades * 100 (a trade at exactly 0 is not a win)',
    na: 'no closed trades',
  },
  {
    key: 'profitFactor',
    name: 'Profit factor',
    unit: 'ratio',
    formula: 'sum of pnl of winning trades / |sum of pnl of losing trades| (pnl net of fees)',
    na: 'no closed trades, or no losing trade (division by 0; shown as n/a, not Infinity), or a trade pnl the run cannot value in the reference asset',
  },
  {
    key: 'expectancy',
    name: 'Expectancy',
    unit: 'money',
    formula: 'sum(pnl) / closed trades: mean net profit per trade, reference asset (a trade in another quote asset: its pnl converted at its exit)',
    na: 'no closed trades, or a trade pnl the run cannot value in the reference asset',
  },
  {
    key: 'sqn',
    name: 'SQN',
    unit: 'ratio',
    formula: 'sqrt(N) * mean(pnl) / stdev(pnl), N = closed trades, stdev with N - 1 (Van Tharp; N not capped)',
    na: `fewer than ${T.minTradesForSqn} closed trades (option minTradesForSqn), or stdev(pnl) = 0, or a trade pnl the run cannot value in the reference asset`,
  },
  {
    key: 'exposurePct',
    name: 'Exposure time',
    unit: 'pct',
    formula: 'length of the union of position-open intervals (default: each trade entry..exit), clipped to the run, / run length * 100',
    na: 'the equity curve spans no time',
  },
  { key: 'trades', name: 'Trades', unit: 'count', formula: 'number of closed trades', na: 'never' },
  {
    key: 'avgTradePct',
    name: 'Average trade',
    unit: 'pct',
    formula: 'mean of pnl % of the closed trades (net of fees)',
    na: 'no closed trades',
  },
  { key: 'bestTradePct', name: 'Best trade', unit: 'pct', formula: 'max pnl % of a closed trade', na: 'no closed trades' },
  { key: 'worstTradePct', name: 'Worst trade', unit: 'pct', formula: 'min pnl % of a closed trade', na: 'no closed trades' },
  {
    key: 'avgTradeDurationMs',
    name: 'Average trade duration',
    unit: 'duration',
    formula: 'mean of (exit time - entry time)',
    na: 'no closed trades',
  },
  {
    key: 'maxTradeDurationMs',
    name: 'Max trade duration',
    unit: 'duration',
    formula: 'max of (exit time - entry time)',
    na: 'no closed trades',
  },
  {
    key: 'feesPaid',
    name: 'Fees paid',
    unit: 'money',
    formula:
      'sum of all fees paid in the run (spot, instant, margin opening/closing fees and interest), each converted to the reference asset when paid; fees the run cannot price are listed apart (result.json fees.unconverted)',
    na: 'never',
  },
  {
    key: 'buyAndHoldReturnPct',
    name: 'Buy & hold return',
    unit: 'pct',
    formula: '(P_last / P_first - 1) * 100 of the benchmark instrument over the same range (no fees)',
    na: 'no benchmark prices given',
  },
];
