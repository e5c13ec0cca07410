/**
 * A strategy that plots a name it did not declare, run by `mizan backtest` in a child process: the
 * handler error names the plot and what is declared, the run reports it and exits with code 1; the
 * declared series is in result.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { oneDayConfig, runCli, tempDir, writeFile } from './run-cli.js';

const STRATEGY = `import { defineStrategy } from 'mizan';

export default defineStrategy({
  name: 'plotter',
  description: 'plots the close, and once a typo',
  params: {},
  plots: { close: { pane: 'price' }, spread: { pane: 'spread', levels: [0] } },
  create(ctx) {
    let n = 0;
    return {
      onCandle(_symbol, bar) {
        ctx.plot('close', bar.c);
        ctx.plot('spread', bar.h - bar.l);
        if (++n === 50) ctx.plot('closee', bar.c);
      },
    };
  },
});
`;

describe('ctx.plot of an undeclared name in mizan backtest', { timeout: 120_000 }, () => {
  it('is a handler error naming the name (exit 1); the declared series reach result.json', async () => {
    const dir = tempDir();
    writeFile(dir, 'plotter.ts', STRATEGY);
    const file = writeFile(dir, 'plot.yaml', oneDayConfig('plotter.ts', 'p'));
    const out = join(dir, 'out');
    const r = await runCli(['backtest', file, '--out', out], { cwd: dir, timeoutMs: 110_000 });
    expect(r.stdout).toContain(`p.onCandle: Error: ctx.plot("closee"): not declared in the strategy's plots (declared: close, spread)`);
    expect(r.code).toBe(1);
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as {
      plots: { name: string; pane: string; levels: number[]; times: number[] }[];
      summary: { candles: number };
    };
    expect(result.plots.map((p) => [p.name, p.pane, p.levels])).toEqual([
      ['close', 'price', []],
      ['spread', 'spread', [0]],
    ]);
    // No warm-up declared: the first point is at the first candle's close after `from`, one per candle.
    expect(result.plots[0]!.times.length).toBe(result.summary.candles);
  });
});
