/**
 * A `mizan worker` thread: one sweep's config (as it came through the queue) and candles, then one
 * trial per message, run by the same code as a local sweep's worker threads (backtest/sweep-trial.ts).
 * The trials run here, off the worker's main thread, so that its Redis traffic (the job locks BullMQ
 * renews) goes on during a long backtest.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { trialRunner, withAccountFees, type TrialRequest } from '../backtest/sweep-trial.js';
import { configFromWire, type Columns } from './wire.js';

const { config, strategiesFrom, columns, accountFees } = workerData as {
  config: string;
  strategiesFrom: string;
  columns: Columns;
  accountFees?: Record<string, { maker: string; taker: string }>;
};
const run = trialRunner(withAccountFees(configFromWire(config, strategiesFrom), accountFees), columns);

parentPort!.on('message', (m: { i: number } & TrialRequest) => {
  void run(m).then((a) => parentPort!.postMessage({ i: m.i, ...a }));
});
