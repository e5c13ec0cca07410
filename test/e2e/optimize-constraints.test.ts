/**
 * Issue 34 item 6 on the user's path (`node bin/mizan.js` child processes, studies in temp SQLite
 * files, the sweep's CSV): `--constraint` for optimize and sweep, no parameter set run twice, one
 * metric vocabulary for `optimize --objective` and `sweep --metric`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mizan, tempDir, type TempDir } from './cli.js';

const CONFIG = 'config/backtest-sweep.yaml';
let tmp: TempDir;
beforeAll(() => {
  tmp = tempDir('mizan-constraint-');
});
afterAll(() => tmp.remove());

interface Row {
  number: number;
  params: string;
  state: string;
  value: number | null;
  reason: string | null;
}

describe('mizan optimize --constraint', () => {
  it('TPE proposes only fast < slow, runs each parameter set once and answers repeats from the study', async () => {
    const storage = join(tmp.dir, 'c.sqlite');
    // 10 points satisfy fast < slow in 5..8 × 6..9: 14 trials must repeat 4 of them.
    const r = await mizan(
      [
        'optimize',
        CONFIG,
        '--param',
        'fast=5..8',
        '--param',
        'slow=6..9',
        '--constraint',
        'fast < slow',
        '--trials',
        '14',
        '--objective',
        'return',
        '--workers',
        '1',
        '--seed',
        '4',
        '--study',
        'c',
        '--storage',
        storage,
      ],
      { timeoutMs: 240_000 },
    );
    expect(r.code, r.all).toBe(0);
    expect(r.stdout).toContain('constraints: fast < slow');
    const db = new Database(storage, { readonly: true });
    const rows = db
      .prepare('SELECT t.number, t.params, t.state, t.value, t.reason FROM trials t JOIN studies s ON s.id = t.study_id WHERE s.name = ? ORDER BY t.number')
      .all('c') as Row[];
    db.close();
    expect(rows.length).toBe(14);
    const ps = rows.map((x) => JSON.parse(x.params) as Record<string, number>);
    for (const p of ps) expect(p['sma.fast']!).toBeLessThan(p['sma.slow']!);
    const ran = rows.filter((x) => !x.reason?.startsWith('same parameters as trial #'));
    expect(new Set(ran.map((x) => x.params)).size).toBe(ran.length);
    expect(ran.length).toBe(10);
    for (const x of rows.filter((y) => !ran.includes(y))) {
      const from = Number(/#(\d+)/.exec(x.reason!)![1]);
      const orig = rows.find((y) => y.number === from)!;
      expect(x.params).toBe(orig.params);
      expect(x.value).toBe(orig.value);
      expect(x.reason).toContain('answered from the study, not run again');
    }
  }, 300_000);

  it('a bad constraint stops before anything runs, naming it', async () => {
    const storage = join(tmp.dir, 'bad.sqlite');
    const base = ['optimize', CONFIG, '--param', 'fast=5..50', '--param', 'slow=20..200', '--trials', '5', '--storage', storage];
    const a = await mizan([...base, '--constraint', 'fast << slow'], { timeoutMs: 60_000 });
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('--constraint "fast << slow": unexpected "<" (a number, a parameter or "(" expected)');
    const b = await mizan([...base, '--constraint', 'fats < slow'], { timeoutMs: 60_000 });
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('--constraint "fats < slow": fats is not a searched parameter (the --param names: sma.fast, sma.slow)');
    const c = await mizan([...base, '--constraint', 'fast + slow'], { timeoutMs: 60_000 });
    expect(c.code).toBe(1);
    expect(c.stderr).toContain('--constraint "fast + slow": has no comparison');
    const d = await mizan([...base, '--constraint', 'process.exit(3) < 1'], { timeoutMs: 60_000 });
    expect(d.code).toBe(1);
    expect(d.stderr).toContain('--constraint "process.exit(3) < 1": process.exit is not a searched parameter');
    for (const x of [a, b, c, d]) expect(x.all).not.toMatch(/^trial /m);
  }, 120_000);
});

describe('mizan sweep --constraint and one metric vocabulary', () => {
  it('runs only the combinations where the constraint holds, ranked by a name optimize also takes', async () => {
    const out = join(tmp.dir, 'sweep.csv');
    const r = await mizan(
      [
        'sweep',
        CONFIG,
        '--param',
        'fast=10..30:10',
        '--param',
        'slow=10..30:10',
        '--constraint',
        'fast < slow',
        '--metric',
        'win-rate',
        '--workers',
        '1',
        '--out',
        out,
      ],
      { timeoutMs: 120_000 },
    );
    expect(r.code, r.all).toBe(0);
    expect(r.stderr).toContain('constraints: 3 of 9 combination(s) satisfy "fast < slow"');
    expect(r.stdout).toMatch(/^rank {2}winRatePct {2}/m);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines.length).toBe(4);
    const head = lines[0]!.split(',');
    const fi = head.indexOf('sma.fast');
    const si = head.indexOf('sma.slow');
    expect(fi).toBeGreaterThanOrEqual(0);
    for (const l of lines.slice(1)) expect(Number(l.split(',')[fi])).toBeLessThan(Number(l.split(',')[si]));
  }, 120_000);

  it('profit-factor, win-rate and the aliases pf, winrate are accepted by both; an unknown name is refused by both', async () => {
    const storage = join(tmp.dir, 'names.sqlite');
    for (const name of ['profit-factor', 'pf']) {
      const s = await mizan(
        ['sweep', CONFIG, '--param', 'fast=10', '--param', 'slow=30', '--metric', name, '--workers', '1', '--out', join(tmp.dir, `${name}.csv`)],
        { timeoutMs: 60_000 },
      );
      expect(s.code, s.all).toBe(0);
      expect(s.stdout).toMatch(/^rank {2}profitFactor {2}/m);
    }
    const o = await mizan(
      ['optimize', CONFIG, '--param', 'fast=10,12', '--param', 'slow=30', '--objective', 'winrate', '--trials', '1', '--workers', '1', '--storage', storage],
      { timeoutMs: 60_000 },
    );
    expect(o.code, o.all).toBe(0);
    expect(o.stdout).toMatch(/^study backtest-sweep: win-rate \(maximize\)/m);
    const bad1 = await mizan(['sweep', CONFIG, '--param', 'fast=10', '--metric', 'winratio'], { timeoutMs: 60_000 });
    expect(bad1.code).toBe(1);
    expect(bad1.stderr).toContain(
      '--metric "winratio": unknown (use sharpe, sortino, calmar, return, cagr, profit-factor, expectancy, sqn, win-rate, drawdown',
    );
    const bad2 = await mizan(['optimize', CONFIG, '--param', 'fast=10,12', '--objective', 'winratio', '--storage', storage], { timeoutMs: 60_000 });
    expect(bad2.code).toBe(1);
    expect(bad2.stderr).toContain(
      '--objective "winratio": unknown (use sharpe, sortino, calmar, return, cagr, profit-factor, expectancy, sqn, win-rate, drawdown',
    );
  }, 180_000);
});
