/**
 * A real redis-server for a test: 127.0.0.1, a free port (redis refuses --port 0, so one is found by
 * binding 127.0.0.1:0 first), its own temporary directory, no RDB snapshots; with `persist`, an
 * append-only file fsynced at every write, so a restart (`restart()`) keeps the queue.
 * scripts/ensure-redis.mjs (npm test's pretest) installs Debian's redis-server where it is missing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REDIS_SERVER = '/usr/bin/redis-server';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  port: number;
  url: string;
  dir: string;
  /** SIGTERM, waits for the exit. */
  stop(): Promise<void>;
  /** Stops, then starts again on the same port and directory. */
  restart(): Promise<void>;
  /** Stops it and removes its directory. */
  remove(): Promise<void>;
}

/** With `tls`, the server speaks TLS only (its certificate and key files, PEM), and `url` is rediss://. */
export async function startRedis(o: { persist?: boolean; tls?: { cert: string; key: string; ca: string } } = {}): Promise<RedisServer> {
  if (!existsSync(REDIS_SERVER))
    throw new Error(`${REDIS_SERVER} is missing: run \`node scripts/ensure-redis.mjs\` (npm test's pretest) or \`apt-get install -y redis-server\``);
  const dir = mkdtempSync(join(tmpdir(), 'mizan-redis-'));
  const port = await freePort();
  let proc: ChildProcess | undefined;
  const launch = () =>
    new Promise<void>((resolve, reject) => {
      const ports = o.tls
        ? [
            '--port',
            '0',
            '--tls-port',
            String(port),
            '--tls-cert-file',
            o.tls.cert,
            '--tls-key-file',
            o.tls.key,
            '--tls-ca-cert-file',
            o.tls.ca,
            '--tls-auth-clients',
            'no',
          ]
        : ['--port', String(port)];
      const args = [...ports, '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--daemonize', 'no', '--loglevel', 'notice'];
      args.push(...(o.persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']));
      const p = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      proc = p;
      let out = '';
      const t = setTimeout(() => reject(new Error(`redis-server did not start within 15 s:\n${out}`)), 15_000);
      const onData = (b: Buffer) => {
        out += b.toString();
        if (out.includes('Ready to accept connections')) {
          clearTimeout(t);
          resolve();
        }
      };
      p.stdout!.on('data', onData);
      p.stderr!.on('data', onData);
      p.once('exit', (code) => {
        clearTimeout(t);
        reject(new Error(`redis-server exited (code ${code}):\n${out}`));
      });
    });
  const stop = async () => {
    const p = proc;
    proc = undefined;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    await new Promise<void>((r) => {
      p.once('exit', () => r());
      p.kill('SIGTERM');
    });
  };
  await launch();
  return {
    port,
    url: `${o.tls ? 'rediss' : 'redis'}://127.0.0.1:${port}`,
    dir,
    stop,
    async restart() {
      await stop();
      await launch();
    },
    async remove() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
