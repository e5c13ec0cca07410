/**
 * `mizan sweep --queue` / `mizan worker` around the edges, as child processes against a real
 * redis-server: a password and an ACL user in the URL (never printed), option errors, Redis restarted
 * without persistence, and a trial whose thread dies (retried, then recorded as failed, not forever).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mizan, REPO, startRun, tempDir, type Running, type TempDir } from '../e2e/cli.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';
import { QueueProcesses } from './processes.js';

const CONFIG = join(REPO, 'config/backtest-sweep.yaml');
let tmp: TempDir;
const procs = new QueueProcesses(() => tmp.dir);

beforeAll(() => {
  tmp = tempDir('mizan-queue-edges-');
});
afterEach(() => procs.stop());
afterAll(() => tmp.remove());

const redisServer = (persist = false): Promise<RedisServer> => procs.redis(persist);

const worker = (url: string, extra: string[] = []): Running => procs.worker(url, extra);

describe('mizan sweep --queue: securing and option errors', () => {
  it('an ACL user with a password in the URL: the sweep runs, the password is never printed', async () => {
    const redis = await redisServer();
    const admin = new Redis(redis.url);
    const password = 'Zq7-long-random-password-41';
    await admin.call('ACL', 'SETUSER', 'mizan', 'on', `>${password}`, '~mizan:*', '&*', '+@all', '-@dangerous', '+info');
    // The default user needs a password too now: only the ACL user gets in.
    await admin.call('ACL', 'SETUSER', 'default', 'on', '>admin-password-not-used', '~*', '&*', '+@all');
    admin.disconnect();
    const url = `redis://mizan:${password}@127.0.0.1:${redis.port}`;
    const w = worker(url);
    await w.waitFor(/"worker ready"/, 30_000);
    const r = await mizan(['sweep', CONFIG, '--param', 'fast=5,6', '--queue', url, '--out', join(tmp.dir, 'acl.csv')], { timeoutMs: 60_000 });
    expect(r.code, r.all).toBe(0);
    expect(r.stdout).toContain(`(2 runs on the queue redis://mizan:***@127.0.0.1:${redis.port})`);
    expect(tmp.read('acl.csv').trim().split('\n')).toHaveLength(3);
    expect(r.all + w.output()).not.toContain(password);
    // A wrong password: a clear error, still without the password.
    const bad = await mizan(
      ['sweep', CONFIG, '--param', 'fast=5', '--queue', `redis://mizan:wrong-${password}@127.0.0.1:${redis.port}`, '--out', join(tmp.dir, 'x.csv')],
      { timeoutMs: 60_000 },
    );
    expect(bad.code).toBe(1);
    expect(bad.all).toMatch(/WRONGPASS|invalid username-password/);
    expect(bad.all).not.toContain(password);
  }, 90_000);

  it('TLS (rediss://): the workers and the sweep reach a TLS-only Redis, its certificate checked', async () => {
    // A CA and a server certificate for 127.0.0.1 (openssl, in the test's temp dir).
    const ssl = (args: string[]) => {
      const r = spawnSync('openssl', args, { cwd: tmp.dir, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
    };
    ssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=mizan test CA']);
    ssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
    tmp.file('san.ext', 'subjectAltName=IP:127.0.0.1\n');
    ssl([
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.crt',
      '-days',
      '2',
      '-extfile',
      'san.ext',
    ]);
    const f = (name: string) => join(tmp.dir, name);
    const s = await startRedis({ tls: { cert: f('server.crt'), key: f('server.key'), ca: f('ca.crt') } });
    procs.server(s);
    expect(s.url).toMatch(/^rediss:\/\/127\.0\.0\.1:\d+$/);
    const env = { NODE_EXTRA_CA_CERTS: f('ca.crt') };
    const w = startRun(['worker', '--queue', s.url, '--concurrency', '1', '--cache-dir', join(tmp.dir, 'cache-tls')], { env });
    procs.track(w);
    await w.waitFor(/"worker ready"/, 30_000);
    const r = await mizan(['sweep', CONFIG, '--param', 'fast=5,6', '--queue', s.url, '--out', join(tmp.dir, 'tls.csv')], { env, timeoutMs: 60_000 });
    expect(r.code, r.all).toBe(0);
    expect(r.stdout).toContain(`(2 runs on the queue ${s.url})`);
    // Without the CA the certificate is not trusted: a clear error, no plaintext fallback.
    const untrusted = await mizan(['sweep', CONFIG, '--param', 'fast=5', '--queue', s.url, '--out', join(tmp.dir, 'x.csv')], { timeoutMs: 20_000 });
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toContain(`mizan: redis ${s.url}: TLS: self-signed certificate in certificate chain (SELF_SIGNED_CERT_IN_CHAIN`);
  }, 90_000);

  it('option errors name the option and the value', async () => {
    const conflict = await mizan(['sweep', CONFIG, '--param', 'fast=5', '--workers', '2', '--queue', 'redis://127.0.0.1:1', '--out', join(tmp.dir, 'x.csv')]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain('mizan: --workers and --queue: choose one');
    const url = await mizan(['sweep', CONFIG, '--param', 'fast=5', '--queue', 'redis://u:hidden-pass@127.0.0.1', '--out', join(tmp.dir, 'x.csv')]);
    expect(url.code).toBe(1);
    expect(url.stderr).toContain('mizan: --queue "redis://u:***@127.0.0.1": no port');
    expect(url.all).not.toContain('hidden-pass');
    const conc = await mizan(['worker', '--queue', 'redis://127.0.0.1:1', '--concurrency', '0']);
    expect(conc.code).toBe(1);
    expect(conc.stderr).toContain('mizan: --concurrency "0": expected a whole number, 1 or more');
  }, 60_000);
});

describe('mizan sweep --queue: faults', () => {
  it('Redis restarted without persistence: the coordinator puts back the data and the lost jobs, the sweep completes', async () => {
    const params = ['--param', 'fast=5..12:1'];
    const local = await mizan(['sweep', CONFIG, ...params, '--workers', '1', '--out', join(tmp.dir, 'lost-local.csv')], { timeoutMs: 90_000 });
    expect(local.code, local.all).toBe(0);
    const redis = await redisServer(false);
    const w = worker(redis.url);
    await w.waitFor(/"worker ready"/, 30_000);
    const s = startRun(['sweep', CONFIG, ...params, '--queue', redis.url, '--out', join(tmp.dir, 'lost.csv')]);
    procs.track(s);
    await s.waitFor(/queue: sweep [0-9a-f]+/, 60_000);
    await w.waitFor(/"trial done"[\s\S]*"trial done"/, 60_000);
    await redis.restart();
    const r = await s.exited;
    expect(r.code, r.all).toBe(0);
    expect(r.all).toMatch(/queue: \d+ trial\(s\) had no job any more \(Redis lost them\?\): added again/);
    expect(readFileSync(join(tmp.dir, 'lost.csv'), 'utf8')).toBe(readFileSync(join(tmp.dir, 'lost-local.csv'), 'utf8'));
  }, 120_000);

  it('a trial whose thread dies is retried, then recorded as failed with the reason (not retried forever)', async () => {
    const dir = tempDir('mizan-queue-exit-');
    try {
      const source = readFileSync(join(REPO, 'strategies/sma-cross.ts'), 'utf8')
        .replace("from '../src/index.js'", "from 'mizan'")
        .replace('const { fast: fastN, slow: slowN } = ctx.params;', 'const { fast: fastN, slow: slowN } = ctx.params;\n    if (fastN === 6) process.exit(3);');
      dir.file('dies.ts', source);
      const config = dir.file(
        'sweep.yaml',
        readFileSync(CONFIG, 'utf8').replace('strategy: sma-cross', 'strategy: ./dies.ts').replace('file: backtest/data/', `file: ${REPO}/backtest/data/`),
      );
      const redis = await redisServer();
      const w = worker(redis.url, ['--strategies-from', dir.dir]);
      await w.waitFor(/"worker ready"/, 30_000);
      const r = await mizan(['sweep', config, '--param', 'fast=5..7:1', '--queue', redis.url, '--out', join(tmp.dir, 'dies.csv')], { timeoutMs: 90_000 });
      expect(r.code, r.all).toBe(0);
      const rows = tmp.read('dies.csv').trim().split('\n').slice(1);
      expect(rows).toHaveLength(3);
      const failed = rows.filter((l) => l.includes('failed on the queue'));
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatch(/^6,.*failed on the queue after 3 attempt\(s\): trial thread stopped \(exit code 3\)/);
      const tries = w
        .output()
        .split('\n')
        .filter((l) => l.includes('"trial started"') && l.includes('"trial":"1",'));
      expect(tries).toHaveLength(3);
    } finally {
      dir.remove();
    }
  }, 120_000);
});
