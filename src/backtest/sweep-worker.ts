/**
 * A sweep worker: takes the candles the parent loaded and checked once (files read, `fetch: true`
 * data fetched or read from the cache: `loadSweepData` in sweep.ts), then runs one backtest per
 * message on those in-memory candles (in the message's range when it names one) and answers with its
 * metrics, the run's duration and, when asked, its equity curve (worker-pool.ts).
 */
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from '../config/load.js';
import type { MizanConfig } from '../config/schema.js';
import { Decimal } from '../core/decimal.js';
import type { DataOptions } from './load.js';
import { runBacktest, withParams } from './run.js';
import { loadStrategyInstances, type StrategyDefinitionCache } from '../runtime/strategy-loader.js';
import type { Metric, MetricKey } from './metrics/index.js';

const { configFile, columns, accountFees } = workerData as {
  configFile: string;
  columns: NonNullable<DataOptions['columns']>;
  /** `fees: account` rates the parent read from the exchange, as strings. */
  accountFees?: Record<string, { maker: string; taker: string }>;
};
const loaded = await loadConfig(configFile);
const config: MizanConfig =
  accountFees && loaded.backtest
    ? { ...loaded, backtest: { ...loaded.backtest, accountFees: Object.fromEntries(Object.entries(accountFees).map(([s, r]) => [s, { maker: new Decimal(r.maker), taker: new Decimal(r.taker) }])) } }
    : loaded;

// Strategy modules are imported once per worker; each run builds its instances from them.
const definitions: StrategyDefinitionCache = new Map();

parentPort!.on('message', (m: { i: number; params: Record<string, Record<string, unknown>>; from?: number; to?: number; equity?: boolean }) => {
  const t0 = performance.now();
  Promise.resolve()
    .then(() => loadStrategyInstances(withParams(config, m.params), definitions))
    .then((instances) =>
      runBacktest(config, { instances, equityPoints: m.equity ? 2000 : 2, columns, ...(m.from !== undefined ? { from: m.from } : {}), ...(m.to !== undefined ? { to: m.to } : {}) }),
    )
    .then((run) => {
      const metrics: Partial<Record<MetricKey, number | null>> = {};
      for (const [k, v] of Object.entries(run.result.metrics)) {
        if (v && typeof v === 'object' && 'value' in v) metrics[k as MetricKey] = (v as Metric).value;
      }
      // Handler errors are the run's error (ranked table, CSV), as mizan backtest fails on them.
      const e = run.result.errors;
      const error = e.total > 0 && !config.backtest?.allowErrors ? `${e.total} strategy handler error(s), first: ${e.kinds.map((k) => `${k.strategy}.${k.handler}: ${k.error} ×${k.count}`).join('; ')}` : undefined;
      const equity = m.equity ? { times: [...run.result.equity.times], values: [...run.result.equity.values] } : undefined;
      parentPort!.postMessage({ i: m.i, metrics, ...(error ? { error } : {}), ...(equity ? { equity } : {}), ms: performance.now() - t0 });
    })
    .catch((err: unknown) => parentPort!.postMessage({ i: m.i, error: err instanceof Error ? err.message : String(err), ms: performance.now() - t0 }));
});
