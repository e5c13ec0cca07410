/**
 * `mizan sweep --metric cagr` on a range CAGR cannot be computed on (audit finding 7): the sweep ran
 * every combination and printed them in grid order as a "ranking" (rank 1 the worst run), while
 * `mizan optimize --objective cagr` refused. Both now refuse with the same reason, before any run.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, mizanSync } from './run-mizan.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-sweep-na-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GRID = ['--param', 'fast=5..30:5', '--param', 'slow=20..40:10'];
const REASON = 'the backtest range 2023-01-03..2023-02-09: cagr needs a span of at least 90 days and this range has 37: it would be n/a in every trial';

describe('mizan sweep --metric on a metric the range cannot give', () => {
  it('refuses cagr on a 37-day range before any run, with the reason optimize gives', () => {
    const out = join(dir, 'sweep.csv');
    const sweep = mizanSync(['sweep', 'config/backtest-sweep.yaml', ...GRID, '--metric', 'cagr', '--out', out]);
    expect(sweep.code, sweep.out).not.toBe(0);
    expect(sweep.out).toContain(`--metric cagr: ${REASON}`);
    expect(sweep.out).not.toMatch(/^\s*rank\b/m);
    expect(existsSync(out)).toBe(false);

    const optimize = mizanSync([
      'optimize',
      'config/backtest-sweep.yaml',
      ...GRID,
      '--objective',
      'cagr',
      '--trials',
      '2',
      '--storage',
      join(dir, 'studies.sqlite'),
    ]);
    expect(optimize.code, optimize.out).not.toBe(0);
    expect(optimize.out).toContain(`--objective cagr: ${REASON}`);
  });

  it('runs with the default metric (sharpe) on a range too short for it, saying the order is not a ranking', () => {
    // config/backtest-sweep.yaml cut to 7 days (sharpe needs 30 daily returns), its data file by absolute path.
    const yaml = readFileSync(join(REPO, 'config/backtest-sweep.yaml'), 'utf8')
      .replace('to: 2023-02-09', 'to: 2023-01-10')
      .replace('file: backtest/data/', `file: ${REPO}/backtest/data/`);
    const config = join(dir, 'short.yaml');
    writeFileSync(config, yaml);
    const out = join(dir, 'short.csv');
    const sweep = mizanSync(['sweep', config, '--param', 'fast=5,10', '--param', 'slow=20', '--workers', '1', '--out', out]);
    expect(sweep.code, sweep.out).toBe(0);
    expect(sweep.out).toContain(
      'mizan: warning: --metric sharpe: the backtest range 2023-01-03..2023-01-10: sharpe needs at least 30 daily returns and this range has 7: it would be n/a in every trial (the default --metric',
    );
    expect(sweep.out).toContain(
      'mizan: warning: --metric sharpe: sharpe is n/a in all 2 finished run(s): the ranking below is the order of the combinations, not a ranking',
    );
    expect(existsSync(out)).toBe(true);
  });
});
