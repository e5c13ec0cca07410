/**
 * backtest.closeAtEnd on the example strategies over the bundled real candles: nothing is left
 * `open at end` (spot holdings sold, margin positions closed, resting orders cancelled), and the
 * trades' pnl still adds up to the change of the equity (issue 16 item 15).
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { runBacktest } from '../../src/backtest/run.js';
import { REPO } from './helpers.js';

const CASES: [string, string, string, string, string][] = [
  ['grid', 'params: { levels: 6, spacingPct: 0.15, orderQuote: 500 }', '2023-01-16', '2023-01-20', '{ maker: 0, taker: 0.0025 }'],
  ['margin-trend', 'params: { fast: 12, slow: 26, collateral: 500 }', '2023-01-10', '2023-01-12', ''],
  ['sma-cross', 'params: { fast: 10, slow: 30, fraction: 0.5 }', '2023-01-03', '2023-01-17', ''],
];

function config(name: string, inst: string, from: string, to: string, fees: string, closeAtEnd: boolean) {
  return parseConfig(
    `mode: backtest
strategies:
  - name: ${name}
    strategy: ${name}
    markets: [BTCUSDT]
    resolution: "300s"
    ${inst}
backtest:
  data: [ { symbol: BTCUSDT, file: backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz } ]
  from: ${from}
  to: ${to}
  balances: { USDT: 10000 }
  slippagePct: 0.05
  closeAtEnd: ${closeAtEnd}
${fees ? `  fees: ${fees}\n` : ''}journal: { file: ":memory:" }
`,
    { baseDir: REPO },
  );
}

describe('backtest.closeAtEnd on the examples', () => {
  for (const [name, inst, from, to, fees] of CASES) {
    it(`${name}: what was open at the end is closed at the last close, and pnl still adds up`, async () => {
      const before = (await runBacktest(config(name, inst, from, to, fees, false))).result;
      expect(before.trades.some((t) => t.exit === 'open at end')).toBe(true);
      const r = (await runBacktest(config(name, inst, from, to, fees, true))).result;
      expect(r.trades.some((t) => t.exit === 'open at end')).toBe(false);
      expect(r.trades.at(-1)!.exit).toBe('close at end');
      expect(r.trades.length).toBe(before.trades.length);
      // Everything but fee dust is cash again, nothing locked.
      expect(Number(r.finalBalances.BTC!.value)).toBeLessThan(0.0001);
      expect(r.finalBalances.USDT!.locked).toBe('0');
      expect(r.summary.endEquity).toBeCloseTo(Number(r.finalBalances.USDT!.value) + Number(r.finalBalances.BTC!.value) * 17000, -1);
      const pnl = r.trades.reduce((a, t) => a + Number(t.pnl), 0);
      expect(Math.abs(pnl - (r.summary.endEquity - r.summary.startEquity))).toBeLessThan(0.5);
    }, 60_000);
  }
});
