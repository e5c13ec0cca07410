/**
 * `mizan worker --queue redis://host:port[/db] [--concurrency N]`: runs the trials of sweeps started
 * with `mizan sweep --queue` (src/queue/worker.ts) until SIGTERM or Ctrl-C: the trials in hand finish
 * (a second signal drops them: they go back to the queue for another worker).
 */
import { availableParallelism, homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';

function wholeNumber(text: string, flag: string, min: number): number {
  const n = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`${flag} ${JSON.stringify(text)}: expected a whole number, ${min} or more`);
  return n;
}

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('run the trials of sweeps started with `mizan sweep --queue` (on this or any machine that reaches the Redis server)')
    .requiredOption('--queue <url>', 'Redis server of the queue: redis://[user:password@]host:port[/db], rediss://… for TLS')
    .option('--concurrency <n>', "trials run at once, each on its own thread (default: the machine's cores)")
    .option(
      '--strategies-from <dir>',
      'folder relative strategy files of a config (strategy: ./mine.ts) are read from on this machine (default: the current folder)',
    )
    .option('--cache-dir <dir>', 'where fetched candles are kept by hash (default: ~/.cache/mizan/queue-data)')
    .option('--lock-duration <ms>', 'a trial whose worker stops renewing its lock for this long goes back to the queue', '30000')
    .option('--stalled-interval <ms>', 'how often this worker looks for such trials', '15000')
    .option('--log-level <level>', 'info, warn, error…', 'info')
    .action(
      async (o: {
        queue: string;
        concurrency?: string;
        strategiesFrom?: string;
        cacheDir?: string;
        lockDuration: string;
        stalledInterval: string;
        logLevel: string;
      }) => {
        const [{ parseQueueUrl }, { startWorker }, { createLogger }] = await Promise.all([
          import('../queue/connection.js'),
          import('../queue/worker.js'),
          import('../runtime/logger.js'),
        ]);
        const queue = parseQueueUrl(o.queue);
        const concurrency = o.concurrency === undefined ? availableParallelism() : wholeNumber(o.concurrency, '--concurrency', 1);
        const lockDurationMs = wholeNumber(o.lockDuration, '--lock-duration', 1000);
        const stalledIntervalMs = wholeNumber(o.stalledInterval, '--stalled-interval', 500);
        const levels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
        const level = levels.find((l) => l === o.logLevel);
        if (!level) throw new Error(`--log-level ${JSON.stringify(o.logLevel)}: expected one of ${levels.join(', ')}`);
        const log = createLogger({
          level,
          destination: process.stderr,
          name: 'mizan-worker',
          ...(queue.options.password ? { secrets: [queue.options.password] } : {}),
        });
        const worker = await startWorker({
          queue,
          concurrency,
          strategiesFrom: resolve(o.strategiesFrom ?? '.'),
          cacheDir: resolve(o.cacheDir ?? join(homedir(), '.cache/mizan/queue-data')),
          lockDurationMs,
          stalledIntervalMs,
          log,
        });
        await new Promise<void>((done) => {
          let stopping = false;
          const onSignal = (sig: NodeJS.Signals) => {
            if (stopping) {
              // The jobs' locks expire (--lock-duration) and another worker takes them.
              log.warn({ signal: sig, inHand: worker.active() }, 'stopping now: the trials in hand go back to the queue');
              process.exit(130);
            }
            stopping = true;
            log.info(
              { signal: sig, inHand: worker.active() },
              `stopping: the trial(s) in hand finish first (${sig} again to stop now; they go back to the queue)`,
            );
            void worker.stop(false).then(done, done);
          };
          process.on('SIGTERM', onSignal);
          process.on('SIGINT', onSignal);
        });
        log.info('worker stopped');
      },
    );
}
