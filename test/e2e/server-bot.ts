/**
 * A small paper bot serving its API, for the server's limit tests: a copy of config/default.yaml cut
 * down to its grid strategy (the embedded simulator, the real pino logger, a journal in `dir`), with
 * the given lines under `server:`, run as `node bin/mizan.js run <config> --serve` in a child process.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfigCopy, sleep, startMizan, waitFor, type MizanChild } from './run-mizan.js';

export const READ = 'e2e-server-read-0123456789abcdef';
export const CONTROL = 'e2e-server-control-0123456789abcdef';

export interface ServedBot {
  child: MizanChild;
  base: string;
  port: number;
}

/** `serverLines`: YAML lines of the server: section (two-space indented), e.g. `  trustProxy: true`. */
export async function startServedBot(dir: string, name: string, serverLines: string[]): Promise<ServedBot> {
  const sub = join(dir, name);
  mkdirSync(sub, { recursive: true });
  const { config } = defaultConfigCopy(sub, (y) => {
    const cut = y.replace(/strategies:\n[\s\S]*?\npaper:/, (block) => {
      const grid = / {2}- name: btc-grid\n(?: {4}.*\n)+/.exec(block);
      if (!grid) throw new Error('config/default.yaml no longer has the btc-grid strategy');
      return `strategies:\n${grid[0]}paper:`;
    });
    if (cut === y) throw new Error('config/default.yaml no longer has a strategies: block before paper:');
    return `${cut}server:\n  port: 0\n${serverLines.map((l) => `${l}\n`).join('')}`;
  });
  const child = startMizan(['run', config, '--serve'], { MIZAN_SERVER_TOKEN: READ, MIZAN_SERVER_CONTROL_TOKEN: CONTROL });
  try {
    await waitFor('the API address', () => /API on http:\/\/127\.0\.0\.1:\d+/.test(child.out()), 60_000, child, 100);
  } catch (err) {
    if (child.alive()) child.proc.kill('SIGKILL');
    throw err;
  }
  const base = /API on (http:\/\/127\.0\.0\.1:(\d+))/.exec(child.out())!;
  return { child, base: base[1]!, port: Number(base[2]) };
}

export async function stopBot(c: MizanChild | undefined): Promise<void> {
  if (!c?.alive()) return;
  c.proc.kill('SIGINT');
  await Promise.race([c.exited, sleep(15_000)]);
  if (c.alive()) c.proc.kill('SIGKILL');
}
