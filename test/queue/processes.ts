/**
 * The redis-servers and `mizan` child processes a queue test starts: each is stopped (killed, its
 * directory removed) after each test, whatever the test's outcome.
 */
import { join } from 'node:path';
import { startRun, type Running } from '../e2e/cli.js';
import { startRedis, type RedisServer } from '../support/redis-server.js';

export class QueueProcesses {
  private readonly started: Running[] = [];
  private readonly servers: RedisServer[] = [];
  private workers = 0;

  /** `cacheRoot`: the folder under which each worker gets its own candle cache. */
  constructor(private readonly cacheRoot: () => string) {}

  /** A redis-server of its own on 127.0.0.1 (a free port, a temporary directory). */
  async redis(persist = false): Promise<RedisServer> {
    return this.server(await startRedis({ persist }));
  }

  /** Stops `s` after the test. */
  server(s: RedisServer): RedisServer {
    this.servers.push(s);
    return s;
  }

  /** Kills `p` after the test. */
  track(p: Running): Running {
    this.started.push(p);
    return p;
  }

  /** `mizan worker` on the queue at `url`: one trial at a time, short lock and stalled-check times. */
  worker(url: string, extra: string[] = []): Running {
    const cache = join(this.cacheRoot(), `cache-${++this.workers}`);
    return this.track(
      startRun(['worker', '--queue', url, '--concurrency', '1', '--lock-duration', '3000', '--stalled-interval', '1000', '--cache-dir', cache, ...extra]),
    );
  }

  async stop(): Promise<void> {
    for (const p of this.started.splice(0)) p.kill();
    for (const s of this.servers.splice(0)) await s.remove();
  }
}
