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
import { runBacktest } from './run.js';
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

parentPort!.on('message', (m: { i: number; params: Record<string, Record<string, unknown>> }) => {
  runBacktest(config, { params: m.params, equityPoints: 2, columns })
    .then((run) => {
      const metrics: Partial<Record<MetricKey, number | null>> = {};
      for (const [k, v] of Object.entries(run.result.metrics)) {
        if (v && typeof v === 'object' && 'value' in v) metrics[k as MetricKey] = (v as Metric).value;
      }
      parentPort!.postMessage({ i: m.i, metrics });
    })
    .catch((err: unknown) => parentPort!.postMessage({ i: m.i, error: err instanceof Error ? err.message : String(err) }));
});
