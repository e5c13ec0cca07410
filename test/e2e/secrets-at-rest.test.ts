/**
 * Secrets at rest (issue #33 item 3): a paper bot (`mizan run --serve`, child process) with the API key
 * and the API tokens from its environment is halted over real HTTP with a reason that contains the key
 * and the control token. The response, the log file, the journal FILE (its bytes and its -wal) and
 * what `mizan status` / `mizan journal` print must hold neither: `[REDACTED]` instead.
 * Then a journal written by an older mizan (the raw secrets in its reason) is read: what
 * `mizan status` prints still has them removed, knowing them from the config and the environment.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { defaultConfigCopy, mizanSync, sleep, startMizan, waitFor, type MizanChild } from './run-mizan.js';

const READ = 'e2e-read-token-secretsatrest-01';
const CONTROL = 'e2e-control-token-secretsatrest-02';
const API_KEY = 'FAKE-api-key-secretsatrest-9c1b5d';
const ENV = { MIZAN_SERVER_TOKEN: READ, MIZAN_SERVER_CONTROL_TOKEN: CONTROL, WALLEX_API_KEY: API_KEY };

const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-secrets-'));
const logFile = join(dir, 'bot.log');
let child: MizanChild;
let base = '';
let config = '';
let journalFile = '';

function tradingState(): { state: string; reason?: string } | undefined {
  const j = Journal.open(journalFile, { readonly: true });
  try {
    return j.tradingState();
  } finally {
    j.close();
  }
}

/** The journal's bytes on disk: the database file and its write-ahead log. */
function journalBytes(): string {
  return [journalFile, `${journalFile}-wal`]
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f).toString('latin1'))
    .join('\n');
}

beforeAll(async () => {
  const copy = defaultConfigCopy(dir, (y) =>
    y
      .replace('exchange:\n  simulator: true', 'exchange:\n  simulator: true\n  apiKey: ${WALLEX_API_KEY}')
      .replace('logging:\n', `logging:\n  file: ${logFile}\n`),
  );
  config = copy.config;
  journalFile = copy.journal;
  child = startMizan(['run', config, '--serve', '--port', '0'], ENV);
  await waitFor('the API address', () => /API on http:\/\/127\.0\.0\.1:\d+/.test(child.out()), 60_000, child, 200);
  base = /API on (http:\/\/127\.0\.0\.1:\d+)/.exec(child.out())![1]!;
}, 90_000);

afterAll(async () => {
  if (child?.alive()) {
    child.proc.kill('SIGINT');
    await Promise.race([child.exited, sleep(15_000)]);
    if (child.alive()) child.proc.kill('SIGKILL');
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('secrets at rest: a halt reason holding the API key and the control token', () => {
  it('reaches neither the journal file, nor its -wal, nor the log file, nor mizan status / mizan journal', async () => {
    const reason = `leaked key ${API_KEY} and token ${CONTROL} here`;
    const r = await fetch(`${base}/api/v1/halt`, {
      method: 'POST',
      headers: { authorization: `Bearer ${CONTROL}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason }),
    });
    const body = await r.text();
    expect(r.status, body).toBe(200);
    expect(body).not.toContain(API_KEY);
    expect(body).not.toContain(CONTROL);

    await waitFor('the halt in the journal', () => tradingState()?.state === 'halted', 10_000, child);
    expect(tradingState()?.reason).toBe('leaked key [REDACTED] and token [REDACTED] here (API)');
    const bytes = journalBytes();
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes).not.toContain(API_KEY);
    expect(bytes).not.toContain(CONTROL);
    expect(bytes).toContain('leaked key [REDACTED]');

    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('[REDACTED]');
    expect(log).not.toContain(API_KEY);
    expect(log).not.toContain(CONTROL);

    // As the operator runs them: with the same environment, and with none of it.
    for (const env of [ENV, {}]) {
      const status = mizanSync(['status', '--config', config], env);
      expect(status.code, status.out).toBe(0);
      expect(status.out).toContain('trading state: halted');
      expect(status.out).toContain('[REDACTED]');
      expect(status.out).not.toContain(API_KEY);
      expect(status.out).not.toContain(CONTROL);
      for (const sub of ['orders', 'fills', 'pnl']) {
        const j = mizanSync(['journal', sub, '--config', config], env);
        expect(j.code, j.out).toBe(0);
        expect(j.out).not.toContain(API_KEY);
        expect(j.out).not.toContain(CONTROL);
      }
    }
    expect(child.out()).not.toContain(API_KEY);
    expect(child.out()).not.toContain(CONTROL);
  }, 60_000);

  it('a journal written before (the raw secrets in it): mizan status prints them as [REDACTED]', () => {
    const old = join(dir, 'old.sqlite');
    const j = Journal.open(old);
    j.setTradingState({ state: 'halted', reason: `old ${API_KEY} / ${CONTROL}`, since: Date.now() });
    j.close();
    expect(readFileSync(old).toString('latin1') + (existsSync(`${old}-wal`) ? readFileSync(`${old}-wal`).toString('latin1') : '')).toContain(API_KEY);
    const status = mizanSync(['status', '--file', old], ENV);
    expect(status.code, status.out).toBe(0);
    expect(status.out).toContain('trading state: halted');
    expect(status.out).toContain('old [REDACTED] / [REDACTED]');
    expect(status.out).not.toContain(API_KEY);
    expect(status.out).not.toContain(CONTROL);
  });
});
