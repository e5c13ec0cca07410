/**
 * The backtest worker pool behind `mizan sweep` and `mizan optimize`: worker threads that each load
 * the config and the strategy modules once and then run one backtest per request on the candles the
 * parent loaded and checked once (loadSweepData), shared between the threads (SharedArrayBuffer). `run(request)` resolves with that run's metrics;
 * requests queue while every worker is busy. The pool starts `initialWorkers` threads and grows by
 * `addWorker()` (the sweep's WorkerScaler decides when) up to `maxWorkers`.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { MizanConfig } from '../config/schema.js';
import { shareColumns } from '../market/files/columns.js';
import type { DataOptions } from './load.js';
import type { MetricKey } from './metrics/index.js';

export type Combo = Record<string, Record<string, number | string | boolean>>;

export interface RunRequest {
  /** Parameter overrides per strategy instance. */
  params: Combo;
  /** The run's range (ms); the config's when absent. The candles must cover it (and its warm-up). */
  from?: number;
  to?: number;
  /** Return the run's equity curve (at most 2000 points), e.g. for a walk-forward's test window. */
  equity?: boolean;
}

export interface RunReply {
  metrics: Partial<Record<MetricKey, number | null>>;
  /** Why each n/a metric is n/a (sweep-trial.ts). */
  na?: Partial<Record<MetricKey, string>>;
  /** The run failed (a thrown error, or strategy handler errors without allowErrors). */
  error?: string;
  /** The run's duration on its worker (ms). */
  ms: number;
  equity?: { times: number[]; values: number[] };
}

export interface WorkerPoolOptions {
  configFile: string;
  config: MizanConfig;
  columns: NonNullable<DataOptions['columns']>;
  /** Threads started at once (default 1). */
  initialWorkers?: number;
  maxWorkers: number;
  /** Called each time a worker thread starts, with the number started so far and its id. */
  onWorkerStart?(started: number, id: number): void;
  /** Called with every reply and the worker that answered (WorkerScaler). */
  onReply?(workerId: number, reply: RunReply, now: number): void;
}

type Columns = NonNullable<DataOptions['columns']>;

/**
 * The candles of a sweep in SharedArrayBuffers: every worker thread reads the one copy instead of
 * receiving its own (the 1M-candle series is 48 MB per copy).
 */
export function sharedColumns(columns: Columns): Columns {
  const out: Columns = {};
  for (const [symbol, c] of Object.entries(columns)) {
    out[symbol] = { ...c, cols: shareColumns(c.cols), ...(c.declared ? { declared: c.declared.map((d) => ({ ...d, cols: shareColumns(d.cols) })) } : {}) };
  }
  return out;
}

/** `fees: account` rates read by the parent, as strings (Decimals do not survive a worker message). */
function accountFeeStrings(config: MizanConfig): Record<string, { maker: string; taker: string }> | undefined {
  const f = config.backtest?.accountFees;
  return f && Object.fromEntries(Object.entries(f).map(([s, r]) => [s, { maker: r.maker.toFixed(), taker: r.taker.toFixed() }]));
}

interface Job {
  i: number;
  req: RunRequest;
  resolve(r: RunReply): void;
  reject(e: Error): void;
}

export class BacktestWorkerPool {
  private readonly idle: { w: Worker; id: number }[] = [];
  private readonly busy = new Map<Worker, { id: number; job: Job }>();
  private readonly queue: Job[] = [];
  private readonly all = new Set<Worker>();
  private started = 0;
  private seq = 0;
  private failure?: Error;
  private closed = false;
  private readonly columns: Columns;

  constructor(private readonly opts: WorkerPoolOptions) {
    this.columns = sharedColumns(opts.columns);
    for (let k = 0; k < Math.min(opts.initialWorkers ?? 1, opts.maxWorkers); k++) this.addWorker();
  }

  get size(): number {
    return this.started;
  }

  /** Starts one more worker thread (no-op at maxWorkers). */
  addWorker(): void {
    if (this.started >= this.opts.maxWorkers || this.closed || this.failure) return;
    const id = this.started++;
    const w = new Worker(new URL('./sweep-worker.mjs', import.meta.url), {
      workerData: { configFile: this.opts.configFile, columns: this.columns, accountFees: accountFeeStrings(this.opts.config) },
    });
    this.all.add(w);
    this.opts.onWorkerStart?.(this.started, id);
    w.on('message', (m: RunReply & { i: number }) => {
      const b = this.busy.get(w);
      if (!b || b.job.i !== m.i) return;
      this.busy.delete(w);
      const { i: _i, ...rest } = m;
      // A run that threw answers without metrics.
      const reply: RunReply = { ...rest, metrics: rest.metrics ?? {} };
      this.opts.onReply?.(id, reply, performance.now());
      this.idle.push({ w, id });
      b.job.resolve(reply);
      this.pump();
    });
    w.on('error', (err) => this.fail(err));
    w.on('exit', (code) => {
      if (this.all.has(w) && !this.closed) this.fail(new Error(`sweep worker stopped (exit code ${code})`));
    });
    this.idle.push({ w, id });
    this.pump();
  }

  run(req: RunRequest): Promise<RunReply> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new Error('the worker pool is closed'));
    return new Promise<RunReply>((resolve, reject) => {
      this.queue.push({ i: this.seq++, req, resolve, reject });
      this.pump();
    });
  }

  /** Requests not yet handed to a worker. */
  get queued(): number {
    return this.queue.length;
  }

  private pump(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const { w, id } = this.idle.shift()!;
      const job = this.queue.shift()!;
      this.busy.set(w, { id, job });
      w.postMessage({ i: job.i, params: job.req.params, from: job.req.from, to: job.req.to, equity: job.req.equity === true });
    }
  }

  private fail(err: unknown): void {
    if (this.failure || this.closed) return;
    this.failure = err instanceof Error ? err : new Error(String(err));
    const jobs = [...this.queue, ...[...this.busy.values()].map((b) => b.job)];
    this.queue.length = 0;
    this.busy.clear();
    void this.terminate();
    for (const j of jobs) j.reject(this.failure);
  }

  private async terminate(): Promise<void> {
    const ws = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(ws.map((w) => w.terminate()));
  }

  /** Stops every worker; queued and running requests are rejected. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const err = new Error('the worker pool was closed');
    const jobs = [...this.queue, ...[...this.busy.values()].map((b) => b.job)];
    this.queue.length = 0;
    this.busy.clear();
    for (const j of jobs) j.reject(err);
    await this.terminate();
  }
}
