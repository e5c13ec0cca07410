/**
 * Issue 33.1 on the user's path: `mizan sim` in a child process, its faults switched on over HTTP
 * (`POST /__sim/faults`), and `mizan run <config> --live` in another child process pointed at it.
 * The bot starts and trades through a 429 burst and through answers slower than its timeout on the
 * first calls (before: exit 1 after ~3 s); a refused key (401) still fails at once; an unhandled
 * rejection is logged with its exit code, the API key removed, before the process ends.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { KEY_ENV, liveYaml, tempDir } from '../scenario/helpers.js';
import { startMizan, waitFor, type MizanChild } from './run-mizan.js';

const FIX = join(import.meta.dirname, 'fixtures');
const tmp = tempDir('mizan-e2e-start-');
let sim: MizanChild;
let url = '';
let key = '';

beforeAll(async () => {
  sim = startMizan(['sim', '--port', '0', '--seed', '3']);
  await waitFor('mizan sim to print its addresses', () => /API key +\S+/.test(sim.out()), 60_000, sim);
  url = /REST +(http:\/\/127\.0\.0\.1:\d+)/.exec(sim.out())![1]!;
  key = /API key +(\S+)/.exec(sim.out())![1]!;
}, 90_000);

afterAll(async () => {
  if (sim?.alive()) {
    sim.proc.kill('SIGINT');
    await sim.exited;
  }
  tmp.remove();
});

async function faults(body: object): Promise<void> {
  const res = await fetch(`${url}/__sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
}

function config(name: string, o: { strategy?: string; params?: object } = {}): { file: string; journal: string } {
  const journal = join(tmp.dir, `${name}.sqlite`);
  let yaml = liveYaml({ url, journal, name: 'ping', timeoutMs: 1500, params: { maxOrders: 3, fillEvery: 1, everyMs: 100 } }).replace(
    'level: warn',
    'level: info',
  );
  if (o.strategy) yaml = yaml.replace(/strategy: .*\n/, `strategy: ${o.strategy}\n`).replace(/params: .*\n/, `params: ${JSON.stringify(o.params ?? {})}\n`);
  const file = join(tmp.dir, `${name}.yaml`);
  writeFileSync(file, yaml);
  return { file, journal };
}

const runLive = (file: string, apiKey = key) => startMizan(['run', file, '--live'], { [KEY_ENV]: apiKey });

/** The bot placed orders and one filled (the pinger's marketable orders), then stops cleanly on Ctrl-C. */
async function tradesThenStops(bot: MizanChild, journal: string): Promise<void> {
  await waitFor('the LIVE banner', () => bot.out().includes('LIVE: orders go to the exchange'), 90_000, bot);
  await waitFor('a fill', () => bot.lines().some((l) => l.msg === 'limit order filled'), 60_000, bot);
  // Running: the status line is printed.
  await waitFor('a status line', () => /\[live \d+m\d+s\]/.test(bot.out()), 30_000, bot);
  bot.proc.kill('SIGINT');
  const end = await bot.exited;
  expect(end.code, bot.out()).toBe(0);
  const j = Journal.open(journal, { readonly: true });
  try {
    expect(j.fills({}).length).toBeGreaterThan(0);
  } finally {
    j.close();
  }
}

describe('mizan run --live starting against a faulty exchange', () => {
  it('starts and trades through a burst of ten 429 answers', async () => {
    const { file, journal } = config('burst');
    await faults({ failNext: { status: 429, count: 10 } });
    const bot = runLive(file);
    try {
      await waitFor(
        'the start to wait out the 429s',
        () => /exchange rate-limited at start: retrying GET \/v1\/markets in 1\.0 s \(attempt 2\)/.test(bot.out()),
        60_000,
        bot,
      );
      await tradesThenStops(bot, journal);
      const waits = bot.lines().filter((l) => typeof l.msg === 'string' && l.msg.startsWith('exchange rate-limited at start'));
      // One line per wait, each naming the call, its delay and the attempt.
      for (const w of waits) expect(w).toMatchObject({ level: 40, component: 'start', delayMs: 1000 });
      expect(bot.out()).not.toContain(key);
    } finally {
      if (bot.alive()) bot.proc.kill('SIGKILL');
      await faults({ reset: true });
    }
  }, 180_000);

  it('starts and trades when the first calls answer later than timeoutMs', async () => {
    const { file, journal } = config('slow');
    await faults({ latencyMs: 2500 });
    const bot = runLive(file);
    try {
      await waitFor(
        'a start-up call to time out and be retried',
        () => /exchange did not answer in time at start: retrying GET \/\S+ in \d+\.\d s \(attempt 2\)/.test(bot.out()),
        60_000,
        bot,
      );
      expect(bot.out()).toMatch(/no answer within 1500 ms/);
      await faults({ reset: true });
      await tradesThenStops(bot, journal);
    } finally {
      if (bot.alive()) bot.proc.kill('SIGKILL');
      await faults({ reset: true });
    }
  }, 180_000);

  it('still fails at once, with the reason, on a key the exchange refuses (401)', async () => {
    const { file } = config('refused');
    const wrong = 'wrongkey_0123456789abcdef0123456789abcdef';
    const started = Date.now();
    const bot = runLive(file, wrong);
    const end = await Promise.race([bot.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 60_000))]);
    if (end === 'running') bot.proc.kill('SIGKILL');
    expect(end, bot.out()).toMatchObject({ code: 1 });
    expect(bot.out()).toMatch(/live trading not started: the exchange does not accept the API key \(account main\): GET \/v1\/account\/balances -> HTTP 401/);
    expect(bot.out()).not.toMatch(/retrying GET \/v1\/account\/balances/);
    expect(bot.out()).not.toContain(wrong);
    // No start-up budget spent on a final answer: well under the 60 s budget (process start and build included).
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 90_000);

  it('logs an unhandled rejection with its exit code, the API key removed, before exiting', async () => {
    const { file } = config('stray', { strategy: join(FIX, 'stray-rejection.ts'), params: { afterMs: 200 } });
    const bot = runLive(file);
    const end = await Promise.race([bot.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 90_000))]);
    if (end === 'running') bot.proc.kill('SIGKILL');
    expect(end, bot.out()).toMatchObject({ code: 1 });
    const crash = bot.lines().find((l) => l.msg === 'mizan: an unhandled promise rejection ends the process (exit code 1)');
    expect(crash, bot.out()).toMatchObject({ level: 60, kind: 'unhandledRejection', exitCode: 1 });
    expect(JSON.stringify(crash)).toContain('stray failure (key [REDACTED])');
    expect(bot.out()).not.toContain(key);
  }, 120_000);
});

describe('mizan run --live stopped while it starts', () => {
  it('Ctrl-C while the start waits out an unavailable exchange ends it at once, cleanly (exit 0)', async () => {
    const { file, journal } = config('abort-wait');
    await faults({ failNext: { status: 503, count: 10_000 } });
    const bot = runLive(file);
    try {
      await waitFor('a start-up retry wait', () => /exchange unavailable at start: retrying GET \/\S+ in/.test(bot.out()), 60_000, bot);
      const asked = Date.now();
      bot.proc.kill('SIGINT');
      const end = await Promise.race([bot.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 20_000))]);
      // Before: the default SIGINT action killed the process (no exit code, nothing closed).
      expect(end, bot.out()).toMatchObject({ code: 0 });
      expect(Date.now() - asked).toBeLessThan(10_000);
      expect(bot.out()).toContain('mizan: stopping (Ctrl-C) once the start-up step under way ends');
      expect(bot.out()).toContain('mizan: stopped during start-up (Ctrl-C): no strategy was started');
      expect(bot.out()).not.toContain('LIVE: orders go to the exchange');
      expect(existsSync(journal)).toBe(false);
    } finally {
      if (bot.alive()) bot.proc.kill('SIGKILL');
      await faults({ reset: true });
    }
  }, 120_000);

  it('Ctrl-C right after the LIVE banner (strategies starting) stops the bot as a running one: orders cancelled, summary printed', async () => {
    const { file } = config('abort-late');
    // Slow answers widen the window between the banner and the end of the start (depth snapshots, stream).
    await faults({ latencyMs: 400 });
    const bot = runLive(file);
    try {
      await waitFor('the LIVE banner', () => bot.out().includes('LIVE: orders go to the exchange'), 90_000, bot);
      bot.proc.kill('SIGINT');
      const end = await Promise.race([bot.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 60_000))]);
      expect(end, bot.out()).toMatchObject({ code: 0 });
      expect(bot.out()).toMatch(/mizan: stopping \(Ctrl-C\)/);
      // The running bot's stop: its orders cancelled (none left open) and the summary printed.
      expect(bot.out()).toMatch(/mizan stopped after \S+ \(live\)/);
      expect(bot.out()).toMatch(/open orders left 0/);
      expect(bot.out()).not.toContain('second signal');
    } finally {
      if (bot.alive()) bot.proc.kill('SIGKILL');
      await faults({ reset: true });
    }
  }, 150_000);
});
