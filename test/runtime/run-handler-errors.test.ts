/**
 * `mizan run` (paper, embedded simulator, child process) with a strategy whose onBook throws on every
 * book update: the bot keeps running, logs the error once with its stack (repeats are rate-limited
 * to one line a minute), and the status line and the stop summary count them (issue 16 item 10).
 */
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../backtest/helpers.js';
import { runCli, tempDir, writeFile } from '../backtest/cli/run-cli.js';

describe('mizan run: a strategy handler that keeps throwing', () => {
  it('is logged once, counted in the status line and the summary, and the bot runs on', async () => {
    const dir = tempDir();
    const strategy = resolve(REPO, 'test/backtest/cli/fixtures/book-thrower.ts');
    const config = writeFile(
      dir,
      'paper.yaml',
      `mode: paper
exchange: { simulator: true }
simulator: { seed: 1, speed: 1 }
strategies:
  - { name: bt, strategy: ${JSON.stringify(strategy)}, markets: [BTCUSDT], resolution: "1" }
journal: { file: ${JSON.stringify(join(dir, 'paper.sqlite'))} }
logging: { level: info, pretty: false }
`,
    );
    const r = await runCli(['run', config, '--duration', '11'], { cwd: dir, timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    const lines = (r.stdout + r.stderr).split('\n');
    const errorLogs = lines.filter((l) => l.includes('"level":50'));
    expect(errorLogs).toHaveLength(1);
    expect(errorLogs[0]).toContain('strategy handler onBook failed: RangeError: book handler broke');
    expect(errorLogs[0]).toContain('book-thrower.ts:');
    const status = lines.filter((l) => l.startsWith('[paper '));
    expect(status.length).toBeGreaterThanOrEqual(2);
    const counts = status.map((l) => Number(/ errors (\d+) /.exec(l)?.[1]));
    expect(counts.every((n) => n > 0)).toBe(true);
    const total = Number(/strategy handler errors (\d+)/.exec(r.stdout)?.[1]);
    expect(total).toBeGreaterThanOrEqual(counts.at(-1)!);
  }, 120_000);
});
