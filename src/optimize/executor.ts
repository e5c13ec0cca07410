/**
 * The seam between the optimiser and whatever runs a backtest: `TrialExecutor`. The optimiser asks
 * it to run one parameter set and waits for the metrics; it never sees worker threads. Today's
 * implementation is the sweep's worker-thread pool (`workerPoolExecutor`); a job-queue executor
 * (src/queue/) can replace it by implementing the same three members.
 */
import { availableParallelism } from 'node:os';
import type { MizanConfig } from '../config/schema.js';
import type { DataOptions } from '../backtest/load.js';
import { BacktestWorkerPool, type RunReply, type RunRequest } from '../backtest/worker-pool.js';

/** One backtest to run: parameter overrides per strategy instance, and optionally its own range. */
export type TrialRequest = RunRequest;
/**
 * Its metrics (or error), duration and, when asked, its equity curve; or `unrun`: the executor could
 * not run it (a queue worker refused it, its code differing). A set-up fault, not the trial's
 * result: the study keeps the trial to run again.
 */
export type TrialResult = RunReply & { unrun?: string };

export interface TrialExecutor {
  /** How many runs it can do at once: the optimiser asks the sampler for this many trials at a time. */
  readonly concurrency: number;
  run(request: TrialRequest): Promise<TrialResult>;
  close(): Promise<void>;
}

export interface WorkerPoolExecutorOptions {
  configFile: string;
  config: MizanConfig;
  /** The candles, loaded and checked once by the parent (loadSweepData). */
  columns: NonNullable<DataOptions['columns']>;
  /** Worker threads (default: the machine's available parallelism). */
  workers?: number;
  onWorkerStart?(started: number): void;
}

/** Runs trials on `workers` worker threads, all started at once. */
export function workerPoolExecutor(o: WorkerPoolExecutorOptions): TrialExecutor {
  const n = o.workers ?? availableParallelism();
  const pool = new BacktestWorkerPool({
    configFile: o.configFile,
    config: o.config,
    columns: o.columns,
    initialWorkers: n,
    maxWorkers: n,
    ...(o.onWorkerStart ? { onWorkerStart: (s: number) => o.onWorkerStart!(s) } : {}),
  });
  return { concurrency: n, run: (r) => pool.run(r), close: () => pool.close() };
}
