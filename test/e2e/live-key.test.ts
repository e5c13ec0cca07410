/**
 * A live bot with an API key the exchange refuses (issue 16.7): `mizan run <live config> --live` as a
 * child process against a simulator on 127.0.0.1. With a key the simulator does not know (401), and
 * with a proxy that answers the balance read with 403, the bot refuses to start: exit 1, a message
 * naming the problem and the account, never the key, and no banner (nothing ran).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DRILL_KEY, KEY_ENV, liveYaml, startDrillSim, tempDir } from '../scenario/helpers.js';
import { startRewriteProxy } from '../support/rewrite-proxy.js';
import { startMizan } from './run-mizan.js';

const tmp = tempDir('mizan-e2e-key-');
afterAll(() => tmp.remove());

async function runUntilExit(config: string, key: string) {
  const c = startMizan(['run', config, '--live'], { [KEY_ENV]: key });
  const end = await Promise.race([c.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 30_000))]);
  if (end === 'running') c.proc.kill('SIGKILL');
  return { end, out: c.out() };
}

describe('mizan run --live with a refused API key', () => {
  it('401: refuses to start, naming the problem, never the key', async () => {
    const running = await startDrillSim();
    try {
      const wrong = 'wrongkey_0123456789abcdef0123456789abcdef';
      const config = join(tmp.dir, 'k401.yaml');
      writeFileSync(config, liveYaml({ url: running.server.url, journal: join(tmp.dir, 'k401.sqlite') }));
      const { end, out } = await runUntilExit(config, wrong);
      expect(end, out).toMatchObject({ code: 1 });
      expect(out).toMatch(/live trading not started: the exchange does not accept the API key \(account main\): GET \/v1\/account\/balances -> HTTP 401/);
      expect(out).not.toContain(wrong);
      expect(out).not.toMatch(/^ {2}balances /m); // the banner's line: nothing started
    } finally {
      await running.stop();
    }
  }, 60_000);

  it('403: refuses to start, naming the permission', async () => {
    const running = await startDrillSim();
    const proxy = await startRewriteProxy(running.server.url, (req) =>
      req.url.startsWith('/v1/account/balances')
        ? { answer: { status: 403, body: JSON.stringify({ success: false, code: 403, message: 'forbidden', result: {} }) } }
        : undefined,
    );
    try {
      const config = join(tmp.dir, 'k403.yaml');
      writeFileSync(
        config,
        liveYaml({ url: proxy.url, journal: join(tmp.dir, 'k403.sqlite') }).replace(
          `  baseUrl: ${proxy.url}\n`,
          `  baseUrl: ${proxy.url}\n  stream: { url: ${running.server.url} }\n`,
        ),
      );
      const { end, out } = await runUntilExit(config, DRILL_KEY);
      expect(end, out).toMatchObject({ code: 1 });
      expect(out).toMatch(
        /live trading not started: the API key may not read balances \(or this IP is not permitted\) \(account main\): GET \/v1\/account\/balances -> HTTP 403/,
      );
      expect(out).not.toContain(DRILL_KEY);
    } finally {
      await proxy.close();
      await running.stop();
    }
  }, 60_000);
});
