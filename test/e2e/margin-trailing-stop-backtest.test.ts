/**
 * Issue #35 item 3 on the user's path: a strategy trails a margin position's stop loss with the
 * `marginBrackets` intent (the exchange's `PATCH positions/{id}/sltp`) in a backtest run through the
 * CLI (`node bin/mizan.js backtest <config> --out <dir>`). The price rises from 100 to 112, the
 * stop follows 3 % under every new close (above the open price once in profit), and the fall that
 * follows closes the position at the exchange by its stop loss (108.64 crossed at 108), in profit.
 * A first open with riskCoef 12 is denied by risk, naming the margin market's bounds.
 */
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO, tempDir } from './cli.js';

const FIX = resolve(REPO, 'test/e2e/fixtures');
const tmp = tempDir('mizan-e2e-margin-trail-');
afterAll(() => tmp.remove());

describe('mizan backtest: a trailing stop through marginBrackets', () => {
  it('moves the stop with the price and exits by it, in profit', async () => {
    const t0 = Date.parse('2023-01-03T00:00:00Z') / 1000;
    const closes = [100, 100, 104, 108, 112, 110, 108, 100];
    const rows = closes.map((p, i) => `${t0 + i * 300},${p},${p},${p},${p},1000`);
    const csv = tmp.file('trail.csv', ['time,open,high,low,close,volume', ...rows].join('\n') + '\n');
    const cfg = tmp.file(
      'trail.yaml',
      [
        'mode: backtest',
        'strategies:',
        '  - name: trail',
        `    strategy: ${join(FIX, 'margin-trailing-stop.ts')}`,
        '    markets: [BTCUSDT]',
        '    resolution: "300s"',
        '    params: { trailPct: 3, badRiskCoef: 12 }',
        'backtest:',
        `  data: [{ symbol: BTCUSDT, file: ${csv} }]`,
        '  from: 2023-01-03T00:00:00Z',
        '  to: 2023-01-03T00:40:00Z',
        '  balances: { USDT: 5000 }',
        '  slippagePct: 0',
        'journal: { file: ":memory:" }',
        '',
      ].join('\n'),
    );
    const r = await mizan(['backtest', cfg, '--out', join(tmp.dir, 'out')]);
    expect(r.code, r.all).toBe(0);
    const result = JSON.parse(tmp.read('out/result.json')) as Record<string, unknown> & { trades: Record<string, unknown>[] };
    expect(result.trades.length, JSON.stringify(result.trades)).toBe(1);
    // Stops sent: 100.88 (at 104), 104.76 (108), 108.64 (112); at 110 the stop stays. The candle at 108 crosses it.
    expect(result.trades[0]).toMatchObject({ side: 'long', entryPrice: '100', exit: 'stop loss', exitPrice: '108' });
    expect(Number(result.trades[0]!.pnl)).toBeGreaterThan(0);
    // The only denial: the open with riskCoef 12, out of the margin market's bounds (no sltp refused).
    expect(result.denied, JSON.stringify(result.denied)).toMatchObject({ total: 1, byRule: [{ rule: 'marketLimits' }] });
    expect(JSON.stringify(result.denied)).toContain("riskCoef 12 is outside the exchange's bounds for BTCUSDT: 2 to 10 in steps of 0.5");
  }, 60_000);
});
