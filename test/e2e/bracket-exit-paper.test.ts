/**
 * Issue 34 item 4 on a running bot: `mizan run <paper config> --serve --port 0` in a child process
 * (the embedded simulator, a journal file), two strategies with brackets on BTCUSDT: `leaver` tries a
 * plain sell while its bracket's stop rests (denied), `exiter` leaves by exit(symbol). The status
 * line and GET /api/v1/status give the denial with its numbers, the lock and exit() named; exiter's
 * exits are booked (fills tagged bracket-x) without a denial; Ctrl-C's summary breaks the denials
 * down with their numbers.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { sleep, startMizan, waitFor, type MizanChild } from './run-mizan.js';

const FIX = resolve(import.meta.dirname, 'fixtures/bracket-exit.ts');
const TOKEN = { read: 'exit-read-token-0123456789', control: 'exit-control-token-0123456789' };
const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-bracket-exit-paper-'));
let child: MizanChild | undefined;
afterAll(async () => {
  if (child?.alive()) {
    child.proc.kill('SIGKILL');
    await Promise.race([child.exited, sleep(5_000)]);
  }
  rmSync(dir, { recursive: true, force: true });
});

// Response bodies are read field by field in the assertions.
type Json = Record<string, any>;

describe('mizan run (paper): a sell while the bracket rests, and exit()', () => {
  it("the status line and the API give the denial's numbers and the lock; exit() sells without a denial; Ctrl-C breaks the denials down", async () => {
    const journal = join(dir, 'paper.sqlite');
    const cfg = join(dir, 'paper.yaml');
    writeFileSync(
      cfg,
      [
        'mode: paper',
        'exchange: { simulator: true }',
        'simulator: { seed: 1, speed: 1 }',
        'strategies:',
        `  - { name: leaver, strategy: ${FIX}, markets: [BTCUSDT], resolution: 2s, params: { amount: 300, pct: 10, every: 1, hold: 2, how: sell } }`,
        `  - { name: exiter, strategy: ${FIX}, markets: [BTCUSDT], resolution: 2s, params: { amount: 300, pct: 10, every: 1, hold: 2, how: exit } }`,
        'paper: { balances: { USDT: 10000 } }',
        `journal: { file: ${journal} }`,
        'logging: { level: info }',
        '',
      ].join('\n'),
    );
    const c = (child = startMizan(['run', cfg, '--serve', '--port', '0'], { MIZAN_SERVER_TOKEN: TOKEN.read, MIZAN_SERVER_CONTROL_TOKEN: TOKEN.control }));
    await waitFor('the API address', () => /API on http:\/\/127\.0\.0\.1:\d+/.test(c.out()), 90_000, c, 200);
    const base = /API on (http:\/\/127\.0\.0\.1:\d+)/.exec(c.out())![1]!;
    const api = async (path: string): Promise<Json> => {
      const r = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN.read}` } });
      expect(r.status, path).toBe(200);
      return (await r.json()) as Json;
    };
    const exits = () => {
      const j = Journal.open(journal, { readonly: true });
      try {
        return j.fillsPage({ strategy: 'exiter', limit: 500 }).rows.filter((f) => f.tag?.startsWith('bracket-x:')).length;
      } finally {
        j.close();
      }
    };
    // The status line: the last denial, with its numbers and the lock.
    const line =
      /denied (\d+) \(last: leaver balance: needs [\d.]+ BTC \(fees included\) but only [\d.]+ is free on main \(value [\d.]+ − locked [\d.]+ − reserved [\d.]+\); [\d.]+ BTC of it is locked by the resting stop loss of leaver's bracket on BTCUSDT: exit\('BTCUSDT'\) cancels the bracket's legs, then sells\)/;
    await waitFor("a status line with leaver's denial", () => line.test(c.out()), 90_000, c, 250);
    await waitFor('two exits of exiter booked', () => exits() >= 2, 90_000, c, 500);

    const s = await api('/api/v1/status');
    expect(s.lastDenial).not.toBeNull();
    const balance = (s.denied.byRule as Json[]).find((r) => r.rule === 'balance')!;
    expect(balance.count).toBeGreaterThan(0);
    for (const r of balance.reasons as Json[]) {
      expect(r.reason).not.toMatch(/(^|\s)#(\s|$)/);
      expect(r.reason).toContain("of it is locked by the resting stop loss of leaver's bracket on BTCUSDT: exit('BTCUSDT')");
    }
    // exiter: left every time by exit(), never denied.
    const strategies = (await api('/api/v1/strategies')).strategies as Json[];
    expect(strategies.find((x) => x.name === 'exiter')!.recentDenials).toEqual([]);
    expect(strategies.find((x) => x.name === 'leaver')!.recentDenials.length).toBeGreaterThan(0);

    c.proc.kill('SIGINT');
    const end = await c.exited;
    expect(end.code).toBe(0);
    const summary = c.out().slice(c.out().lastIndexOf('mizan stopped after'));
    expect(summary).toContain('denied intents by rule and reason:');
    expect(summary).toMatch(/\n {4}balance: \d+\n {6} +\d+ × needs [\d.–]+ BTC \(fees included\)/);
    expect(summary).not.toMatch(/ # /);
  }, 240_000);
});
