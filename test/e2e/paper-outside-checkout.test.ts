/**
 * A paper bot started outside mizan's folder, with no `simulator.data`, replays the data bundled
 * with mizan (audit: the default was `backtest/data` under the working directory, so the embedded
 * simulator found no data there and served frozen seeded books: no trades, no candles, "no signal
 * yet" for ever).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, tempDir } from './cli.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

describe('paper mode outside the mizan folder', { timeout: 120_000 }, () => {
  it('replays the bundled data when simulator.data is not given', async () => {
    const file = tmp.file(
      'paper.yaml',
      `mode: paper
strategies:
  - { name: s, strategy: sma-cross, markets: [BTCUSDT], resolution: "1" }
journal: { file: ${tmp.dir}/journal.sqlite }
`,
    );
    const r = await mizan(['run', file, '--duration', '4'], { cwd: tmp.dir });
    expect(r.code, r.all).toBe(0);
    expect(r.all).toContain('(replaying the bundled data at speed 1 (looping))');
    expect(r.all).not.toMatch(/replay unavailable|could not be loaded/);
  });
});
