/**
 * `mizan worker --queue redis://…`: takes trials from the queue and runs them on worker threads
 * (`concurrency` of them; trial-thread.ts), reporting each row back (store.ts recordRow: a trial
 * another worker already recorded is not counted again).
 *
 * What a trial needs travels with it: the sweep's spec (config, code hashes, data hash) is read once
 * per sweep, the candles once per worker and kept in `cacheDir` under their SHA-256 (checked on read).
 * A worker whose mizan or strategy code differs from the coordinator's refuses the sweep's trials: each
 * is recorded as failed with both hashes (and not retried), instead of computing a different answer.
 *
 * Stopping: `stop()` lets the trials in hand finish (BullMQ's close), `stop(true)` drops them: their
 * jobs' locks expire and another worker takes them (BullMQ's stalled-job check).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Worker as ThreadWorker } from 'node:worker_threads';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { TrialAnswer, TrialRequest } from '../backtest/sweep-trial.js';
import { sharedColumns } from '../backtest/worker-pool.js';
import type { Logger } from '../core/logger.js';
import { connect, whenReady, type QueueUrl } from './connection.js';
import { dataKey, PREFIX, QUEUE_NAME, recordRow, resultsKey, specKey, type SweepSpec, type TrialJob } from './store.js';
import { codeMismatch, configFromWire, mizanCode, sha256, strategyCode, unpackColumns, type Columns } from './wire.js';

export interface WorkerOptions {
  queue: QueueUrl;
  /** Trials run at once (worker threads). */
  concurrency: number;
  /** Folder a config's relative strategy files (`strategy: ./mine.ts`) are read from on this machine. */
  strategiesFrom: string;
  /** Where fetched candles are kept, by hash. */
  cacheDir: string;
  /** BullMQ's lockDuration: a trial whose worker stops renewing its lock for this long goes back to the queue. */
  lockDurationMs: number;
  /** BullMQ's stalledInterval: how often this worker looks for such trials. */
  stalledIntervalMs: number;
  log: Logger;
}

export interface RunningWorker {
  /** Stops taking trials; the ones in hand finish (force: dropped, their jobs go back to the queue once their locks expire). */
  stop(force?: boolean): Promise<void>;
  /** Trials in hand now. */
  active(): number;
}

/** Worker threads for one sweep, made as trials need them. */
class ThreadPool {
  private readonly idle: ThreadWorker[] = [];
  private readonly all = new Set<ThreadWorker>();
  private readonly waiting = new Map<ThreadWorker, { resolve(a: TrialAnswer): void; reject(e: Error): void }>();
  active = 0;

  constructor(private readonly workerData: Record<string, unknown>) {}

  run(key: string, req: TrialRequest): Promise<TrialAnswer> {
    const t = this.idle.pop() ?? this.spawn();
    this.active++;
    return new Promise<TrialAnswer>((resolve, reject) => {
      this.waiting.set(t, { resolve, reject });
      t.postMessage({ ...req, i: key });
    }).finally(() => this.active--);
  }

  private spawn(): ThreadWorker {
    const t = new ThreadWorker(new URL('./trial-thread.mjs', import.meta.url), { workerData: this.workerData });
    this.all.add(t);
    const drop = (err: Error) => {
      this.all.delete(t);
      const k = this.idle.indexOf(t);
      if (k >= 0) this.idle.splice(k, 1);
      const w = this.waiting.get(t);
      this.waiting.delete(t);
      w?.reject(err);
    };
    t.on('message', (a: TrialAnswer) => {
      const w = this.waiting.get(t);
      this.waiting.delete(t);
      this.idle.push(t);
      w?.resolve(a);
    });
    t.on('error', drop);
    t.on('exit', (code) => drop(new Error(`trial thread stopped (exit code ${code})`)));
    return t;
  }

  async close(): Promise<void> {
    const all = [...this.all];
    this.all.clear();
    await Promise.all(all.map((t) => t.terminate()));
  }
}

interface SweepState {
  spec: SweepSpec;
  /** Why this worker refuses the sweep's trials (its code differs), or undefined. */
  refusal?: string;
  pool?: ThreadPool;
}

export async function startWorker(o: WorkerOptions): Promise<RunningWorker> {
  const me = `${hostname()}/${process.pid}`;
  const log = o.log.child({ worker: me });
  const redis = connect(o.queue, 'worker', (line) => log.warn(line));
  await whenReady(redis, o.queue);
  const sweeps = new Map<string, Promise<SweepState>>();
  const data = new Map<string, Promise<Columns>>();
  mkdirSync(o.cacheDir, { recursive: true });
  const own = mizanCode();

  const sweepState = (sweep: string): Promise<SweepState> => {
    let p = sweeps.get(sweep);
    if (!p) {
      p = (async () => {
        const text = await redis.get(specKey(sweep));
        if (text == null) throw new Error(`sweep ${sweep}: its spec is not in Redis (the coordinator puts it back)`);
        const spec = JSON.parse(text) as SweepSpec;
        const config = configFromWire(spec.config, o.strategiesFrom);
        const why = codeMismatch({ mizan: spec.mizan, strategies: spec.strategies }, { mizan: own, strategies: strategyCode(config) });
        if (why) log.error({ sweep }, `refusing the trials of sweep ${sweep}: ${why}`);
        return { spec, ...(why ? { refusal: why } : {}) };
      })();
      sweeps.set(sweep, p);
      p.catch(() => sweeps.delete(sweep));
      // One sweep's threads at a time: the others' go once idle.
      for (const [id, other] of sweeps) {
        if (id === sweep) continue;
        void other.then(
          (s) => {
            if (!s.pool || s.pool.active > 0) return;
            sweeps.delete(id);
            void s.pool.close();
          },
          () => undefined,
        );
      }
    }
    return p;
  };

  const columnsOf = (hash: string): Promise<Columns> => {
    let p = data.get(hash);
    if (!p) {
      p = (async () => {
        const file = join(o.cacheDir, `${hash}.bin`);
        try {
          const buf = readFileSync(file);
          if (sha256(buf) === hash) return unpackColumns(buf);
          log.warn({ file }, 'cached candles do not match their hash: fetching them again');
        } catch {
          // not cached yet
        }
        const buf = await redis.getBuffer(dataKey(hash));
        if (buf == null) throw new Error(`candles ${hash.slice(0, 16)} are not in Redis (the coordinator puts them back)`);
        if (sha256(buf) !== hash) throw new Error(`candles ${hash.slice(0, 16)} from Redis do not match their hash`);
        const tmp = `${file}.${process.pid}.tmp`;
        writeFileSync(tmp, buf);
        renameSync(tmp, file);
        log.info({ hash: hash.slice(0, 16), bytes: buf.length }, 'candles fetched from Redis and cached');
        return unpackColumns(buf);
      })();
      data.set(hash, p);
      p.catch(() => data.delete(hash));
    }
    return p;
  };

  let inHand = 0;
  const process_ = async (job: Job<TrialJob>): Promise<void> => {
    inHand++;
    try {
      await runTrial(job);
    } finally {
      inHand--;
    }
  };
  const runTrial = async (job: Job<TrialJob>): Promise<void> => {
    const { sweep, key, req } = job.data;
    // A trial with its row already recorded is not run again. A rerun coordinator adds a job for
    // every trial it found without a row; a worker still running the earlier run's job of that trial
    // can record it and let the job go just before, so the new job (same id, nothing left to dedupe
    // against) would compute the same row a second time. A failed row is deleted before its rerun.
    if ((await redis.hexists(resultsKey(sweep), key)) === 1) {
      log.info({ sweep, trial: key }, 'trial already has a result: not run again');
      return;
    }
    const s = await sweepState(sweep);
    if (s.refusal) {
      const error = `refused by worker ${me}: ${s.refusal}`;
      await recordRow(redis, sweep, key, { metrics: {}, error, failed: true });
      throw new UnrecoverableError(error);
    }
    const columns = await columnsOf(s.spec.data);
    s.pool ??= new ThreadPool({
      config: s.spec.config,
      strategiesFrom: o.strategiesFrom,
      columns: sharedColumns(columns),
      ...(s.spec.accountFees ? { accountFees: s.spec.accountFees } : {}),
    });
    log.info({ sweep, trial: key, attempt: job.attemptsMade + 1 }, 'trial started');
    const a = await s.pool.run(key, req);
    const recorded = await recordRow(redis, sweep, key, {
      metrics: a.metrics,
      ...(a.error ? { error: a.error } : {}),
      ...(a.equity ? { equity: a.equity } : {}),
      ms: Math.round(a.ms),
    });
    if (recorded) log.info({ sweep, trial: key, ms: Math.round(a.ms), ...(a.error ? { error: a.error } : {}) }, 'trial done');
    else log.info({ sweep, trial: key, ms: Math.round(a.ms) }, 'trial done, but another worker recorded it first: not counted twice');
  };

  const worker = new Worker<TrialJob>(QUEUE_NAME, process_, {
    connection: o.queue.options,
    prefix: PREFIX,
    concurrency: o.concurrency,
    lockDuration: o.lockDurationMs,
    stalledInterval: o.stalledIntervalMs,
    maxStalledCount: 2,
  });
  let down = false;
  worker.on('error', (err) => {
    if (down) return;
    down = true;
    log.warn(`queue error: ${err.message}`);
  });
  worker.on('ready', () => (down = false));
  worker.on('failed', (job, err) => {
    if (job && !(err instanceof UnrecoverableError))
      log.warn({ sweep: job.data.sweep, trial: job.data.key, attempt: job.attemptsMade }, `trial failed: ${err.message}`);
  });
  await worker.waitUntilReady();
  log.info({ queue: o.queue.shown, concurrency: o.concurrency, mizan: own.version, code: own.hash.slice(0, 16) }, 'worker ready');

  return {
    active: () => inHand,
    async stop(force = false) {
      await worker.close(force);
      for (const p of sweeps.values())
        await p.then(
          (s) => s.pool?.close(),
          () => undefined,
        );
      await redis.quit().catch(() => undefined);
    },
  };
}
