/**
 * Parameter sweeps: every combination of `--param name=from..to:step` values, run as separate
 * backtests across worker threads (one, growing while the work left pays for more; WorkerScaler), ranked
 * by a metric, after the data is loaded and reported once. Values are checked
 * against the strategy's declared bounds before any run starts.
 */
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../config/load.js';
import type { MizanConfig } from '../config/schema.js';
import { shareColumns } from '../market/files/columns.js';
import type { CandleHistorySource } from '../market/ports.js';
import { loadStrategyInstances, type StrategyDefinitionCache } from '../runtime/strategy-loader.js';
import type { ParamSpecs } from '../strategy/params.js';
import type { DataReport, Series } from './data.js';
import { loadData, type DataOptions } from './load.js';
import type { MetricKey } from './metrics/index.js';
import { BacktestDataError, withParams } from './run.js';
import { BacktestWorkerPool, type Combo as ParamOverrides } from './worker-pool.js';

export interface ParamRange {
  /** `name` (the only strategy instance) or `instance.name`. */
  name: string;
  values: number[];
}

/** `fast=5..30:5` -> {name: 'fast', values: [5, 10, …, 30]}; `x=1,2,5` lists values. */
export function parseParamRange(text: string): ParamRange {
  const m = /^([A-Za-z0-9_.-]+)=(.+)$/.exec(text.trim());
  if (!m) throw new Error(`--param ${JSON.stringify(text)}: expected name=from..to:step or name=a,b,c`);
  const [, name, spec] = m as unknown as [string, string, string];
  const r = /^(-?[\d.]+)\.\.(-?[\d.]+)(?::([\d.]+))?$/.exec(spec);
  if (r) {
    const from = Number(r[1]);
    const to = Number(r[2]);
    const step = r[3] === undefined ? 1 : Number(r[3]);
    if (!(step > 0) || !(to >= from)) throw new Error(`--param ${name}: range ${spec} needs from <= to and a positive step`);
    const values: number[] = [];
    for (let k = 0; from + k * step <= to + 1e-9; k++) values.push(Number((from + k * step).toPrecision(12)));
    return { name, values };
  }
  const values = spec.split(',').map(Number);
  if (values.some((v) => !Number.isFinite(v))) throw new Error(`--param ${name}: ${spec} is not a range or a list of numbers`);
  return { name, values };
}

export type Combo = Record<string, Record<string, number>>;

/** Every combination, as parameter overrides per instance; each value checked against the declared bounds. */
export async function expandSweep(config: MizanConfig, ranges: ParamRange[]): Promise<Combo[]> {
  const instances = await loadStrategyInstances(config);
  const resolved = ranges.map((r) => {
    const [inst, param] = r.name.includes('.') ? (r.name.split('.', 2) as [string, string]) : [undefined, r.name];
    const names = instances.map((i) => i.name).join(', ');
    const target = inst ? instances.find((i) => i.name === inst) : instances.length === 1 ? instances[0] : undefined;
    if (!target && inst) throw new Error(`--param ${r.name}: the config has no strategy instance named ${inst} (its instances: ${names})`);
    if (!target) throw new Error(`--param ${r.name}: name the instance (instance.param) when the config has several strategies (its instances: ${names})`);
    const spec = (target.definition.params as ParamSpecs)[param];
    if (!spec)
      throw new Error(
        `--param ${r.name}: ${target.definition.name} declares no parameter ${param} (it has: ${Object.keys(target.definition.params).join(', ')})`,
      );
    const s = spec as { type: string; min?: number; max?: number };
    for (const v of r.values) {
      if (s.min !== undefined && v < s.min) throw new Error(`--param ${r.name}: ${v} is below the declared minimum ${s.min}`);
      if (s.max !== undefined && v > s.max) throw new Error(`--param ${r.name}: ${v} is above the declared maximum ${s.max}`);
      if (s.type === 'int' && !Number.isInteger(v)) throw new Error(`--param ${r.name}: ${v} is not a whole number`);
    }
    return { inst: target.name, param, values: r.values };
  });
  let combos: Combo[] = [{}];
  for (const r of resolved) {
    const next: Combo[] = [];
    for (const c of combos) for (const v of r.values) next.push({ ...c, [r.inst]: { ...(c[r.inst] ?? {}), [r.param]: v } });
    combos = next;
  }
  return combos;
}

export interface SweepRow {
  params: Combo;
  metrics: Partial<Record<MetricKey, number | null>>;
  error?: string;
}

export interface SweepOptions {
  configFile: string;
  /** The config already loaded from `configFile` (loaded here when absent). */
  config?: MizanConfig;
  /**
   * Worker threads: exactly this many (at most one per run). Without it the sweep starts one and
   * adds more, up to the cores, while the remaining work pays for another's start-up (WorkerScaler).
   */
  workers?: number;
  /** Where `fetch: true` entries come from (the exchange's REST client), and their cache. */
  candleSource?: CandleHistorySource;
  cacheDir?: string;
  /** Called with the data report once, before any worker starts (as `mizan backtest` does). */
  onDataReport?(report: DataReport): void;
  onProgress?(done: number, total: number): void;
  /** Called each time a worker thread starts, with the number started so far. */
  onWorkerStart?(started: number): void;
  /** Where the trials run (default: worker threads of this process, `localExecutor`). */
  executor?: TrialExecutorFactory;
}

/** A `--workers` value: a whole number of threads, 1 or more. */
export function parseWorkers(text: string): number {
  const n = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--workers ${JSON.stringify(text)}: expected a whole number of worker threads, 1 or more`);
  return n;
}

/**
 * The sweep's data, loaded and checked once in the parent: every `backtest.data` entry (files read,
 * `fetch: true` candles fetched through the REST client or read from the cache), cut to the range
 * plus the largest warm-up any combination asks for, and its report, as `runBacktest` makes it.
 * Throws BacktestDataError when the report is not ok (a market without a candle in range). The
 * candles go to the workers as in-memory columns; each run cuts its own warm-up from them.
 */
export async function loadSweepData(
  config: MizanConfig,
  combos: readonly ParamOverrides[],
  opts: Pick<SweepOptions, 'candleSource' | 'cacheDir' | 'onDataReport'> = {},
): Promise<{ report: DataReport; columns: NonNullable<DataOptions['columns']> }> {
  const bt = config.backtest;
  if (!bt) throw new Error('the config has no backtest section (data, from, to)');
  if (bt.recordings.length > 0)
    throw new Error(
      'backtest.data: sweeps and optimisation run on candles; a recording (kind: book) is backtested with `mizan backtest` only, one run at a time',
    );
  if (!(bt.from < bt.to)) throw new Error(`backtest range is empty: from ${new Date(bt.from).toISOString()} is not before to ${new Date(bt.to).toISOString()}`);
  // Every combination's instances: loadData takes each market's largest warm-up among them.
  const definitions: StrategyDefinitionCache = new Map();
  const instances = [];
  for (const c of combos.length > 0 ? combos : [{}]) instances.push(...(await loadStrategyInstances(withParams(config, c), definitions)));
  const { series, report, declared } = await loadData(config, instances, bt.from, bt.to, {
    ...(opts.candleSource ? { candleSource: opts.candleSource } : {}),
    ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}),
  });
  opts.onDataReport?.(report);
  if (!report.ok) throw new BacktestDataError(report);
  const columns: NonNullable<DataOptions['columns']> = {};
  // Compact copies in shared memory: the worker threads read this one copy (a view would send the
  // whole file's buffer to every worker); the job queue serializes them like plain arrays.
  const compact = (s: Series) => shareColumns(s);
  series.forEach((s, k) => {
    // The resolutions the strategies declared (`candles:`), built here from the data's own candles
    // (the workers get the series at the strategies' resolution, which may be coarser).
    const dec = declared.filter((d) => d.symbol === s.symbol).map((d) => ({ cols: compact(d), resSec: d.resSec }));
    columns[s.symbol] = { cols: compact(s), resSec: s.resSec, source: report.series[k]?.source ?? s.symbol, ...(dec.length ? { declared: dec } : {}) };
  });
  return { report, columns };
}

/** `fees: account` rates read by the parent, as strings (Decimals do not survive a worker message). */
export function accountFeeStrings(config: MizanConfig): Record<string, { maker: string; taker: string }> | undefined {
  const f = config.backtest?.accountFees;
  return f && Object.fromEntries(Object.entries(f).map(([s, r]) => [s, { maker: r.maker.toFixed(), taker: r.taker.toFixed() }]));
}

/** What one trial (one combination's backtest) gives back: its metrics, or the error that stopped it. */
export interface TrialResult {
  metrics: SweepRow['metrics'];
  error?: string;
}

/** What an executor gets once the sweep's data is loaded and checked. */
interface SweepContext {
  configFile: string;
  config: MizanConfig;
  columns: NonNullable<DataOptions['columns']>;
  accountFees: Record<string, { maker: string; taker: string }> | undefined;
  combos: Combo[];
}

/**
 * Where a sweep's trials run: worker threads of this process (`localExecutor`, the default) or a
 * job queue (src/queue/). `run(i, params)` is trial i of the sweep (its id); it resolves once with the
 * trial's result. `close()` ends whatever the executor started.
 */
interface TrialExecutor {
  run(i: number, params: Combo): Promise<TrialResult>;
  close(): Promise<void>;
}
export type TrialExecutorFactory = (ctx: SweepContext) => Promise<TrialExecutor>;

/** Run the combos (on worker threads, or on `opts.executor`); rows come back in combo order. The data is loaded and reported first. */
export async function runSweep(combos: Combo[], opts: SweepOptions): Promise<SweepRow[]> {
  if (opts.workers !== undefined && !(Number.isSafeInteger(opts.workers) && opts.workers >= 1)) {
    throw new Error(`--workers ${String(opts.workers)}: expected a whole number of worker threads, 1 or more`);
  }
  const config = opts.config ?? (await loadConfig(opts.configFile));
  const { columns } = await loadSweepData(config, combos, opts);
  const rows: SweepRow[] = new Array(combos.length);
  if (combos.length === 0) return rows;
  const ctx: SweepContext = { configFile: opts.configFile, config, columns, accountFees: accountFeeStrings(config), combos };
  const executor = await (opts.executor ?? localExecutor(opts))(ctx);
  let done = 0;
  try {
    await Promise.all(
      combos.map((params, i) =>
        executor.run(i, params).then((r) => {
          rows[i] = { params, metrics: r.metrics, ...(r.error ? { error: r.error } : {}) };
          opts.onProgress?.(++done, combos.length);
        }),
      ),
    );
  } finally {
    await executor.close();
  }
  return rows;
}

/**
 * The default executor: the worker threads of this process (BacktestWorkerPool), `opts.workers` of
 * them, or one growing while the remaining work pays for another (WorkerScaler).
 */
function localExecutor(opts: Pick<SweepOptions, 'workers' | 'onWorkerStart'>): TrialExecutorFactory {
  return async (ctx) => {
    const max = Math.min(opts.workers ?? availableParallelism(), ctx.combos.length);
    const scaler = opts.workers === undefined ? new WorkerScaler() : undefined;
    const pool: BacktestWorkerPool = new BacktestWorkerPool({
      configFile: ctx.configFile,
      config: ctx.config,
      columns: ctx.columns,
      initialWorkers: scaler ? 1 : max,
      maxWorkers: max,
      onWorkerStart: (n, id) => {
        scaler?.started(id, performance.now());
        opts.onWorkerStart?.(n);
      },
      onReply: (id, reply, now) => {
        scaler?.result(id, reply.ms, now);
        if (scaler && pool.size < max && scaler.shouldAdd(pool.queued)) pool.addWorker();
      },
    });
    return {
      run: (_i, params) => pool.run({ params }).then((m) => ({ metrics: m.metrics, ...(m.error ? { error: m.error } : {}) })),
      close: () => pool.close(),
    };
  };
}

/** Rows sorted by a metric, best first (n/a and failed runs last; ties keep combo order). */
export function rankRows(rows: SweepRow[], metric: MetricKey, lowerIsBetter = false): SweepRow[] {
  const val = (r: SweepRow) => r.metrics[metric];
  return rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => {
      const x = val(a.r);
      const y = val(b.r);
      if (x == null || y == null) return x == null && y == null ? a.i - b.i : x == null ? 1 : -1;
      return (lowerIsBetter ? x - y : y - x) || a.i - b.i;
    })
    .map((e) => e.r);
}

/**
 * Why the ranking by `metric` says nothing, when the metric is n/a in every run that finished (a
 * metric with no minimum span can still be n/a everywhere: a profit factor without a losing trade,
 * no trades at all); undefined when some run has a value, or no run finished.
 */
export function metricNaInEveryRun(rows: readonly SweepRow[], metric: MetricKey): string | undefined {
  const finished = rows.filter((r) => !r.error);
  if (finished.length === 0 || finished.some((r) => r.metrics[metric] != null)) return undefined;
  return `${metric} is n/a in all ${finished.length} finished run(s): the ranking below is the order of the combinations, not a ranking`;
}

export function sweepCsv(rows: SweepRow[], metricKeys: MetricKey[]): string {
  const paramKeys = [...new Set(rows.flatMap((r) => Object.entries(r.params).flatMap(([inst, p]) => Object.keys(p).map((k) => `${inst}.${k}`))))];
  const lines = [[...paramKeys, ...metricKeys, 'error'].join(',')];
  for (const r of rows) {
    const pv = paramKeys.map((k) => {
      const [inst, p] = k.split('.') as [string, string];
      return String(r.params[inst]?.[p] ?? '');
    });
    const mv = metricKeys.map((k) => (r.metrics[k] == null ? '' : String(r.metrics[k])));
    lines.push([...pv, ...mv, r.error ? JSON.stringify(r.error) : ''].join(','));
  }
  return lines.join('\n') + '\n';
}

const min5 = (a: number[], end: number) => Math.min(a[end - 5]!, a[end - 4]!, a[end - 3]!, a[end - 2]!, a[end - 1]!);

/**
 * When a sweep without `--workers` adds a worker thread. Every worker is a fresh V8 isolate that
 * loads the modules and JIT-compiles the pipeline during its first runs, which take many times as
 * long as its later ones (src/backtest/README.md, Sweeps), so a worker pays only when enough work
 * is left. The rule, measured on the running workers:
 * - d, a run's steady duration: the fastest of a worker's last 5 runs, once that no longer falls
 *   (at least 10 runs, and the fastest of the last 5 ≥ 0.9 × the fastest of the 5 before): the
 *   fastest, because short runs are noisy (a collection or a compile doubles one) and a guess too
 *   high would start a worker the work left cannot pay for;
 * - W, what a worker's start costs: the first worker's time from its start to the moment it became
 *   steady, less what its runs until then would have taken at d (module loading plus warm-up);
 * - with n steady workers, one more saves about left × d × (1/n − 1/(n+1)) (left: runs not yet
 *   handed out); it starts when that exceeds SPAWN_FACTOR × W (the factor: a starting worker's
 *   compiler threads also slow the running ones on the shared cores).
 * One worker at a time: the next is considered once the new one is steady too.
 */
export class WorkerScaler {
  static readonly SPAWN_FACTOR = 1.5;
  private readonly workers = new Map<number, { startedAt: number; lastAt: number; ms: number[] }>();
  /** W, measured on the first worker when it became steady. */
  private startCost?: number;

  started(id: number, now: number): void {
    this.workers.set(id, { startedAt: now, lastAt: now, ms: [] });
  }

  result(id: number, ms: number, now: number): void {
    const w = this.workers.get(id);
    if (!w) return;
    w.ms.push(ms);
    w.lastAt = now;
    if (this.startCost === undefined && id === 0) {
      const d = this.steadyMs(0);
      if (d !== undefined) this.startCost = Math.max(0, now - w.startedAt - w.ms.length * d);
    }
  }

  /** The steady run duration of a worker, or undefined while its runs are still getting faster. */
  steadyMs(id: number): number | undefined {
    const a = this.workers.get(id)?.ms ?? [];
    if (a.length < 10) return undefined;
    const last = min5(a, a.length);
    return last >= 0.9 * min5(a, a.length - 5) ? last : undefined;
  }

  /** What a worker's start costs (ms), once measured on the first worker. */
  get startCostMs(): number | undefined {
    return this.startCost;
  }

  shouldAdd(remainingRuns: number): boolean {
    if (this.startCost === undefined || remainingRuns <= 0) return false;
    let sum = 0;
    for (const id of this.workers.keys()) {
      const d = this.steadyMs(id);
      if (d === undefined) return false;
      sum += d;
    }
    const n = this.workers.size;
    const saved = remainingRuns * (sum / n) * (1 / n - 1 / (n + 1));
    return saved > WorkerScaler.SPAWN_FACTOR * this.startCost;
  }
}
