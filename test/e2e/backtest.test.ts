/**
 * The README's backtest command as a user types it: `mizan backtest config/backtest.yaml --out <dir>`,
 * twice: a summary, result.json and report.html, and the same inputs give a byte-identical result.
 * (A throwing strategy, brackets and higher timeframes in backtests have their own e2e tests.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, tempDir } from './cli.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

describe('mizan backtest config/backtest.yaml', () => {
  it('prints the summary, writes result.json and report.html, and repeats byte for byte', async () => {
    const a = join(tmp.dir, 'run1');
    const b = join(tmp.dir, 'run2');
    const r1 = await mizan(['backtest', 'config/backtest.yaml', '--out', a]);
    expect(r1.code, r1.all).toBe(0);
    expect(r1.stdout).toMatch(
      /^backtest 2023-01-03T00:00:00\.000Z \.\. 2023-02-09T00:00:00\.000Z: sma \(sma-cross on BTCUSDT\); rsi \(rsi-reversion on BTCUSDT\)$/m,
    );
    expect(r1.stdout).toMatch(/^candles \d+, orders \d+ \(\d+ filled(, \d+ \w+)*\), trades \d+( \(\d+ open at end\))?, denied intents \d+/m);
    expect(r1.stdout).toMatch(/^Total return\s+-?[\d.]+ %$/m);
    expect(r1.stdout).toMatch(/^Buy & hold return\s+-?[\d.]+ %$/m);
    for (const f of ['result.json', 'report.html']) expect(existsSync(join(a, f)), f).toBe(true);
    const result = JSON.parse(readFileSync(join(a, 'result.json'), 'utf8')) as { summary: { trades: number; orders: number } };
    expect(result.summary.trades).toBeGreaterThan(0);
    const r2 = await mizan(['backtest', 'config/backtest.yaml', '--out', b]);
    expect(r2.code, r2.all).toBe(0);
    expect(readFileSync(join(b, 'result.json'))).toEqual(readFileSync(join(a, 'result.json')));
    expect(r1.all).not.toMatch(/^\s+at /m);
  }, 120_000);

  it('mizan check accepts the bundled configs, as the README says', async () => {
    for (const f of ['config/default.yaml', 'config/backtest.yaml', 'config/backtest-sweep.yaml']) {
      const r = await mizan(['check', f]);
      expect(r.code, `${f}\n${r.all}`).toBe(0);
      expect(r.stdout).toContain(`${f}: ok`);
    }
  }, 60_000);
});
