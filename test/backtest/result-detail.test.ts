/**
 * `runBacktest(…, { detail: 'metrics' })`, what every sweep trial runs: the same run and the same
 * numbers as a full result, without the order records, plot series and breakdown rows nobody in a
 * sweep reads.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { runBacktest } from '../../src/backtest/run.js';
import { REPO } from './helpers.js';

function config(strategy: string, params: string, from: string, to: string) {
  return parseConfig(
    `mode: backtest
strategies:
  - { name: s, strategy: ${strategy}, markets: [BTCUSDT], resolution: "300s", params: ${params} }
backtest:
  data: [ { symbol: BTCUSDT, file: backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz } ]
  from: ${from}
  to: ${to}
  balances: { USDT: 10000 }
journal: { file: ":memory:" }
`,
    { baseDir: REPO },
  );
}

describe("runBacktest detail: 'metrics'", () => {
  // rsi-reversion plots and trades spot orders; margin-trend's orders are margin positions.
  for (const [strategy, params, from, to] of [
    ['rsi-reversion', '{ period: 14, oversold: 30, overbought: 70, fraction: 0.25 }', '2023-01-03', '2023-01-17'],
    ['margin-trend', '{ fast: 12, slow: 26, collateral: 500 }', '2023-01-10', '2023-01-12'],
  ] as const) {
    it(`${strategy}: the same summary, metrics, trades, equity and balances; no order records, plots or breakdown rows`, async () => {
      const full = (await runBacktest(config(strategy, params, from, to))).result;
      const lean = (await runBacktest(config(strategy, params, from, to), { detail: 'metrics' })).result;
      expect(full.orders.length).toBeGreaterThan(0);
      expect(full.summary.orders).toBe(full.orders.length);
      expect(lean.summary).toEqual(full.summary);
      expect(lean.metrics).toEqual(full.metrics);
      expect(lean.trades).toEqual(full.trades);
      expect(lean.equity).toEqual(full.equity);
      expect(lean.errors).toEqual(full.errors);
      expect(lean.finalBalances).toEqual(full.finalBalances);
      expect(lean.fees).toEqual(full.fees);
      expect(lean.orders).toEqual([]);
      expect(lean.plots).toEqual([]);
      expect(lean.breakdowns).toEqual({ reference: full.breakdowns.reference, byStrategy: [], byMarket: [], byExit: [] });
      if (strategy === 'rsi-reversion') expect(full.plots.length).toBeGreaterThan(0);
    });
  }
});
