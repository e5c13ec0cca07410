/**
 * A sweep worker: takes the candles the parent loaded and checked once (files read, `fetch: true`
 * data fetched or read from the cache: `loadSweepData` in sweep.ts), then runs one backtest per
 * message on those in-memory candles (in the message's range when it names one) and answers with its
 * metrics, the run's duration and, when asked, its equity curve (worker-pool.ts; the trial itself:
 * sweep-trial.ts, shared with the job queue's threads).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from '../config/load.js';
import type { DataOptions } from './load.js';
import { trialRunner, withAccountFees, type TrialRequest } from './sweep-trial.js';

const { configFile, columns, accountFees } = workerData as {
  configFile: string;
  columns: NonNullable<DataOptions['columns']>;
  /** `fees: account` rates the parent read from the exchange, as strings. */
  accountFees?: Record<string, { maker: string; taker: string }>;
};
const run = trialRunner(withAccountFees(await loadConfig(configFile), accountFees), columns);

parentPort!.on('message', (m: { i: number } & TrialRequest) => {
  void run(m).then((a) => parentPort!.postMessage({ i: m.i, ...a }));
});
