/**
 * Issue 16 item 20: `mizan check` on a file with problems of every stage (schema, markets, the
 * strategy module, its parameters) lists all of them in one run, each with its path and line, with
 * "did you mean" for parameters as for config keys; `mizan run` refuses the same file with the same
 * list before anything starts. A backtest file that parses also gets the data stage (resolutions
 * its data cannot give), listed with the other stages' problems.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO, tempDir } from './cli.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

const BROKEN = `mode: paper
bogus: 1
strategies:
  - name: a
    strategy: sma-cross
    markets: [BTCUSTD]
    resolution: "1"
    params: { fast: 1, fracton: 0.5 }
  - name: b
    strategy: sma-crss
    markets: [ETHUSDT]
    resolution: "1"
  - name: c
    strategy: rsi-reversion
    markets: [BTCUSDT]
    resolution: "7"
    params: { period: 0 }
journal: { file: ${tmp.dir}/never.sqlite }
`;

describe('mizan check on a file with problems of every stage', { timeout: 120_000 }, () => {
  it('lists every problem of every stage at once, with paths, lines and suggestions', async () => {
    const file = tmp.file('broken.yaml', BROKEN);
    const r = await mizan(['check', file]);
    expect(r.code, r.all).toBe(1);
    const out = r.all;
    expect(out).toContain(`${file}: 7 problems`);
    // schema
    expect(out).toMatch(/bogus: unknown key "bogus".*\(line 2\)/);
    expect(out).toMatch(/strategies\[2\]\.resolution: "7" .*\(line 16\)/);
    // markets
    expect(out).toMatch(/strategies\[0\]\.markets\[0\]: "BTCUSTD" is not a known market; did you mean "BTCUSDT"\?.*\(line 6\)/);
    // the strategy module
    expect(out).toMatch(/strategies\[1\]\.strategy: strategy "sma-crss" not found .*bundled strategies: .*sma-cross.*\(line 10\)/);
    // parameters, also of an entry with a schema problem, with a suggestion
    expect(out).toMatch(/strategies\[0\]\.params\.fast: 1 is below the minimum 2 \(line 8\)/);
    expect(out).toMatch(/strategies\[0\]\.params\.fracton: unknown parameter "fracton"; did you mean "fraction"\? \(known: fast, slow, fraction\) \(line 8\)/);
    expect(out).toMatch(/strategies\[2\]\.params\.period: 0 is below the minimum \d+ \(line 17\)/);
    // in the order of the file, no stack trace
    const lines = [...out.matchAll(/\(line (\d+)\)$/gm)].map((m) => Number(m[1]));
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
    expect(out).not.toMatch(/^\s+at /m);
  });

  it('mizan run refuses the same file with the same list, before anything starts', async () => {
    const file = tmp.file('broken-run.yaml', BROKEN);
    const r = await mizan(['run', file, '--duration', '5']);
    expect(r.code, r.all).toBe(1);
    expect(r.stderr).toContain('7 problems');
    expect(r.stderr).toContain('did you mean "fraction"?');
    expect(r.stderr).toContain('strategy "sma-crss" not found');
    expect(r.all).not.toContain('embedded simulator');
  });
});

describe('mizan check on a backtest file: the data stage with the others', { timeout: 120_000 }, () => {
  it('lists a parameter problem, a strategy module problem and a resolution the data cannot give, in the order of the file', async () => {
    const csv = tmp.file(
      'm5.csv',
      ['time,open,high,low,close,volume', ...Array.from({ length: 12 }, (_, i) => `${1672704000 + 300 * i},100,101,99,100.5,1`)].join('\n') + '\n',
    );
    const file = tmp.file(
      'bt-broken.yaml',
      `mode: backtest
strategies:
  - name: a
    strategy: sma-cross
    markets: [BTCUSDT]
    resolution: "300s"
    candles: ["1"]
    params: { fast: 2, slow: 4, fracton: 0.5 }
  - name: b
    strategy: sma-crss
    markets: [BTCUSDT]
    resolution: "300s"
backtest:
  data: [{ symbol: BTCUSDT, file: ${csv} }]
  from: 2023-01-03T00:00:00Z
  to: 2023-01-03T01:00:00Z
journal: { file: ":memory:" }
`,
    );
    const r = await mizan(['check', file]);
    expect(r.code, r.all).toBe(1);
    expect(r.all).toContain(`${file}: 3 problems`);
    expect(r.all).toMatch(
      /strategies\[0\]\.candles\[0\]: strategy a declares "1" \(60s\), which cannot be built from the backtest data of BTCUSDT .*its candles are 300s long.*\(line 7\)/,
    );
    expect(r.all).toMatch(/strategies\[0\]\.params\.fracton: unknown parameter "fracton"; did you mean "fraction"\?.*\(line 8\)/);
    expect(r.all).toMatch(/strategies\[1\]\.strategy: strategy "sma-crss" not found.*\(line 10\)/);
    const lines = [...r.all.matchAll(/\(line (\d+)\)$/gm)].map((m) => Number(m[1]));
    expect(lines).toEqual([7, 8, 10]);
  });
});

describe('mizan check on a book backtest file', { timeout: 120_000 }, () => {
  it('names a recording folder that does not exist, one without a traded market, and candles mixed with a recording', async () => {
    const rec = tmp.file('rec-readme.txt', 'not a recording');
    const file = tmp.file(
      'book-broken.yaml',
      `mode: backtest
strategies:
  - { name: mm, strategy: market-maker, markets: [BTCUSDT], resolution: "1" }
backtest:
  data:
    - { kind: book, dir: ${tmp.dir}/nowhere }
    - { kind: book, dir: ${tmp.dir}, markets: [BTCUSDT] }
    - { kind: bok, dir: ${tmp.dir} }
  from: 2026-11-28
  to: 2026-11-29
journal: { file: ":memory:" }
`,
    );
    const r = await mizan(['check', file]);
    expect(r.code, r.all).toBe(1);
    expect(r.all).toMatch(/backtest\.data\[2\]\.kind: "bok" is not a data kind \(allowed: candles, book\)/);
    expect(r.all).not.toMatch(/not both/); // an unknown kind is not a candle entry
    const fixed = tmp.file('book-broken2.yaml', readFileSync(file, 'utf8').replace(/\n {4}- \{ kind: bok.*\n/, '\n'));
    const r2 = await mizan(['check', fixed]);
    expect(r2.code, r2.all).toBe(1);
    expect(r2.all).toMatch(new RegExp(`backtest\\.data\\[0\\]\\.dir: no such folder: .*nowhere`));
    expect(r2.all).toMatch(/backtest\.data\[1\]\.dir: the recording has no events of BTCUSDT/);
    const mixed = tmp.file('book-mixed.yaml', readFileSync(fixed, 'utf8').replace('  data:\n', `  data:\n    - { symbol: BTCUSDT, file: ${rec} }\n`));
    const r3 = await mizan(['check', mixed]);
    expect(r3.code, r3.all).toBe(1);
    expect(r3.all).toMatch(/backtest\.data: a backtest replays either candles or recordings \(kind: book\), not both: 1 candle and 2 book entries/);
  });

  it('reads relative data paths from --data, as mizan backtest --data does', async () => {
    // The bundled backtest config names its data relative (backtest/data/…): from another folder
    // `mizan backtest --data <checkout>` finds it, and `mizan check` must judge the same file.
    const cwd = join(tmp.dir, 'elsewhere');
    mkdirSync(cwd);
    const config = join(REPO, 'config/backtest.yaml');
    const without = await mizan(['check', config], { cwd });
    expect(without.code, without.all).toBe(1);
    expect(without.all).toMatch(/backtest\.data\[0\]\.file: .*elsewhere\/backtest\/data\/BTCUSDT-5m-freqtrade-2023\.csv\.gz: cannot read the file/);
    const withData = await mizan(['check', config, '--data', REPO], { cwd });
    expect(withData.code, withData.all).toBe(0);
    expect(withData.all).toContain(`${config}: ok (mode backtest, candles)`);
    const bad = await mizan(['check', config, '--data', join(tmp.dir, 'nowhere')], { cwd });
    expect(bad.code, bad.all).toBe(1);
    expect(bad.all).toMatch(/backtest\.data\[0\]\.file: .*nowhere\/backtest\/data\/BTCUSDT-5m-freqtrade-2023\.csv\.gz: cannot read the file/);
  });
});
