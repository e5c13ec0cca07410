/**
 * Queue benchmark (issue 22): the same sweep (sma-cross on the bundled 5-minute candles, 48 trials)
 * run by `mizan sweep --workers N` (worker threads of one process) and by `mizan sweep --queue` with
 * N `mizan worker --concurrency 1` processes, N = 1, 2, 4, against a redis-server of its own
 * (127.0.0.1, a free port, a temp dir, no persistence). Everything runs as the user runs it
 * (`node bin/mizan.js`, the build). The workers are started and ready before the sweep starts; the
 * time is the sweep command's, from its start to its exit (data loading included, as in the local
 * sweep). The queue's overhead per trial is measured two ways: the single worker's idle time between
 * trials (taking the next job, recording the row, completing the job; its log gives each trial's
 * compute time), and the 1-worker queue sweep's time less the 1-thread local sweep's, per trial.
 * Load averages are noted with the numbers: the machine is shared. Writes bench/results/queue.json.
 * Alone: node bin/run-ts.js bench/queue.ts
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { startRedis } from '../test/support/redis-server.js';

const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, '..');
const BIN = join(REPO, 'bin/mizan.js');
const CONFIG = join(REPO, 'config/backtest-sweep.yaml');
const PARAMS = ['--param', 'fast=5..16:1', '--param', 'slow=30,40,50,60'];
const TRIALS = 48;
const load1 = () => Number(loadavg()[0]!.toFixed(2));

function timedSweep(args: string[]): { ms: number; out: string } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [BIN, 'sweep', CONFIG, ...PARAMS, ...args], { cwd: REPO, encoding: 'utf8', timeout: 600_000 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`mizan sweep ${args.join(' ')} failed (${r.status}):\n${r.stdout}${r.stderr}`);
  return { ms, out: r.stdout };
}

interface WorkerProc {
  log(): string;
  stop(): Promise<void>;
}

function startWorker(url: string, cacheDir: string): Promise<WorkerProc> {
  const p = spawn(process.execPath, [BIN, 'worker', '--queue', url, '--concurrency', '1', '--cache-dir', cacheDir], {
    cwd: REPO,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  return new Promise((ok, fail) => {
    p.stderr!.on('data', (b: Buffer) => {
      log += b.toString();
      if (log.includes('"worker ready"')) ok({ log: () => log, stop: () => new Promise<void>((r) => (p.once('exit', () => r()), p.kill('SIGTERM'))) });
    });
    p.once('exit', (code) => fail(new Error(`mizan worker exited (${code}):\n${log}`)));
  });
}

/** The single worker's idle time between trials: from one trial's `trial done` line to the next one's `trial started`. */
function gapsBetweenTrials(log: string): { medianMs: number; meanMs: number; computeMedianMs: number } {
  const lines = log
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string; time: number; ms?: number });
  const gaps: number[] = [];
  const compute: number[] = [];
  let lastDone: number | undefined;
  for (const l of lines) {
    if (l.msg === 'trial started' && lastDone !== undefined) gaps.push(l.time - lastDone);
    if (l.msg === 'trial done') {
      lastDone = l.time;
      compute.push(l.ms!);
    }
  }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  return { medianMs: median(gaps), meanMs: Number((gaps.reduce((s, x) => s + x, 0) / gaps.length).toFixed(1)), computeMedianMs: median(compute) };
}

export async function run(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'mizan-bench-queue-'));
  const redis = await startRedis();
  const loadAtStart = load1();
  const local: Record<string, unknown>[] = [];
  const queue: Record<string, unknown>[] = [];
  let overhead: Record<string, unknown> = {};
  try {
    // Warm the build and the page cache once (not timed).
    timedSweep(['--workers', '1', '--out', join(dir, 'warm.csv')]);
    for (const n of [1, 2, 4]) {
      const before = load1();
      const { ms } = timedSweep(['--workers', String(n), '--out', join(dir, `local-${n}.csv`)]);
      local.push({ threads: n, ms: Math.round(ms), trialsPerSec: Number(((TRIALS * 1000) / ms).toFixed(2)), loadAverage1m: { before, after: load1() } });
    }
    for (const n of [1, 2, 4]) {
      // A fresh database each time: no results from the run before (they would be resumed, not run).
      const r = new Redis(redis.url);
      await r.flushall();
      r.disconnect();
      const workers = await Promise.all(Array.from({ length: n }, (_, k) => startWorker(redis.url, join(dir, `cache-${n}-${k}`))));
      const before = load1();
      const { ms, out } = timedSweep(['--queue', redis.url, '--out', join(dir, `queue-${n}.csv`)]);
      const after = load1();
      await Promise.all(workers.map((w) => w.stop()));
      if (!out.includes(`(${TRIALS} runs on the queue`)) throw new Error(`unexpected sweep output:\n${out}`);
      queue.push({ workerProcesses: n, ms: Math.round(ms), trialsPerSec: Number(((TRIALS * 1000) / ms).toFixed(2)), loadAverage1m: { before, after } });
      if (n === 1) {
        const gaps = gapsBetweenTrials(workers[0]!.log());
        const localOne = local[0]!.ms as number;
        overhead = {
          workerIdleBetweenTrialsMedianMs: gaps.medianMs,
          workerIdleBetweenTrialsMeanMs: gaps.meanMs,
          trialComputeMedianMs: gaps.computeMedianMs,
          queueMinusLocalPerTrialMs: Number(((Math.round(ms) - localOne) / TRIALS).toFixed(1)),
        };
      }
    }
    const same =
      [2, 4].every((n) => spawnSync('cmp', [join(dir, 'local-1.csv'), join(dir, `queue-${n}.csv`)]).status === 0) &&
      spawnSync('cmp', [join(dir, 'local-1.csv'), join(dir, 'queue-1.csv')]).status === 0;
    const result = {
      what: `mizan sweep over config/backtest-sweep.yaml (sma-cross, bundled 5-minute BTC/USDT candles, ${TRIALS} trials: ${PARAMS.filter((p) => p !== '--param').join(' ')}), wall time of the sweep command; local: --workers N threads; queue: N mizan worker processes (--concurrency 1 each, started before), Redis on 127.0.0.1. overhead: the single queue worker's idle time between trials (next job, row recorded, job completed), and (queue with 1 worker − local with 1 thread) / trials. The machine has ${availableParallelism()} cores shared with other jobs: see the load averages.`,
      cores: availableParallelism(),
      loadAverage1mAtStart: loadAtStart,
      loadAverage1mAtEnd: load1(),
      csvIdenticalToLocal: same,
      local,
      queue,
      overheadPerTrial: overhead,
      node: process.version,
    };
    mkdirSync(join(here, 'results'), { recursive: true });
    writeFileSync(join(here, 'results', 'queue.json'), JSON.stringify(result, null, 2) + '\n');
    return result;
  } finally {
    await redis.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
}
