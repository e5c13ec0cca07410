/**
 * `mizan sweep --queue`: the coordinator's side. The sweep's data and spec go to Redis once, each
 * trial becomes a BullMQ job (id: sweep and trial number), and the rows come back through the sweep's
 * results hash and `done` stream (store.ts), read in order with a blocking XREAD, each trial counted
 * at its first result only.
 *
 * The sweep's id is a hash of everything that decides its rows (config, data, code, combinations), so
 * running the same sweep again finds the rows already recorded and does not recompute them; a trial
 * that failed on the queue (refused by a worker, or failing every attempt) runs again.
 *
 * Faults: a worker killed mid-trial leaves its job's lock to expire and BullMQ's stalled-job check
 * hands the job to another worker; Redis restarting is reconnected to (ioredis retries, the blocking
 * read is sent again); a repair pass (after a reconnection, and whenever no result came for a while)
 * puts back what a Redis restart without persistence lost: the data, the spec and the jobs of the
 * trials without a result, and records a job that failed for good as a failed row.
 */
import { Queue, type JobsOptions } from 'bullmq';
import type { TrialRequest } from '../backtest/sweep-trial.js';
import { accountFeeStrings, type TrialExecutorFactory, type TrialResult } from '../backtest/sweep.js';
import type { MizanConfig } from '../config/schema.js';
import { connect, whenReady, type QueueUrl } from './connection.js';
import {
  dataKey,
  doneKey,
  jobId,
  KEEP_SECONDS,
  PREFIX,
  QUEUE_NAME,
  recordRow,
  resultsKey,
  specKey,
  type StoredRow,
  type SweepSpec,
  type TrialJob,
} from './store.js';
import { configToWire, mizanCode, packColumns, sha256, strategyCode, type Columns } from './wire.js';

interface QueueSweepOptions {
  /** Status lines (reconnections, resuming) for the user: stderr in the CLI. */
  say(line: string): void;
  /** Called once the results already in Redis are read, when there are some: how many trials are done. */
  onResume?(done: number, total: number): void;
  /** Called with the sweep's id once its spec is in Redis. */
  onSweepId?(id: string): void;
  /** A repair pass runs when no result came for this long (ms); default 5000. */
  repairAfterMs?: number;
  /**
   * A trial a worker refused (its code differs): its key and the row's error (`refused by worker
   * host-1: strategy …`). A set-up fault, not a result: a rerun runs it.
   */
  onRefused?(key: string, error: string): void;
}

/**
 * The refusal in a row a worker refused (its code differs), else undefined. Read from the error's
 * words, which every mizan worker writes the same, so a worker of another version is recognised too.
 */
function refusalOf(row: StoredRow): string | undefined {
  return row.failed && row.error?.startsWith('refused by worker ') ? row.error : undefined;
}

/** Attempts of a job for faults of the worker's own (Redis unreachable mid-trial, a thread crashing). */
const JOB_ATTEMPTS = 3;

const JOB_OPTIONS: JobsOptions = {
  attempts: JOB_ATTEMPTS,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: true,
  removeOnFail: { age: KEEP_SECONDS },
};

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** What a queue study needs from the coordinator: the loaded config and candles, and what names its trials. */
interface StudyContext {
  config: MizanConfig;
  columns: Columns;
  accountFees: Record<string, { maker: string; taker: string }> | undefined;
  /** Enters the study's id besides the config, data and code (a sweep: its combinations). */
  identity: string;
}

/**
 * The trials of one sweep or optimisation on the queue: `run(key, req)` resolves with the trial's
 * row, once, however many workers ran it. `key` names the trial within the study (a sweep's trial
 * number; an optimisation's request hash): a key already recorded (by an earlier run of the same
 * study) resolves at once, without a job.
 */
interface QueueStudy {
  readonly id: string;
  /** Trials already recorded when the study was opened (not run again). */
  readonly resumed: number;
  run(key: string, req: TrialRequest): Promise<StoredRow>;
  close(): Promise<void>;
}

async function openQueueStudy(q: QueueUrl, ctx: StudyContext, o: QueueSweepOptions): Promise<QueueStudy> {
  const redis = connect(q, 'coordinator', o.say);
  await whenReady(redis, q);
  // Its own connection for the blocking read (a quiet one: the main connection reports outages).
  const reader = connect(q, 'coordinator-reader', () => undefined);
  const queue = new Queue<TrialJob>(QUEUE_NAME, { connection: q.options, prefix: PREFIX });
  queue.on('error', () => undefined);
  const { buf, hash } = packColumns(ctx.columns);
  const spec: SweepSpec = {
    v: 1,
    config: configToWire(ctx.config),
    ...(ctx.accountFees ? { accountFees: ctx.accountFees } : {}),
    data: hash,
    dataBytes: buf.length,
    mizan: mizanCode(),
    strategies: strategyCode(ctx.config),
  };
  const specJson = JSON.stringify(spec);
  const sweep = sha256(`${specJson}\n${ctx.identity}`).slice(0, 24);

  const ensureShared = async () => {
    if ((await redis.expire(dataKey(hash), KEEP_SECONDS)) === 0) await redis.set(dataKey(hash), buf, 'EX', KEEP_SECONDS);
    await redis.set(specKey(sweep), specJson, 'EX', KEEP_SECONDS);
  };

  const results = new Map<string, StoredRow>();
  const pending = new Map<string, { req: TrialRequest; resolve(r: StoredRow): void; added: boolean }>();
  let lastId = '0';
  let lastProgress = Date.now();

  /** Reads the `done` stream past lastId; each trial's first entry delivers its row. */
  const readDone = async (conn: typeof redis, blockMs?: number): Promise<number> => {
    const args: (string | number)[] = ['COUNT', 1000];
    if (blockMs !== undefined) args.push('BLOCK', blockMs);
    const res = (await conn.call('XREAD', ...args, 'STREAMS', doneKey(sweep), lastId)) as [string, [string, string[]][]][] | null;
    const entries = res?.[0]?.[1] ?? [];
    if (entries.length === 0) return 0;
    lastId = entries[entries.length - 1]![0];
    const keys = [...new Set(entries.map(([, f]) => f[f.indexOf('k') + 1]!))].filter((k) => !results.has(k));
    if (keys.length === 0) return entries.length;
    const rows = await redis.hmget(resultsKey(sweep), ...keys);
    keys.forEach((k, n) => {
      const text = rows[n];
      if (text == null) return;
      const row = JSON.parse(text) as StoredRow;
      results.set(k, row);
      lastProgress = Date.now();
      const p = pending.get(k);
      pending.delete(k);
      p?.resolve(row);
    });
    return entries.length;
  };

  await ensureShared();
  o.onSweepId?.(sweep);
  // A rerun: the rows recorded before are read, not recomputed; a failure on the queue runs again.
  while ((await readDone(redis)) > 0);
  for (const [k, row] of [...results]) {
    if (!row.failed) continue;
    results.delete(k);
    await redis.hdel(resultsKey(sweep), k);
    await queue.remove(jobId(sweep, k)).catch(() => 0);
  }
  const resumed = results.size;

  const add = (keys: string[]) =>
    queue.addBulk(keys.map((k) => ({ name: 'trial', data: { sweep, key: k, req: pending.get(k)!.req }, opts: { ...JOB_OPTIONS, jobId: jobId(sweep, k) } })));
  let flushing: Promise<void> | undefined;
  const flush = async () => {
    await Promise.resolve();
    const batch = [...pending.entries()].filter(([, p]) => !p.added).map(([k, p]) => ((p.added = true), k));
    flushing = undefined;
    for (let n = 0; n < batch.length; n += 500) await add(batch.slice(n, n + 500));
  };

  let stopped = false;
  const readLoop = (async () => {
    while (!stopped) {
      try {
        await readDone(reader, 2000);
      } catch {
        if (!stopped) await sleep(250);
      }
    }
  })();

  /** Puts back what a lost Redis state lacks, and records jobs that failed for good. */
  let repairing = false;
  const repair = async () => {
    if (repairing || stopped || pending.size === 0) return;
    repairing = true;
    try {
      await ensureShared();
      const lost: string[] = [];
      for (const k of [...pending.keys()].slice(0, 1000)) {
        if (!pending.get(k)?.added || (await redis.hexists(resultsKey(sweep), k))) continue;
        const state = await queue.getJobState(jobId(sweep, k));
        if (state === 'unknown') lost.push(k);
        else if (state === 'failed') {
          const job = await queue.getJob(jobId(sweep, k));
          await recordRow(redis, sweep, k, {
            metrics: {},
            error: `failed on the queue after ${job?.attemptsMade ?? '?'} attempt(s): ${job?.failedReason ?? 'unknown reason'}`,
            failed: true,
          });
        }
      }
      if (lost.length) {
        o.say(`queue: ${lost.length} trial(s) had no job any more (Redis lost them?): added again`);
        await add(lost);
      }
      lastProgress = Date.now();
    } catch {
      // Redis away again: the next pass tries again.
    } finally {
      repairing = false;
    }
  };
  const repairAfter = o.repairAfterMs ?? 5000;
  const timer = setInterval(
    () => {
      if (Date.now() - lastProgress >= repairAfter) void repair();
    },
    Math.min(1000, repairAfter),
  );
  let firstReady = redis.status !== 'ready';
  redis.on('ready', () => {
    if (firstReady) return void (firstReady = false);
    void repair();
  });

  return {
    id: sweep,
    resumed,
    run(key, req) {
      const done = results.get(key);
      if (done) return Promise.resolve(done);
      const p = pending.get(key);
      if (p)
        return new Promise<StoredRow>((resolve) => {
          const prev = p.resolve;
          p.resolve = (r) => (prev(r), resolve(r));
        });
      return new Promise<StoredRow>((resolve) => {
        pending.set(key, { req, resolve, added: false });
        flushing ??= flush().catch(() => undefined);
      });
    },
    async close() {
      stopped = true;
      clearInterval(timer);
      reader.disconnect();
      await readLoop;
      await queue.close();
      await redis.quit().catch(() => undefined);
    },
  };
}

/** `mizan sweep --queue`: trial i of the sweep is the study's key `i`. */
export function queueExecutor(q: QueueUrl, o: QueueSweepOptions): TrialExecutorFactory {
  return async (ctx) => {
    const study = await openQueueStudy(q, { config: ctx.config, columns: ctx.columns, accountFees: ctx.accountFees, identity: JSON.stringify(ctx.combos) }, o);
    if (study.resumed > 0) o.onResume?.(study.resumed, ctx.combos.length);
    return {
      run: (i, params) =>
        study.run(String(i), { params }).then((row): TrialResult => {
          const refused = refusalOf(row);
          if (refused !== undefined) o.onRefused?.(String(i), refused);
          return { metrics: row.metrics, ...(row.error ? { error: row.error } : {}) };
        }),
      close: () => study.close(),
    };
  };
}

/** An optimisation trial's row from the queue, or (`unrun`) the refusal of the worker that would not run it. */
type QueueTrialResult = Omit<StoredRow, 'failed'> & { ms: number; unrun?: string };

/**
 * `mizan optimize --queue`: the optimiser's TrialExecutor (src/optimize/executor.ts) on the queue.
 * The coordinator keeps the study (asks, tells, the SQLite file); each trial is keyed by a hash of
 * its request (parameters, range, equity), so a trial the resumed study asks again (one left running
 * by a stopped process) is read from Redis when a worker already finished it. A trial a worker
 * refused (its code differs) comes back as `unrun`, not as a result: the study keeps it to run again.
 * One that failed every attempt (its thread dying) is the trial's outcome: failed, with the reason.
 */
export function queueTrialExecutor(q: QueueUrl, o: QueueSweepOptions & { concurrency: number }) {
  return async (ctx: {
    config: MizanConfig;
    columns: Columns;
  }): Promise<{ readonly concurrency: number; run(req: TrialRequest): Promise<QueueTrialResult>; close(): Promise<void> }> => {
    const study = await openQueueStudy(q, { config: ctx.config, columns: ctx.columns, accountFees: accountFeeStrings(ctx.config), identity: 'optimize' }, o);
    return {
      concurrency: o.concurrency,
      run: (req) => {
        const key = sha256(JSON.stringify(req)).slice(0, 32);
        return study.run(key, req).then((row): QueueTrialResult => {
          const refused = refusalOf(row);
          if (refused === undefined) return { ...row, ms: row.ms ?? 0 };
          o.onRefused?.(key, refused);
          return { metrics: {}, ms: 0, unrun: refused };
        });
      },
      close: () => study.close(),
    };
  };
}
