/**
 * `mizan optimize --queue`: the study (asks, tells, the SQLite file) stays with the coordinator, the
 * trials run on `mizan worker` processes; the same seed gives the same study as the local worker
 * threads (its printed table byte for byte), also with a walk-forward (test windows with equity).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mizan, REPO, startRun, tempDir, type Running, type TempDir } from '../e2e/cli.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';

let tmp: TempDir;
const started: Running[] = [];
let redis: RedisServer | undefined;
beforeAll(() => {
  tmp = tempDir('mizan-optimize-queue-');
});
afterEach(async () => {
  for (const p of started.splice(0)) p.kill();
  await redis?.remove();
  redis = undefined;
});
afterAll(() => tmp.remove());

const base = (study: string, storage: string, extra: string[]) => [
  'optimize',
  'config/backtest-sweep.yaml',
  '--param',
  'fast=5..50',
  '--param',
  'slow=20..200',
  '--param',
  'fraction=0.1..1',
  '--trials',
  '8',
  '--seed',
  '11',
  '--workers',
  '2',
  '--study',
  study,
  '--storage',
  join(tmp.dir, storage),
  ...extra,
];

describe('mizan optimize --queue', () => {
  it('gives the same study as the local worker threads, plain and with a walk-forward', async () => {
    redis = await startRedis();
    for (let k = 0; k < 2; k++) {
      const w = startRun(['worker', '--queue', redis.url, '--concurrency', '1', '--cache-dir', join(tmp.dir, `cache-${k}`)]);
      started.push(w);
      await w.waitFor(/"worker ready"/, 30_000);
    }
    for (const extra of [[], ['--walk-forward', 'train=20d,test=7d', '--objective', 'return']]) {
      const name = extra.length ? 'wf' : 'plain';
      const local = await mizan(base(name, `local-${name}.sqlite`, extra), { timeoutMs: 120_000 });
      expect(local.code, local.all).toBe(0);
      const queued = await mizan(base(name, `queue-${name}.sqlite`, [...extra, '--queue', redis.url]), { timeoutMs: 120_000 });
      expect(queued.code, queued.all).toBe(0);
      expect(queued.stderr).toMatch(new RegExp(`2 trial\\(s\\) at a time on the queue ${redis.url}`));
      expect(queued.stdout.replaceAll(`queue-${name}.sqlite`, 'X')).toBe(local.stdout.replaceAll(`local-${name}.sqlite`, 'X'));
      expect(queued.stdout.length).toBeGreaterThan(200);
      if (extra.length) expect(queued.stdout).toMatch(/overall: in-sample -?\d[\d.]*, out-of-sample -?\d[\d.]*.*stitched out-of-sample equity: return -?\d/);
    }
    const done = started.flatMap((w) =>
      w
        .output()
        .split('\n')
        .filter((l) => l.includes('"trial done"')),
    );
    expect(done.length).toBeGreaterThanOrEqual(8);
  }, 300_000);
});

describe('mizan optimize --queue with a worker that refuses the trials', () => {
  it('keeps refused trials out of the results (exit code 3, the worker named); the resume runs them with the same numbers', async () => {
    const server = (redis = await startRedis());
    const source = readFileSync(join(REPO, 'strategies/sma-cross.ts'), 'utf8').replace("from '../src/index.js'", "from 'mizan'");
    const coord = tempDir('mizan-optimize-coord-');
    const other = tempDir('mizan-optimize-other-');
    try {
      coord.file('strat.ts', source);
      other.file('strat.ts', source.replace('Trend following', 'Trend following (edited)'));
      const yaml = readFileSync(join(REPO, 'config/backtest-sweep.yaml'), 'utf8')
        .replace('strategy: sma-cross', 'strategy: ./strat.ts')
        .replace('file: backtest/data/', `file: ${REPO}/backtest/data/`);
      const config = coord.file('sweep.yaml', yaml);
      /** A `mizan worker` taking its strategy files from `dir`, ready for trials. */
      const worker = async (dir: string, cache: string) => {
        const w = startRun(['worker', '--queue', server.url, '--concurrency', '1', '--strategies-from', dir, '--cache-dir', join(tmp.dir, cache)]);
        started.push(w);
        await w.waitFor(/"worker ready"/, 30_000);
        return w;
      };
      const grid = (storage: string, trials: string, extra: string[] = []) => [
        'optimize',
        config,
        '--param',
        'fast=10..20:10',
        '--param',
        'slow=30..40:10',
        '--trials',
        trials,
        '--sampler',
        'grid',
        '--seed',
        '2',
        '--objective',
        'return',
        '--workers',
        '2',
        '--study',
        'grid',
        '--storage',
        join(tmp.dir, storage),
        ...extra,
      ];
      const wrong = await worker(other.dir, 'cache-wrong');
      const refused = await mizan(grid('refused.sqlite', '4', ['--queue', redis.url]), { timeoutMs: 120_000 });
      expect(refused.code, refused.all).toBe(3);
      expect(refused.stderr).toMatch(
        /mizan: 2 trial\(s\) were refused by a worker \(#0, #1\): refused by worker [^:]+: strategy sma \(\.\/strat\.ts\) is [0-9a-f]{16} on this worker, [0-9a-f]{16} on the coordinator; .*exit code 3/,
      );
      expect(refused.stderr).not.toContain('the grid is exhausted');
      // Not results: no trial failed, the two refused ones wait (running) for the resume; none counted.
      expect(refused.stdout).toContain('trials: 2 (complete 0, infeasible 0, failed 0, running 2)');
      expect(refused.stdout).not.toContain('refused');

      wrong.kill();
      await worker(coord.dir, 'cache-right');
      const resumed = await mizan(grid('refused.sqlite', '8', ['--queue', redis.url]), { timeoutMs: 120_000 });
      expect(resumed.code, resumed.all).toBe(0);
      expect(resumed.stderr).toMatch(/resumed with 0 finished trial\(s\)/);
      expect(resumed.stderr).toMatch(/re-ran trial\(s\) 0, 1 left running/);
      expect(resumed.stderr).toContain('the grid is exhausted: every point has run');
      expect(resumed.stdout).toContain('trials: 4 (complete 4, infeasible 0, failed 0, running 0)');
      // The same study as the local worker threads run from the start.
      const local = await mizan(grid('local.sqlite', '8'), { timeoutMs: 120_000 });
      expect(local.code, local.all).toBe(0);
      expect(resumed.stdout.replaceAll('refused.sqlite', 'X')).toBe(local.stdout.replaceAll('local.sqlite', 'X'));
    } finally {
      coord.remove();
      other.remove();
    }
  }, 300_000);
});
