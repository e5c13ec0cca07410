/**
 * One sweep trial: the backtest of one combination of parameters on candles already loaded, as the
 * sweep's worker threads run it (sweep-worker.ts, and the job queue's, src/queue/trial-thread.ts), so
 * that every executor computes the same row.
 */
import { performance } from 'node:perf_hooks';
import type { MizanConfig } from '../config/schema.js';
import { Decimal } from '../core/decimal.js';
import { loadStrategyInstances, type StrategyDefinitionCache } from '../runtime/strategy-loader.js';
import type { DataOptions } from './load.js';
import type { Metric, MetricKey } from './metrics/index.js';
import { runBacktest, withParams } from './run.js';

/** One trial: parameter overrides per strategy instance, and optionally its own range and its equity curve. */
export interface TrialRequest {
  params: Record<string, Record<string, unknown>>;
  /** The run's range (ms); the config's when absent. The candles must cover it (and its warm-up). */
  from?: number;
  to?: number;
  /** Return the run's equity curve (at most 2000 points). */
  equity?: boolean;
}

export interface TrialAnswer {
  metrics: Partial<Record<MetricKey, number | null>>;
  /** Why each n/a metric is n/a (`14 daily returns; needs at least 30`). */
  na?: Partial<Record<MetricKey, string>>;
  error?: string;
  /** How long the trial took (ms). */
  ms: number;
  equity?: { times: number[]; values: number[] };
}

/** The config with the `fees: account` rates the parent read (sent as strings) put back as Decimals. */
export function withAccountFees(config: MizanConfig, accountFees: Record<string, { maker: string; taker: string }> | undefined): MizanConfig {
  return accountFees && config.backtest
    ? {
        ...config,
        backtest: {
          ...config.backtest,
          accountFees: Object.fromEntries(Object.entries(accountFees).map(([s, r]) => [s, { maker: new Decimal(r.maker), taker: new Decimal(r.taker) }])),
        },
      }
    : config;
}

/** A function running trials of `config` on `columns`; strategy modules are imported once. Never throws: a failed trial answers with its error. */
export function trialRunner(config: MizanConfig, columns: NonNullable<DataOptions['columns']>): (req: TrialRequest) => Promise<TrialAnswer> {
  const definitions: StrategyDefinitionCache = new Map();
  return (req) => {
    const t0 = performance.now();
    return Promise.resolve()
      .then(() => loadStrategyInstances(withParams(config, req.params), definitions))
      .then((instances) =>
        runBacktest(config, {
          instances,
          equityPoints: req.equity ? 2000 : 2,
          detail: 'summary',
          columns,
          ...(req.from !== undefined ? { from: req.from } : {}),
          ...(req.to !== undefined ? { to: req.to } : {}),
        }),
      )
      .then((run): TrialAnswer => {
        const metrics: Partial<Record<MetricKey, number | null>> = {};
        const na: Partial<Record<MetricKey, string>> = {};
        for (const [k, v] of Object.entries(run.result.metrics)) {
          if (v && typeof v === 'object' && 'value' in v) metrics[k as MetricKey] = (v as Metric).value;
          if (v && typeof v === 'object' && 'reason' in v && typeof v.reason === 'string') na[k as MetricKey] = v.reason;
        }
        // Handler errors are the run's error (ranked table, CSV), as mizan backtest fails on them.
        const e = run.result.errors;
        const error =
          e.total > 0 && !config.backtest?.allowErrors
            ? `${e.total} strategy handler error(s), first: ${e.kinds.map((k) => `${k.strategy}.${k.handler}: ${k.error} ×${k.count}`).join('; ')}`
            : undefined;
        const equity = req.equity ? { times: [...run.result.equity.times], values: [...run.result.equity.values] } : undefined;
        return { metrics, na, ...(error ? { error } : {}), ...(equity ? { equity } : {}), ms: performance.now() - t0 };
      })
      .catch((err: unknown) => ({ metrics: {}, error: err instanceof Error ? err.message : String(err), ms: performance.now() - t0 }));
  };
}
