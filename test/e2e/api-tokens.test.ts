/**
 * Where the API's tokens come from (issue 20 items 1 and 4): generated at start and printed once on
 * the terminal, never in the JSON log file or the journal; or taken from the config's `server:`
 * section (environment references; a literal is refused). The user's path: `node bin/mizan.js`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfigCopy, mizanSync, sleep, startMizan, waitFor, type MizanChild } from './run-mizan.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-api-tokens-'));
const children: MizanChild[] = [];
afterAll(async () => {
  for (const c of children) if (c.alive()) c.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function stop(c: MizanChild): Promise<void> {
  c.proc.kill('SIGINT');
  const end = await Promise.race([c.exited, sleep(20_000).then(() => undefined)]);
  expect(end?.code, c.out().slice(-3000)).toBe(0);
}

const status = (base: string, token: string) => fetch(`${base}/api/v1/status`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

describe('mizan run: the API tokens', () => {
  it('generates both tokens when none is set, prints each once, and keeps them out of the log file and the journal', async () => {
    const logFile = join(dir, 'gen.log');
    const { config, journal } = defaultConfigCopy(
      dir,
      (y) => `${y.replace('logging:\n  level: info', `logging:\n  level: info\n  file: ${logFile}`)}server:\n  port: 0\n`,
    );
    const env = { MIZAN_SERVER_TOKEN: '', MIZAN_SERVER_CONTROL_TOKEN: '' };
    const c = startMizan(['run', config], env);
    children.push(c);
    await waitFor('the generated tokens', () => /control token \(generated[^\n]*: \S+\n/.test(c.out()), 60_000, c, 200);
    const base = /API on (http:\/\/127\.0\.0\.1:\d+)/.exec(c.out())![1]!;
    const read = /read-only token \(generated[^:]*: (\S+)/.exec(c.out())![1]!;
    const control = /control token \(generated[^:]*: (\S+)/.exec(c.out())![1]!;
    expect(read).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(read).not.toBe(control);
    expect(await status(base, read)).toBe(200);
    expect(await status(base, 'not-the-token-0123456789')).toBe(401);
    const halt = (token: string) =>
      fetch(`${base}/api/v1/halt`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'generated token' }),
      }).then((r) => r.status);
    expect(await halt(read)).toBe(403);
    expect(await halt(control)).toBe(200);
    await stop(c);
    for (const t of [read, control]) expect(c.out().split(t).length - 1).toBe(1);
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('api: listening');
    expect(log).toContain('api: wrong token');
    const db =
      readFileSync(journal).toString('latin1') +
      (() => {
        try {
          return readFileSync(`${journal}-wal`).toString('latin1');
        } catch {
          return '';
        }
      })();
    for (const t of [read, control]) {
      expect(log).not.toContain(t);
      expect(db).not.toContain(t);
    }
  }, 120_000);

  it('takes the tokens of the server: section (environment references) on the host and port it names', async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const sub = join(dir, 'section');
    mkdirSync(sub);
    const { config } = defaultConfigCopy(
      sub,
      (y) => `${y}server:\n  host: 127.0.0.1\n  port: ${port}\n  token: \${BOT_READ}\n  controlToken: \${BOT_CONTROL}\n`,
    );
    const c = startMizan(['run', config], {
      BOT_READ: 'section-read-token-0123456789',
      BOT_CONTROL: 'section-control-token-0123456789',
      MIZAN_SERVER_TOKEN: 'default-read-token-0123456789',
    });
    children.push(c);
    await waitFor('the API', () => c.out().includes(`API on http://127.0.0.1:${port}/api/v1/`), 60_000, c, 200);
    expect(c.out()).not.toContain('generated');
    const base = `http://127.0.0.1:${port}`;
    expect(await status(base, 'section-read-token-0123456789')).toBe(200);
    expect(await status(base, 'default-read-token-0123456789')).toBe(401);
    await stop(c);
  }, 120_000);

  it('refuses a token written literally, a short one, an origin not written as a browser sends it, and --port without --serve (the value never shown)', () => {
    const lit = defaultConfigCopy(join(dir), (y) => `${y}server:\n  token: literal-token-0123456789abc\n`);
    const a = mizanSync(['check', lit.config]);
    expect(a.code).toBe(1);
    expect(a.out).toContain('server.token: is written literally (value hidden)');
    expect(a.out).not.toContain('literal-token-0123456789abc');

    const short = defaultConfigCopy(join(dir), (y) => `${y}server:\n  token: \${SHORT_TOKEN}\n`);
    const b = mizanSync(['check', short.config], { SHORT_TOKEN: 'abc123xyz' });
    expect(b.code).toBe(1);
    expect(b.out).toContain('server.token');
    expect(b.out).not.toContain('abc123xyz');

    // server.origins is matched exactly against a browser's Origin: written as a browser sends it.
    for (const [origin, why] of [
      ['http://127.0.0.1:8787/', 'is not an origin'],
      ['https://bot.example.com:443', 'is not written as a browser sends it'],
      ['http://Bot.example.com', 'is not written as a browser sends it'],
      ['*', 'is not an origin'],
    ] as const) {
      const o = defaultConfigCopy(join(dir), (y) => `${y}server:\n  origins: ["${origin}"]\n`);
      const r = mizanSync(['check', o.config]);
      expect(r.code, origin).toBe(1);
      expect(r.out, origin).toContain(`server.origins[0]: "${origin}" ${why}`);
      expect(r.out, origin).toContain('1 problem');
    }
    const good = defaultConfigCopy(join(dir), (y) => `${y}server:\n  origins: ["http://127.0.0.1:8787", "https://bot.example.com"]\n`);
    expect(mizanSync(['check', good.config]).code).toBe(0);

    const plain = defaultConfigCopy(join(dir));
    const p = mizanSync(['run', plain.config, '--port', '9999']);
    expect(p.code).toBe(1);
    expect(p.out).toContain('--port: the API is not served; add --serve');
  }, 180_000); // eight `mizan` processes one after the other: 45 s beside a second suite copy (load 11)

  it('stops before anything starts when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as AddressInfo).port;
    try {
      const sub = join(dir, 'taken');
      mkdirSync(sub);
      const { config, journal } = defaultConfigCopy(sub);
      const r = mizanSync(['run', config, '--serve', '--port', String(port)]);
      expect(r.code).toBe(1);
      expect(r.out).toContain(`server: cannot listen on 127.0.0.1:${port} (`);
      expect(r.out).toContain('nothing was started');
      expect(r.out).not.toContain('strategy btc-grid');
      expect(existsSync(journal)).toBe(false);
    } finally {
      taken.close();
    }
  });
});
