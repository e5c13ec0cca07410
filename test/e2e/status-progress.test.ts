/**
 * Issue 34 item 8, on the user's path: a paper bot (`node bin/mizan.js run <config>`, the embedded
 * simulator, a real journal) whose status line says which strategies are warming up (their declared
 * `warmup` against the closed candles seen: `btc-sma warming up 5/8`) and which have not signalled yet.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfigCopy, startMizan, waitFor, type MizanChild } from './run-mizan.js';
import { stopBot } from './server-bot.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-progress-'));
let child: MizanChild | undefined;
afterAll(async () => {
  await stopBot(child);
  rmSync(dir, { recursive: true, force: true });
});

/** The status lines printed so far. */
const statusLines = (c: MizanChild) =>
  c
    .out()
    .split('\n')
    .filter((l) => /^\[paper \d+m\d\ds\] equity/.test(l));

describe('the status line of a paper bot that has not traded yet (issue 34 item 8)', () => {
  it('names the strategy warming up (candles seen / declared warm-up), then the ones that have not signalled', async () => {
    // btc-sma (sma-cross, warmup = slow = 8 closed 2 s candles), the grid (places its ladder on the
    // first book) and the DCA on a cron that does not fire during the test (it never signals).
    const { config } = defaultConfigCopy(dir, (y) => {
      const out = y
        .replace('params: { fast: 2, slow: 4, fraction: 0.2 }', 'params: { fast: 2, slow: 8, fraction: 0.2 }')
        .replace("cron: '*/30 * * * * *'", "cron: '0 0 0 1 1 *'")
        .replace(/ {2}- name: eth-mm\n(?: {4}.*\n)+/, '');
      if (!out.includes('slow: 8') || !out.includes('0 0 0 1 1 *') || out.includes('eth-mm'))
        throw new Error('config/default.yaml changed: this test edits its btc-sma, usdt-dca and eth-mm entries');
      return out;
    });
    child = startMizan(['run', config]);
    const c = child;
    await waitFor('a status line with btc-sma warming up', () => statusLines(c).some((l) => /btc-sma warming up [0-7]\/8/.test(l)), 30_000, c, 100);
    await waitFor(
      'a status line after the warm-up',
      () => statusLines(c).some((l) => l.includes('no signal yet') && !l.includes('warming up')),
      60_000,
      c,
      250,
    );
    const lines = statusLines(c);
    const seen = lines
      .map((l) => /btc-sma warming up (\d)\/8/.exec(l)?.[1])
      .filter((x): x is string => x !== undefined)
      .map(Number);
    expect(seen.length, lines.join('\n')).toBeGreaterThan(0);
    // The count goes up with the candles (never down) and never reaches the warm-up while shown.
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect(Math.max(...seen)).toBeLessThan(8);
    const after = lines.find((l) => l.includes('no signal yet') && !l.includes('warming up'))!;
    expect(after).toMatch(/no signal yet: (btc-sma, )?usdt-dca$/);
    // The grid signalled (its ladder) from the first book on: never listed once it did (the line may
    // still name it elsewhere, e.g. in its last denial).
    expect(/no signal yet: (.*)$/.exec(after)?.[1]).not.toContain('btc-grid');
  }, 120_000);
});
