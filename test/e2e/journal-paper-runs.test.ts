/**
 * `mizan journal pnl` on a journal kept across paper runs, as a user gets it: two `mizan run`
 * processes of a strategy that buys once, on one journal file, then the command. Each paper run
 * trades a fresh paper account, so the positions `journal pnl` shows are the last run's (its stop
 * summary's), never the sum of both runs' buys; the realised PnL and the fees add up every run.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO, tempDir } from './cli.js';

const tmp = tempDir('mizan-e2e-journal-runs-');
afterAll(() => tmp.remove());

/** The position and the fees of a strategy's row in the stop summary's table. */
function summaryRow(out: string, strategy: string): { position: string; fees: number } {
  const m = new RegExp(`^\\s+${strategy}\\s+BTCUSDT\\s+([\\d.]+) BTC\\s+\\S+ USDT\\s+\\S+ USDT\\s+([\\d.]+) USDT$`, 'm').exec(out);
  if (!m) throw new Error(`no summary row for ${strategy} in:\n${out}`);
  return { position: m[1]!, fees: Number(m[2]) };
}

describe('mizan journal pnl across paper runs', () => {
  it("shows the last paper run's positions, and every run's fees", async () => {
    const journal = join(tmp.dir, 'runs.sqlite');
    const config = tmp.file(
      'runs.yaml',
      [
        'mode: paper',
        'exchange: { simulator: true }',
        'strategies:',
        `  - { name: once, strategy: ${join(REPO, 'test/e2e/fixtures/buy-once.ts')}, markets: [BTCUSDT], resolution: "1" }`,
        'paper: { balances: { USDT: 1000 } }',
        `journal: { file: ${journal} }`,
        'logging: { level: warn, pretty: false }',
      ].join('\n'),
    );
    const runs: { position: string; fees: number }[] = [];
    for (let run = 0; run < 2; run++) {
      const r = await mizan(['run', config, '--duration', '8']);
      expect(r.code, r.all).toBe(0);
      runs.push(summaryRow(r.stdout, 'once'));
    }
    // Each run bought about 100 USDT of BTC on its own fresh account.
    for (const r of runs) expect(Number(r.position), JSON.stringify(runs)).toBeGreaterThan(0);

    const pnl = await mizan(['journal', 'pnl', '--file', journal]);
    expect(pnl.code, pnl.all).toBe(0);
    const row = /^once\s+BTCUSDT\s+(\d+)\s+([\d.]+)\s+\S+\s+([\d.]+) USDT\s+(\S+) USDT$/m.exec(pnl.stdout);
    expect(row, pnl.stdout).not.toBeNull();
    // Before: the two runs' buys were summed into one position the last paper account never held.
    expect(row![2], pnl.stdout).toBe(runs[1]!.position);
    // The fees of both runs (the summaries round to 4 decimals, the journal to the fills' 8).
    expect(Math.abs(Number(row![3]) - (runs[0]!.fees + runs[1]!.fees)), pnl.stdout).toBeLessThanOrEqual(0.0001);
    expect(pnl.stdout).toMatch(/^positions: the paper account of the run started \S+Z \(2 paper runs; each starts a fresh account/m);
  }, 90_000);
});
