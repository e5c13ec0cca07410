/**
 * Issue 16 item 23: a strategy kept in a folder outside this checkout, with no package.json anywhere
 * above it, written in TypeScript, importing mizan as `mizan` and a helper of its own next to it:
 * `mizan check` imports it and checks its parameters, `mizan backtest` runs it, all from that folder
 * as the working directory. (Before: "Cannot require() ES Module … in a cycle".)
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO, tempDir } from './cli.js';

const tmp = tempDir('mizan-outside-');
afterAll(() => tmp.remove());

const STRATEGY = `import { defineStrategy, fraction, market, qty } from 'mizan';
import { crossed } from './lib/cross.js';

export default defineStrategy({
  name: 'outside-cross',
  description: 'Buys when the close crosses above its mean of the last n closes, sells when below.',
  params: { n: { type: 'int', default: 12, min: 2, max: 500 } },
  create(ctx) {
    const closes: number[] = [];
    return {
      onCandle(symbol, bar) {
        closes.push(bar.c);
        if (closes.length > ctx.params.n + 1) closes.shift();
        if (closes.length <= ctx.params.n) return;
        const held = ctx.position(symbol)?.quantity;
        const dir = crossed(closes);
        if (dir > 0 && (!held || held.isZero())) return market('BUY', symbol, fraction(0.5));
        if (dir < 0 && held?.gt(0)) return market('SELL', symbol, qty(held));
      },
    };
  },
});
`;

const HELPER = `/** +1 when the last close crossed above the mean of the ones before it, -1 below, 0 otherwise. */
export function crossed(closes: readonly number[]): number {
  const prev = closes.slice(0, -1);
  const mean = prev.reduce((a, b) => a + b, 0) / prev.length;
  const last = closes[closes.length - 1]!;
  const before = closes[closes.length - 2]!;
  if (before <= mean && last > mean) return 1;
  if (before >= mean && last < mean) return -1;
  return 0;
}
`;

function packageJsonAbove(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json'))) return join(d, 'package.json');
    if (dirname(d) === d) return undefined;
  }
}

describe('a TypeScript strategy in a folder outside the checkout, without package.json', { timeout: 120_000 }, () => {
  it('is checked by mizan check and traded by mizan backtest, run from that folder', async () => {
    expect(packageJsonAbove(tmp.dir)).toBeUndefined();
    expect(tmp.dir.startsWith(REPO)).toBe(false);
    mkdirSync(join(tmp.dir, 'lib'));
    tmp.file('my-cross.ts', STRATEGY);
    tmp.file('lib/cross.ts', HELPER);
    const data = join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz');
    tmp.file(
      'bt.yaml',
      `mode: backtest
strategies:
  - { name: mine, strategy: ./my-cross.ts, markets: [BTCUSDT], resolution: "300s", params: { n: 24 } }
backtest:
  data: [{ symbol: BTCUSDT, file: ${data} }]
  from: 2023-01-03
  to: 2023-01-20
  balances: { USDT: 10000 }
journal: { file: ":memory:" }
logging: { level: warn }
`,
    );
    const check = await mizan(['check', 'bt.yaml'], { cwd: tmp.dir });
    expect(check.code, check.all).toBe(0);
    expect(check.stdout).toMatch(/mine\s+outside-cross\s+BTCUSDT\s+300s\s+n=24/);

    const bad = tmp.file('bad.yaml', readFileSync(join(tmp.dir, 'bt.yaml'), 'utf8').replace('params: { n: 24 }', 'params: { m: 24 }'));
    const r = await mizan(['check', bad], { cwd: tmp.dir });
    expect(r.code).toBe(1);
    expect(r.all).toContain('strategies[0].params.m: unknown parameter "m"; did you mean "n"?');

    const bt = await mizan(['backtest', 'bt.yaml', '--out', 'out'], { cwd: tmp.dir });
    expect(bt.code, bt.all).toBe(0);
    const result = JSON.parse(readFileSync(join(tmp.dir, 'out/result.json'), 'utf8')) as { summary: { trades: number; orders: number } };
    expect(result.summary.orders).toBeGreaterThan(2);
    expect(result.summary.trades).toBeGreaterThan(0);
  });
});
