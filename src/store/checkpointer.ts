/**
 * Background WAL checkpoints for a long-running journal.
 *
 * SQLite's automatic checkpoint runs inside the commit that crosses 1,000 WAL pages, on the thread
 * that committed, and fsyncs the database file: 10-20 ms measured on this machine's disk, landing on
 * whichever order was being journaled just before it was sent (bench/execution.ts saw p99 7 ms from
 * intent to request with a file journal). With a checkpointer the writing connection turns the
 * automatic checkpoint off (`wal_autocheckpoint = 0`) and a worker thread with its own connection
 * runs a PASSIVE checkpoint every `intervalMs`: commits stay appends to the WAL (synchronous=NORMAL:
 * no fsync, durable against a killed process), the fsync moves off the trading thread, and the WAL
 * stays small. Closing the journal stops the worker and checkpoints what is left.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from '../core/logger.js';

export interface CheckpointerOptions {
  /** Default 1,000 ms. */
  intervalMs?: number;
  logger: Logger;
}

type WorkerMessage = { kind: 'ready' } | { kind: 'checkpoint'; busy: number; log: number; checkpointed: number } | { kind: 'error'; message: string };

export class Checkpointer {
  private readonly worker: Worker;
  private checkpoints = 0;
  /** WAL frames in the log and frames copied into the database by the last background checkpoint. */
  last: { log: number; checkpointed: number; busy: boolean } | undefined;
  private failures = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(file: string, options: CheckpointerOptions) {
    const intervalMs = options.intervalMs ?? 1_000;
    if (!(Number.isFinite(intervalMs) && intervalMs > 0)) throw new RangeError(`checkpoint intervalMs must be positive, got ${intervalMs}`);
    this.worker = new Worker(new URL('./checkpoint-worker.mjs', import.meta.url), { workerData: { file, intervalMs } });
    // Never keeps the process alive: a bot that exits without closing its journal still exits.
    this.worker.unref();
    this.worker.on('message', (m: WorkerMessage) => {
      if (m.kind === 'checkpoint') {
        this.checkpoints++;
        this.last = { log: m.log, checkpointed: m.checkpointed, busy: m.busy !== 0 };
        for (const w of this.waiters.splice(0)) w();
      } else if (m.kind === 'error') {
        // The writer's connection checkpoints at close anyway; a failed background pass loses nothing.
        if (this.failures++ === 0) options.logger.warn({ error: m.message }, 'journal background checkpoint failed (later failures are not logged)');
      }
    });
    this.worker.on('error', (err) => options.logger.warn({ error: err.message }, 'journal checkpoint worker stopped'));
  }

  /** Background checkpoints completed so far. */
  get completed(): number {
    return this.checkpoints;
  }

  /** Ask for a checkpoint now; resolves when one has completed. */
  checkpointNow(): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.worker.postMessage('checkpoint');
    });
  }

  stop(): void {
    this.worker.postMessage('stop');
    for (const w of this.waiters.splice(0)) w();
  }
}
