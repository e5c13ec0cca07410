/**
 * Audit finding 4: a receiver that answers 400 quoting the request path made `mizan run` log the
 * secret part of a webhook URL (`notify: … HTTP 400 "… url /hook/PATHSEKRET …"`): only the whole URL
 * was a secret. Here, as a user runs it: `mizan run` (paper, embedded simulator, the real logger and
 * its log file) with a json target whose path holds `${HOOK_PATH_SECRET}` and a Discord target whose
 * whole URL is `${DISCORD_WEBHOOK_URL}`, both answered 400 with the path in the body. The failure
 * lines are logged, and neither secret part appears anywhere in the output or the log file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, sleep, startMizan, waitFor, type MizanChild } from './run-mizan.js';
import { startReceiver, type Receiver } from '../support/notify-receiver.js';

const PATH_SECRET = 'PathSekret-e2e-7f3a9c';
const DISCORD_TOKEN = 'DiscSekret-e2e-2b8d4e';
const PROBE = join(REPO, 'test/e2e/fixtures/notify-probe.ts');

const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-notify-echo-'));
const children: MizanChild[] = [];
let recv: Receiver | undefined;

afterAll(async () => {
  for (const c of children) if (c.alive()) c.proc.kill('SIGKILL');
  await recv?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('mizan run: a receiver that echoes the request path', () => {
  it('logs the refusal without the secret path segments of the webhook URLs', async () => {
    recv = await startReceiver((r) => ({ status: 400, body: JSON.stringify({ error: `bad request: no hook at url ${r.path}` }) }));
    const logFile = join(dir, 'bot.log');
    const config = join(dir, 'echo.yaml');
    writeFileSync(
      config,
      `mode: paper
exchange:
  simulator: true
strategies:
  - name: probe
    strategy: ${PROBE}
    markets: [BTCUSDT]
    params: { mode: events }
paper:
  balances: { USDT: 10000 }
journal:
  file: ${join(dir, 'echo.sqlite')}
logging:
  level: info
  file: ${logFile}
notifications:
  delivery: { timeoutMs: 20000, retries: 0 }
  targets:
    - format: json
      url: ${recv.url}/hook/\${HOOK_PATH_SECRET}
      events: [fills]
    - format: discord
      url: \${DISCORD_WEBHOOK_URL}
      events: [fills]
`,
    );
    const c = startMizan(['run', config], { HOOK_PATH_SECRET: PATH_SECRET, DISCORD_WEBHOOK_URL: `${recv.url}/api/webhooks/1/${DISCORD_TOKEN}` });
    children.push(c);
    const refused = (name: string) => c.lines().find((l) => String(l.msg).startsWith(`notify: ${name}: a fills message was not delivered`));
    await waitFor('both refusals logged', () => refused('json#0') !== undefined && refused('discord#1') !== undefined, 90_000, c, 200);
    // The receiver did get the secret paths and echoed them: the test would see a leak.
    expect(recv.requests.map((r) => r.path)).toEqual(expect.arrayContaining([`/hook/${PATH_SECRET}`, `/api/webhooks/1/${DISCORD_TOKEN}`]));
    c.proc.kill('SIGINT');
    await Promise.race([c.exited, sleep(30_000)]);

    expect(String(refused('json#0')!.msg)).toContain('HTTP 400 "{\\"error\\":\\"bad request: no hook at url [REDACTED]');
    expect(String(refused('discord#1')!.msg)).toContain('HTTP 400 "{\\"error\\":\\"bad request: no hook at url [REDACTED]');
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('not delivered');
    for (const text of [c.out(), log]) {
      expect(text).not.toContain(PATH_SECRET);
      expect(text).not.toContain(DISCORD_TOKEN);
      // Nor a piece of them cut by the 200-character quote.
      expect(text).not.toContain('Sekret-e2e');
    }
  }, 150_000);
});
