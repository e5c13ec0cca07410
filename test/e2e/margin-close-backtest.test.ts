/**
 * A marginClose without a price in a backtest, through the CLI (`node bin/mizan.js backtest <config>
 * --out <dir>`): a position opened on the first candle and closed without a price after the third
 * closes at the fourth candle's open, after a 1 % gap against it (long: down, short: up) and after
 * a 4 % gap in its favour. Slippage 0, so the exits are the opens. The rules themselves:
 * test/backtest/margin-close-market.test.ts.
 */
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO, tempDir } from './cli.js';

const FIX = resolve(REPO, 'test/e2e/fixtures');
const tmp = tempDir('mizan-e2e-margin-close-');
afterAll(() => tmp.remove());

/** Six 5-minute candles: three at 100, then three at `next`. */
function candles(next: number): string {
  const t0 = Date.parse('2023-01-03T00:00:00Z') / 1000;
  const rows = [100, 100, 100, next, next, next].map((p, i) => `${t0 + i * 300},${p},${p},${p},${p},1000`);
  return ['time,open,high,low,close,volume', ...rows].join('\n') + '\n';
}

async function backtest(name: string, long: boolean, next: number): Promise<string[]> {
  const csv = tmp.file(`${name}.csv`, candles(next));
  const cfg = tmp.file(
    `${name}.yaml`,
    [
      'mode: backtest',
      'strategies:',
      '  - name: gap',
      `    strategy: ${join(FIX, 'margin-close-gap.ts')}`,
      '    markets: [BTCUSDT]',
      '    resolution: "300s"',
      `    params: { long: ${long}, closeAfter: 2 }`,
      'backtest:',
      `  data: [{ symbol: BTCUSDT, file: ${csv} }]`,
      '  from: 2023-01-03T00:00:00Z',
      '  to: 2023-01-03T00:30:00Z',
      '  balances: { USDT: 5000 }',
      '  slippagePct: 0',
      'journal: { file: ":memory:" }',
      '',
    ].join('\n'),
  );
  const r = await mizan(['backtest', cfg, '--out', join(tmp.dir, name)]);
  expect(r.code, r.all).toBe(0);
  const result = JSON.parse(tmp.read(`${name}/result.json`)) as { trades: { side: string; exit: string; exitPrice: string; exitTime: number }[] };
  return result.trades.map((t) => `${t.side} ${t.exit} @${t.exitPrice} at ${new Date(t.exitTime).toISOString().slice(11, 16)}`);
}

describe('mizan backtest: a marginClose without a price', () => {
  it('closes at the next open: against the position by 1 %, and in its favour by 4 %', async () => {
    const [down, up, favourLong, favourShort] = await Promise.all([
      backtest('long-down', true, 99),
      backtest('short-up', false, 101),
      backtest('long-up', true, 104),
      backtest('short-down', false, 96),
    ]);
    expect(down).toEqual(['long signal @99 at 00:15']);
    expect(up).toEqual(['short signal @101 at 00:15']);
    expect(favourLong).toEqual(['long signal @104 at 00:15']);
    expect(favourShort).toEqual(['short signal @96 at 00:15']);
  }, 60_000);
});
