/**
 * A sweep worker: loads the config and its candle files once, then runs one backtest per message
 * on the in-memory candles and answers with its metrics.
 */
import { isAbsolute, resolve } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from '../config/load.js';
import { readCandleColumns } from '../market/files/read.js';
import { inferResolution } from './data.js';
import type { DataOptions } from './load.js';
import { runBacktest, withParams } from './run.js';
import { loadStrategyInstances, type StrategyDefinitionCache } from '../runtime/strategy-loader.js';
import type { Metric, MetricKey } from './metrics/index.js';

const { configFile } = workerData as { configFile: string };
const config = await loadConfig(configFile);
const columns: NonNullable<DataOptions['columns']> = {};
for (const entry of config.backtest?.data ?? []) {
  if (!entry.file) continue; // fetched data: loaded per run through the cache
  const file = isAbsolute(entry.file) ? entry.file : resolve(config.source.baseDir, entry.file);
  const cols = readCandleColumns(file);
  columns[entry.symbol] = { cols, resSec: inferResolution(file, cols.time), source: file };
}

// Strategy modules are imported once per worker; each run builds its instances from them.
const definitions: StrategyDefinitionCache = new Map();

parentPort!.on('message', (m: { i: number; params: Record<string, Record<string, unknown>> }) => {
  Promise.resolve()
    .then(() => loadStrategyInstances(withParams(config, m.params), definitions))
    .then((instances) => runBacktest(config, { instances, equityPoints: 2, columns }))
    .then((run) => {
      const metrics: Partial<Record<MetricKey, number | null>> = {};
      for (const [k, v] of Object.entries(run.result.metrics)) {
        if (v && typeof v === 'object' && 'value' in v) metrics[k as MetricKey] = (v as Metric).value;
      }
      parentPort!.postMessage({ i: m.i, metrics });
    })
    .catch((err: unknown) => parentPort!.postMessage({ i: m.i, error: err instanceof Error ? err.message : String(err) }));
});
