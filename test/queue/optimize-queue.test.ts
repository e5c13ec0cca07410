/**
 * `mizan optimize --queue`: the study (asks, tells, the SQLite file) stays with the coordinator, the
 * trials run on `mizan worker` processes; the same seed gives the same study as the local worker
 * threads (its printed table byte for byte), also with a walk-forward (test windows with equity).
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mizan, startRun, tempDir, type Running, type TempDir } from '../e2e/cli.js';
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
