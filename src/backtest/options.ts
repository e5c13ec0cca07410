/** The options of one backtest run (runBacktest in run.ts; the walk reads its callbacks). */
import type { Logger } from '../core/logger.js';
import type { StrategyInstance } from '../kernel/trading-core.js';
import type { DataOptions } from './load.js';
import type { DataReport } from './data.js';

export interface BacktestOptions extends DataOptions {
  /** Override the config's range (ms). */
  from?: number;
  to?: number;
  /** Parameter overrides per strategy instance name (sweeps). */
  params?: Record<string, Record<string, unknown>>;
  /** Already loaded instances (skip loading the strategy modules). */
  instances?: StrategyInstance[];
  logger?: Logger;
  /** Points kept in the result's equity curve, about (every k-th, the last, the deepest drawdown's peak, trough and recovery; the metrics use every point). Default 2000. */
  equityPoints?: number;
  /**
   * `summary`: build what the terminal summary and a sweep row read (summary, metrics, breakdowns,
   * denials, errors, trades, equity, balances); the result's `orders` and `plots` are left empty
   * (`mizan backtest` without `--out`, sweep trials), and the run's memory does not grow with its
   * order records (either way the execution engine keeps only the last few final orders, and a full
   * run keeps a record per order instead). Default `full`.
   */
  detail?: 'full' | 'summary';
  /** Called with the run's simulated clock once it exists (the CLI stamps log lines with it). */
  onClock?(clock: { now(): number }): void;
  /** Called with the data report before the run starts. */
  onDataReport?(report: DataReport): void;
  /** Called every `progressEvery` candles with (done, total). */
  onProgress?(done: number, total: number): void;
  progressEvery?: number;
}
