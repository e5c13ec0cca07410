/**
 * Notifications as a user gets them (issue 20 item 3): `mizan run` (paper, embedded simulator, the
 * real pino logger and journal) with a `notifications:` section naming all three formats: a generic
 * JSON webhook, the Telegram Bot API (its baseUrl pointed at a receiver on 127.0.0.1) and a Discord
 * webhook, secrets from the environment. The public stream goes through a TCP proxy of this test, so
 * the test can cut it for real. Every event type reaches every format exactly once; a receiver that
 * answers 500 gets retries with growing delays; the secrets are in no log line, journal or API body.
 *
 * Then the same bot in latency mode twice at the same time, one with receivers that hang or fail, one
 * without notifications: the time from an intent to its order open, and the fills, are compared.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { REPO, mizanSync, sleep, startMizan, waitFor, type MizanChild } from './run-mizan.js';
import { startReceiver, startStreamProxy, type Receiver, type Received, type StreamProxy } from '../support/notify-receiver.js';
import { waitFor as waitForCondition } from '../support/wait-for.js';

const TG_TOKEN = '987654321:AAE-tgSecretTokenForTheE2eTest_x1y2';
const DISCORD_SECRET = 'dcWebhookSecret-e2e-5b7c9d1f3a';
const HOOK_AUTH = 'Bearer hook-auth-secret-e2e-4c6e8a';
const API_KEY = 'FAKE-exchange-api-key-e2e-91b3d5';
const READ = 'e2e-notify-read-token-0123456789';
const CONTROL = 'e2e-notify-control-token-0123456789';
const PROBE = join(REPO, 'test/e2e/fixtures/notify-probe.ts');

const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-notify-'));
const children: MizanChild[] = [];
const closers: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const c of children) if (c.alive()) c.proc.kill('SIGKILL');
  for (const c of closers) await c().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

// Notification bodies are read field by field.
type Json = Record<string, any>;

const hhmmss = (t: number) => new Date(t).toISOString().slice(11, 19);

/** `mizan <args>` to its end without blocking this process (its receivers keep answering meanwhile, unlike spawnSync). */
async function mizanRun(args: string[]): Promise<number | null> {
  const c = startMizan(args);
  children.push(c);
  return (await c.exited).code;
}

async function stop(c: MizanChild): Promise<number | null> {
  c.proc.kill('SIGINT');
  const end = await Promise.race([c.exited, sleep(30_000).then(() => undefined)]);
  if (!end) throw new Error(`no exit 30 s after SIGINT:\n${c.out().slice(-3000)}`);
  return end.code;
}

function journalFills(file: string, strategy: string): number[] {
  const j = Journal.open(file, { readonly: true });
  try {
    return j.fills({ strategy }).map((f) => f.id);
  } finally {
    j.close();
  }
}

/** The notices each format delivered (2xx answers only: a 500 was not a delivery), as { event, title, text }. */
function delivered(recv: Receiver, tgPath: string, dcPath: string) {
  const ok = (r: Received) => r.status !== undefined && r.status < 300;
  const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  const json = recv
    .on('/json')
    .filter(ok)
    .map((r) => ({ event: String(r.json.event), title: String(r.json.title), body: r.json as Json }));
  const tg = recv
    .on(tgPath)
    .filter(ok)
    .map((r) => unescape(String(r.json.text)));
  const dc = recv
    .on(dcPath)
    .filter(ok)
    .map((r) => String(r.json.content));
  return { json, tg, dc };
}

describe('mizan run with notifications: json, telegram, discord', () => {
  // The latency test runs beside the delivery test (different files, receivers and bots): both
  // mostly wait on their bots' clocks. The check test blocks this process (spawnSync), so it runs after them.
  it.concurrent(
    'delivers each event once to each format, retries with backoff, and leaks no secret',
    async ({ expect }) => {
      // Telegram's first answer is a 500 that echoes the request path (with the token): the retry's log line must not show it.
      const tgPath = `/bot${TG_TOKEN}/sendMessage`;
      const dcPath = `/api/webhooks/4242/${DISCORD_SECRET}`;
      const recv = await startReceiver((r, nth) => {
        if (r.path === tgPath)
          return nth === 1
            ? { status: 500, body: JSON.stringify({ ok: false, description: `internal error at ${r.path}` }) }
            : { status: 200, body: '{"ok":true,"result":{}}' };
        if (r.path === '/flaky') return nth <= 2 ? { status: 500, body: '{"error":"try later"}' } : { status: 200, body: '{}' };
        if (r.path.startsWith('/api/webhooks/')) return { status: 204 };
        return { status: 200, body: '{}' };
      });
      closers.push(() => recv.close());
      const proxy: StreamProxy = await startStreamProxy();
      closers.push(() => proxy.close());

      const journal = join(dir, 'events.sqlite');
      const logFile = join(dir, 'events.log');
      const summaryAt = Date.now() + 75_000;
      const config = join(dir, 'events.yaml');
      // delivery.timeoutMs is far above any answer of the local receiver, even on a loaded machine:
      // only its 500s cause retries here, so "each once" and the retry lines are exact (a request that
      // timed out but was received is sent again, a duplicate this test would count).
      writeFileSync(
        config,
        `mode: paper
exchange:
  simulator: true
  apiKey: \${WALLEX_API_KEY}
  stream: { url: "${proxy.url}", transport: ws }
strategies:
  - name: probe
    strategy: ${PROBE}
    markets: [BTCUSDT]
    params: { mode: events }
paper:
  balances: { USDT: 10000 }
journal:
  file: ${journal}
logging:
  level: debug
  file: ${logFile}
server:
  port: 0
notifications:
  denialsEverySec: 3
  errorsEverySec: 3
  disconnectedAfterSec: 2
  dailySummary: { at: "${hhmmss(summaryAt)}", timezone: UTC }
  delivery: { timeoutMs: 20000, retries: 4, backoffMs: 400, maxBackoffMs: 5000 }
  targets:
    - name: hook
      format: json
      url: ${recv.url}/json
      headers: { Authorization: "\${HOOK_AUTH}" }
    - name: tg
      format: telegram
      token: \${TG_TOKEN}
      chatId: -1001234567
      parseMode: HTML
      baseUrl: ${recv.url}
    - name: dc
      format: discord
      url: \${DISCORD_URL}
    - name: flaky
      format: json
      url: ${recv.url}/flaky
      events: [tradingState]
`,
      );
      // The exchange key, also leaked by the strategy into its handler error (PROBE_LEAK): it must reach no notification.
      const env = {
        TG_TOKEN,
        DISCORD_URL: `${recv.url}${dcPath}`,
        HOOK_AUTH,
        MIZAN_SERVER_TOKEN: READ,
        MIZAN_SERVER_CONTROL_TOKEN: CONTROL,
        WALLEX_API_KEY: API_KEY,
        PROBE_LEAK: API_KEY,
      };
      const c = startMizan(['run', config], env);
      children.push(c);
      await waitFor('the embedded simulator', () => /embedded simulator at http:\/\/127\.0\.0\.1:\d+/.test(c.out()), 60_000, c, 100);
      const sim = /embedded simulator at http:\/\/127\.0\.0\.1:(\d+)/.exec(c.out())!;
      proxy.setTarget('127.0.0.1', Number(sim[1]));
      await waitFor('the API address', () => /API on http:\/\/127\.0\.0\.1:\d+/.test(c.out()), 30_000, c, 100);
      const api = /API on (http:\/\/127\.0\.0\.1:\d+)/.exec(c.out())![1]!;

      const count = (event: string) => delivered(recv, tgPath, dcPath).json.filter((n) => n.event === event).length;
      // A fill, five denials grouped, one handler error.
      await waitFor('a fill notice', () => count('fills') > 0, 60_000, c, 200);
      await waitFor('the denials notice', () => count('denials') > 0, 30_000, c, 200);
      await waitFor('the errors notice', () => count('errors') > 0, 30_000, c, 200);

      // Halt and resume from outside (the journal's trading state, as a user does).
      expect(await mizanRun(['halt', 'notify', 'drill', '--file', journal])).toBe(0);
      await waitFor('the halted notice', () => count('tradingState') >= 1, 30_000, c, 200);
      expect(await mizanRun(['resume', '--file', journal])).toBe(0);
      await waitFor('the active notice', () => count('tradingState') >= 2, 30_000, c, 200);

      // The stream cut for 5 s (connections closed, new ones refused), then back.
      proxy.cut(5_000);
      await waitFor('the stream-down notice', () => count('stream') >= 1, 30_000, c, 200);
      await waitFor('the stream-up notice', () => count('stream') >= 2, 60_000, c, 200);

      await waitFor('the daily summary', () => count('dailySummary') >= 1, Math.max(30_000, summaryAt - Date.now() + 30_000), c, 250);
      // Every target has had time to deliver (retries included) before the counts.
      await waitFor(
        'every delivery',
        () => {
          const d = delivered(recv, tgPath, dcPath);
          return d.tg.length === d.json.length && d.dc.length === d.json.length && recv.on('/flaky').filter((r) => r.status === 200).length >= 2;
        },
        60_000,
        c,
        200,
      );

      // API bodies (searched for secrets below).
      const apiBodies: string[] = [];
      for (const path of ['/api/v1/status', '/api/v1/logs?limit=1000', '/api/v1/strategies']) {
        const r = await fetch(`${api}${path}`, { headers: { authorization: `Bearer ${READ}` } });
        expect(r.status).toBe(200);
        apiBodies.push(await r.text());
      }
      expect(await stop(c)).toBe(0);
      // The bot has exited, so it can send nothing more; once every connection it opened to the
      // receiver has closed, every request it sent (a late duplicate included) has been recorded.
      await waitForCondition(async () => (await recv.connections()) === 0, { what: "the bot's connections to the receiver to close", timeout: 15_000 });

      // ------------------------------------------------------------ each event, each format, once
      const d = delivered(recv, tgPath, dcPath);
      const byEvent = (e: string) => d.json.filter((n) => n.event === e);
      const fills = journalFills(journal, 'probe');
      expect(fills.length).toBeGreaterThan(0);
      expect(
        byEvent('fills')
          .map((n) => n.body.data.fillId)
          .sort((a, b) => a - b),
      ).toEqual(fills);
      const denialLines = c.lines().filter((l) => l.msg === 'probe denied');
      expect(denialLines).toHaveLength(5);
      expect(byEvent('denials')).toHaveLength(1);
      const den = byEvent('denials')[0]!.body;
      expect(den.data.total).toBe(5);
      const rules: Record<string, number> = {};
      for (const l of denialLines) rules[String(l.rule)] = (rules[String(l.rule)] ?? 0) + 1;
      expect(den.data.byRule).toEqual(rules);
      expect(den.title).toMatch(/^5 denials in the last 3 s: \w+ ×\d/);
      expect(byEvent('errors')).toHaveLength(1);
      expect(byEvent('errors')[0]!.body.text).toContain('strategy probe: onBook failed: Error: probe handler failure (key [REDACTED]) ×1');
      expect(byEvent('tradingState').map((n) => n.body.data.state)).toEqual(['halted', 'active']);
      expect(byEvent('tradingState')[0]!.body.data.reason).toContain('notify drill');
      expect(byEvent('stream').map((n) => n.body.data.state)).toEqual(['down', 'up']);
      expect(byEvent('stream')[0]!.title).toBe('Stream disconnected for 2 s');
      expect(byEvent('dailySummary')).toHaveLength(1);
      expect(byEvent('dailySummary')[0]!.body.data).toMatchObject({ reference: 'USDT', trades24h: fills.length, tradingState: 'active' });
      expect(byEvent('dailySummary')[0]!.body.text).toMatch(/^equity [\d.]+ USDT/);
      // The generic body's documented shape.
      expect(Object.keys(d.json[0]!.body).sort()).toEqual(['data', 'event', 'id', 'level', 'mode', 'source', 'text', 'time', 'title', 'ts']);
      expect(recv.on('/json')[0]!.headers.authorization).toBe(HOOK_AUTH);
      // Telegram and Discord got the same notices (by title), each once.
      const titles = d.json.map((n) => n.title).sort();
      expect(d.tg.map((t) => titles.find((x) => t.includes(`<b>${x}</b>`))).sort()).toEqual(titles);
      expect(d.dc.map((t) => titles.find((x) => t.startsWith(`**${x}**`))).sort()).toEqual(titles);
      const tgBody = recv.on(tgPath)[0]!.json;
      expect(tgBody).toMatchObject({ chat_id: -1001234567, parse_mode: 'HTML' });
      console.log(
        `notifications: ${d.json.length} notices to each of json, telegram, discord (${fills.length} fills, 1 denials, 1 errors, 2 tradingState, 2 stream, 1 dailySummary)`,
      );

      // ------------------------------------------------------------ retries with backoff
      const flaky = recv.on('/flaky');
      const firstId = flaky[0]!.json.id;
      const tries = flaky.filter((r) => r.json.id === firstId);
      expect(tries.map((r) => r.status)).toEqual([500, 500, 200]);
      const gap1 = tries[1]!.at - tries[0]!.at;
      const gap2 = tries[2]!.at - tries[1]!.at;
      console.log(`retries of a 500ing receiver: attempts ${gap1} ms and ${gap2} ms apart (backoffMs 400, doubled)`);
      // The delays the bot chose (its debug lines): 400 ms, then doubled; the receiver saw at least those gaps.
      const retryLines = c.lines().filter((l) => l.msg === 'notify: attempt failed; retrying' && l.target === 'flaky');
      console.log(
        `  the bot's retry lines at ${retryLines.map((l) => `${String(l.time)} (retryInMs ${String(l.retryInMs)})`).join(', ')}; receiver at ${tries.map((r) => r.at).join(', ')}`,
      );
      expect(retryLines.map((l) => [l.attempt, l.retryInMs])).toEqual([
        [1, 400],
        [2, 800],
      ]);
      expect(gap1).toBeGreaterThanOrEqual(380);
      expect(gap2).toBeGreaterThanOrEqual(760);
      expect(recv.on(tgPath).map((r) => r.status)).toContain(500);

      // ------------------------------------------------------------ secrets
      const logText = readFileSync(logFile, 'utf8');
      // The Telegram 500 echoed the path with the token: the retry's line shows it scrubbed.
      expect(logText).toMatch(/notify: attempt failed; retrying.*\[REDACTED\]|\[REDACTED\].*notify: attempt failed; retrying/);
      const journalBytes = [journal, `${journal}-wal`]
        .filter(existsSync)
        .map((f) => readFileSync(f).toString('latin1'))
        .join('');
      const sentBodies = recv.requests.map((r) => r.body).join('\n');
      expect(sentBodies).not.toContain(API_KEY);
      for (const secret of [TG_TOKEN, DISCORD_SECRET, HOOK_AUTH, 'hook-auth-secret-e2e-4c6e8a', API_KEY]) {
        expect(c.out()).not.toContain(secret);
        expect(logText).not.toContain(secret);
        expect(journalBytes).not.toContain(secret);
        for (const b of apiBodies) expect(b).not.toContain(secret);
      }
    },
    300_000,
  );

  it.concurrent(
    'a receiver that hangs or fails delays no order (measured against a bot without notifications)',
    async ({ expect }) => {
      const hang = await startReceiver(() => 'hang');
      closers.push(() => hang.close());
      const fail = await startReceiver(() => ({ status: 500, body: '{}' }));
      closers.push(() => fail.close());
      const seconds = 30;
      const write = (name: string, notifications: string) => {
        const file = join(dir, `${name}.yaml`);
        writeFileSync(
          file,
          `mode: paper
exchange: { simulator: true }
strategies:
  - { name: probe, strategy: ${PROBE}, markets: [BTCUSDT], params: { mode: latency } }
paper: { balances: { USDT: 10000 } }
risk: { limits: { orderRate: { limit: 200, windowMs: 10000 } } }
journal: { file: ${join(dir, `${name}.sqlite`)} }
${notifications}`,
        );
        return file;
      };
      const withHooks = write(
        'hanging',
        `notifications:
  denialsEverySec: 1
  delivery: { timeoutMs: 2000, retries: 2, backoffMs: 200, queueSize: 5 }
  targets:
    - { format: json, url: "${hang.url}/json" }
    - { format: telegram, token: "\${TG_TOKEN}", chatId: 1, baseUrl: "${hang.url}" }
    - { format: discord, url: "\${DISCORD_URL}" }
`,
      );
      const without = write('none', '');
      // Both at once: the same machine load for both.
      const a = startMizan(['run', withHooks, '--duration', String(seconds)], { TG_TOKEN, DISCORD_URL: `${fail.url}/api/webhooks/1/${DISCORD_SECRET}` });
      const b = startMizan(['run', without, '--duration', String(seconds)]);
      children.push(a, b);
      const [ea, eb] = await Promise.all([a.exited, b.exited]);
      expect(ea.code, a.out().slice(-2000)).toBe(0);
      expect(eb.code, b.out().slice(-2000)).toBe(0);

      const lat = (c: MizanChild) =>
        c
          .lines()
          .filter((l) => l.msg === 'probe latency')
          .map((l) => Number(l.ms))
          .sort((x, y) => x - y);
      const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
      const la = lat(a);
      const lb = lat(b);
      const fa = journalFills(join(dir, 'hanging.sqlite'), 'probe').length;
      const fb = journalFills(join(dir, 'none.sqlite'), 'probe').length;
      const report = (name: string, xs: number[], fills: number) =>
        `${name}: ${xs.length} orders, intent→open p50 ${pct(xs, 0.5)} ms, p95 ${pct(xs, 0.95)} ms, max ${xs[xs.length - 1]} ms; ${fills} fills`;
      console.log(`latency over ${seconds} s, both bots at once:\n  ${report('hanging/500 receivers', la, fa)}\n  ${report('no notifications     ', lb, fb)}`);
      console.log(`  the hanging receiver got ${hang.requests.length} requests, the failing one ${fail.requests.length}`);

      // The receivers were really hit and really failing: requests timed out or got 500s, the queue overflowed.
      expect(hang.requests.length).toBeGreaterThan(0);
      expect(fail.requests.length).toBeGreaterThan(0);
      expect(a.out()).toContain('the oldest message was dropped');
      expect(a.out()).toMatch(/was not delivered after 3 attempt\(s\): (no answer within 2000 ms|HTTP 500)/);
      // And trading went on as fast as without notifications.
      expect(la.length).toBeGreaterThan(10);
      expect(lb.length).toBeGreaterThan(10);
      expect(la.length).toBeGreaterThanOrEqual(Math.floor(lb.length * 0.7));
      expect(fa).toBeGreaterThanOrEqual(Math.floor(fb * 0.7));
      expect(pct(la, 0.5)).toBeLessThanOrEqual(Math.max(pct(lb, 0.5) * 2, pct(lb, 0.5) + 20));
    },
    180_000,
  );

  it('mizan check: secrets only from the environment, a summary event needs its schedule, none in backtests', () => {
    const file = join(dir, 'check.yaml');
    const base = (notifications: string, mode = 'paper') => `mode: ${mode}
exchange: { simulator: true }
strategies:
  - { name: probe, strategy: ${PROBE}, markets: [BTCUSDT] }
${mode === 'backtest' ? 'backtest: { data: [{ symbol: BTCUSDT, fetch: true }], from: 2024-01-01, to: 2024-01-02 }\n' : ''}notifications:
${notifications}`;
    writeFileSync(
      file,
      base(`  targets:
    - { format: telegram, token: "${TG_TOKEN}", chatId: 1 }
    - { format: discord, url: "http://127.0.0.1:9/api/webhooks/1/${DISCORD_SECRET}" }
    - { format: json, url: "http://127.0.0.1:9/hook", events: [fills, dailySummary], headers: { Authorization: "${HOOK_AUTH}" } }
    - { format: telegram, url: "http://127.0.0.1:9/x", chatId: 1, token: "\${TG_TOKEN}" }
`),
    );
    const bad = mizanSync(['check', file], { TG_TOKEN });
    expect(bad.code).not.toBe(0);
    expect(bad.out).toMatch(/notifications\.targets\[0\]\.token.*written literally \(value hidden\)/);
    expect(bad.out).toMatch(/notifications\.targets\[1\]\.url.*written literally \(value hidden\)/);
    expect(bad.out).toMatch(/notifications\.targets\[2\]\.headers\.Authorization.*written literally/);
    expect(bad.out).toMatch(/notifications\.targets\[2\]\.events.*dailySummary.*notifications\.dailySummary/);
    expect(bad.out).toMatch(/notifications\.targets\[3\]\.url.*is for format json or discord, not telegram/);
    for (const secret of [TG_TOKEN, DISCORD_SECRET, HOOK_AUTH]) expect(bad.out).not.toContain(secret);

    writeFileSync(file, base('  targets:\n    - { format: json, url: "http://127.0.0.1:9/hook" }\n', 'backtest'));
    const bt = mizanSync(['check', file]);
    expect(bt.code).not.toBe(0);
    expect(bt.out).toMatch(/notifications.*a backtest sends no notifications/);

    writeFileSync(
      file,
      base(`  dailySummary: { at: "21:00", timezone: Asia/Tehran }
  targets:
    - { format: telegram, token: "\${TG_TOKEN}", chatId: "-100123", parseMode: MarkdownV2 }
    - { format: discord, url: "\${DISCORD_URL}", embeds: true, events: [tradingState, dailySummary] }
`),
    );
    const ok = mizanSync(['check', file], { TG_TOKEN, DISCORD_URL: `http://127.0.0.1:9/api/webhooks/1/${DISCORD_SECRET}` });
    expect(ok.out).toContain(': ok');
    expect(ok.out).toContain(
      'notifications: telegram#0 (telegram: all events); discord#1 (discord: tradingState, dailySummary); daily summary at 21:00 Asia/Tehran',
    );
    expect(ok.code).toBe(0);
    for (const secret of [TG_TOKEN, DISCORD_SECRET]) expect(ok.out).not.toContain(secret);
  }, 60_000);
});
