/** A sweep worker: loads the config once, runs one backtest per message, answers with its metrics. */
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from '../config/load.js';
import { runBacktest } from './run.js';
import type { Metric, MetricKey } from './metrics/index.js';

const { configFile } = workerData as { configFile: string };
const config = await loadConfig(configFile);

parentPort!.on('message', (m: { i: number; params: Record<string, Record<string, unknown>> }) => {
  runBacktest(config, { params: m.params, equityPoints: 2 })
    .then((run) => {
      const metrics: Partial<Record<MetricKey, number | null>> = {};
      for (const [k, v] of Object.entries(run.result.metrics)) {
        if (v && typeof v === 'object' && 'value' in v) metrics[k as MetricKey] = (v as Metric).value;
      }
      parentPort!.postMessage({ i: m.i, metrics });
    })
    .catch((err: unknown) => parentPort!.postMessage({ i: m.i, error: err instanceof Error ? err.message : String(err) }));
});
