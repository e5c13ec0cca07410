/**
 * Issue 33 item 8: bad input that used to slip through, or fail without naming where, on the user's
 * path (`node bin/mizan.js check|backtest|run` child processes on files in a temp dir). Each gets a
 * clear error naming the file (and line), the field and the value:
 * - a number beyond the largest double (`1e400`), a self-referencing alias, a billion-laughs file;
 * - a candle row with more fields than its header, a timestamp shifted off the candle grid;
 * - a journal.file that cannot be created (/proc, a path through a file), checked by `mizan check`
 *   and by `mizan run` before anything connects (Node 20's recursive mkdir used to hang on /proc).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, tempDir } from './cli.js';

const tmp = tempDir('mizan-e2e-bad-input-');
afterAll(() => tmp.remove());

const STRATEGY = `strategies:
  - name: a
    strategy: sma-cross
    markets: [BTCUSDT]
    resolution: "1"
`;
const paper = (extra: string, journal = join(tmp.dir, 'j.sqlite')) => `mode: paper\n${STRATEGY}${extra}journal: { file: ${journal} }\n`;

describe('config files that used to break the reader', { timeout: 120_000 }, () => {
  it('a number too large to be one is named as written, with its path and line', async () => {
    const file = tmp.file('huge.yaml', paper('paper:\n  balances: { USDT: 1e400 }\n'));
    const r = await mizan(['check', file]);
    expect(r.code, r.all).toBe(1);
    expect(r.stdout).toContain(`${file}: 1 problem`);
    expect(r.stdout).toMatch(/paper\.balances\.USDT: 1e400 is not a finite number .*\(line 8\)/);
    expect(r.all).not.toContain('null is not a number');
  });

  it('an alias inside its own anchor is refused naming the file and line, not a stack overflow', async () => {
    const file = tmp.file('cycle.yaml', `mode: paper\na: &a [*a]\n${STRATEGY}`);
    const r = await mizan(['check', file]);
    expect(r.code, r.all).toBe(1);
    expect(r.stdout).toContain(`${file}: 1 problem`);
    expect(r.stdout).toMatch(/\(file\): the alias \*a is inside the node its anchor &a names.*\(line 2\)/);
    expect(r.all).not.toContain('Maximum call stack');
  });

  it('a billion-laughs file is refused naming the file', async () => {
    const lines = ['mode: paper', 'l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) lines.push(`l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}]`);
    const file = tmp.file('laughs.yaml', `${lines.join('\n')}\n${STRATEGY}`);
    const r = await mizan(['check', file]);
    expect(r.code, r.all).toBe(1);
    expect(r.stdout).toContain(`${file}: 1 problem`);
    expect(r.stdout).toMatch(/\(file\): the file is refused: its aliases expand to more than 100 nodes .*\(line 3\)/);
  });
});

const T0 = 1672704000; // 2023-01-03T00:00:00Z
function candles(edit: (rows: string[]) => void): string {
  const rows = ['time,open,high,low,close,volume'];
  for (let i = 0; i < 600; i++) rows.push(`${T0 + 300 * i},100,101,99,100.5,1`);
  edit(rows);
  return rows.join('\n') + '\n';
}
const backtest = (csv: string) => `mode: backtest
strategies:
  - name: a
    strategy: sma-cross
    markets: [BTCUSDT]
    resolution: "300s"
backtest:
  from: 2023-01-03
  to: 2023-01-05
  data:
    - symbol: BTCUSDT
      file: ${csv}
`;

describe('candle files that used to be read wrongly', { timeout: 120_000 }, () => {
  it('the same file, well formed, runs (the cases below differ by one line)', async () => {
    const csv = tmp.file(
      'ok.csv',
      candles(() => undefined),
    );
    const r = await mizan(['backtest', tmp.file('bt-ok.yaml', backtest(csv))]);
    expect(r.code, r.all).toBe(0);
  });

  it('a row with more fields than the header is refused naming the file and line', async () => {
    const csv = tmp.file(
      'wide.csv',
      candles((rows) => (rows[200] += ',1,2,3')),
    ); // line 201
    const r = await mizan(['backtest', tmp.file('bt-wide.yaml', backtest(csv))]);
    expect(r.code, r.all).toBe(1);
    expect(r.stderr).toContain(`${csv}, line 201: expected 6 fields (as the header has), got 9: "${T0 + 300 * 199},100,101,99,100.5,1,1,2,3"`);
  });

  it('a timestamp shifted by 17 s names its line and both times, not "candles are 283s long"', async () => {
    const csv = tmp.file(
      'shift.csv',
      candles((rows) => (rows[401] = rows[401]!.replace(String(T0 + 300 * 400), String(T0 + 300 * 400 + 17)))),
    ); // line 402
    const r = await mizan(['backtest', tmp.file('bt-shift.yaml', backtest(csv))]);
    expect(r.code, r.all).toBe(1);
    const t = T0 + 300 * 400 + 17;
    expect(r.stderr).toContain(`${csv}, line 402: time ${new Date(t * 1000).toISOString().replace('.000Z', 'Z')} (${t}) is 317s after the candle before it`);
    expect(r.stderr).toContain(`(${T0 + 300 * 399}) (line 401): the candles are 300s long`);
    expect(r.all).not.toContain('283s');
  });
});

describe('a journal.file that cannot be created', { timeout: 120_000 }, () => {
  it('under /proc: mizan check names journal.file and the value, and mizan run refuses at once instead of hanging', async () => {
    const file = tmp.file('proc.yaml', paper('', '/proc/forbidden/x.sqlite'));
    const c = await mizan(['check', file], { timeoutMs: 30_000 });
    expect(c.signal, c.all).toBeNull();
    expect(c.code, c.all).toBe(1);
    expect(c.stdout).toMatch(/journal\.file: "\/proc\/forbidden\/x\.sqlite" cannot hold the journal: .*\/proc.* \(line 7\)/);
    const r = await mizan(['run', file, '--duration', '30'], { timeoutMs: 30_000 });
    expect(r.signal, r.all).toBeNull(); // not killed by the timeout: it did not hang
    expect(r.code, r.all).toBe(1);
    expect(r.stderr).toContain('journal.file: "/proc/forbidden/x.sqlite" cannot hold the journal');
    expect(r.all).not.toContain('embedded simulator');
  });

  it('through a file (/etc/passwd/j.sqlite): names journal.file and the file in the way, no raw EEXIST', async () => {
    const file = tmp.file('passwd.yaml', paper('', '/etc/passwd/j.sqlite'));
    const c = await mizan(['check', file]);
    expect(c.code, c.all).toBe(1);
    expect(c.stdout).toContain('journal.file: "/etc/passwd/j.sqlite" cannot hold the journal: /etc/passwd is not a directory (line 7)');
    const r = await mizan(['run', file, '--duration', '30'], { timeoutMs: 30_000 });
    expect(r.code, r.all).toBe(1);
    expect(r.stderr).toContain('journal.file: "/etc/passwd/j.sqlite" cannot hold the journal: /etc/passwd is not a directory');
    expect(r.all).not.toContain('EEXIST');
  });

  it('mizan check leaves no directory behind; mizan run makes the missing directories', async () => {
    const journal = join(tmp.dir, 'new/deeper/j.sqlite');
    const file = tmp.file('deep.yaml', paper('', journal));
    const c = await mizan(['check', file]);
    expect(c.code, c.all).toBe(0);
    expect(existsSync(join(tmp.dir, 'new'))).toBe(false);
    const r = await mizan(['run', file, '--duration', '2'], { timeoutMs: 60_000 });
    expect(r.code, r.all).toBe(0);
    expect(existsSync(journal)).toBe(true);
  });
});

describe('margin-trend parameters (issue 33 item 9)', { timeout: 120_000 }, () => {
  it('takeProfitPct of 100 or more is refused: every short would get a take profit of 0 or less', async () => {
    const file = tmp.file(
      'mt-tp.yaml',
      `mode: paper\nstrategies:\n  - name: mt\n    strategy: margin-trend\n    markets: [BTCUSDT]\n    params: { takeProfitPct: 150 }\njournal: { file: ${join(tmp.dir, 'mt.sqlite')} }\n`,
    );
    const r = await mizan(['check', file]);
    expect(r.code, r.all).toBe(1);
    expect(r.stdout).toMatch(/strategies\[0\]\.params\.takeProfitPct: 150 is above the maximum 99 \(line 6\)/);
    expect((await mizan(['strategies'])).stdout).toMatch(/takeProfitPct.*\[0\.1\.\.99\]/);
  });
});
