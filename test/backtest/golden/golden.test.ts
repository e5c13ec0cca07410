/**
 * Golden backtests: each example strategy on the bundled real BTC/USDT 5-minute candles, with its
 * trades (times, prices, quantities, PnL, fees), orders and metrics pinned in a JSON fixture next to
 * this file. Any change to fills, fees or metrics shows up here and in review.
 * Rewrite the fixtures after an intended change: UPDATE_GOLDEN=1 npx vitest run test/backtest/golden
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { runBacktest } from '../../../src/backtest/run.js';
import { REPO } from '../helpers.js';
import { fixture, golden } from './pin.js';


interface Case {
  name: string;
  strategy: string;
  from: string;
  to: string;
  /** The YAML of the strategy instance after `strategy:`. */
  instance: string;
  fees?: string;
}

const CASES: Case[] = [
  { name: 'sma-cross', strategy: 'sma-cross', from: '2023-01-03', to: '2023-01-17', instance: 'params: { fast: 10, slow: 30, fraction: 0.5 }' },
  { name: 'rsi-reversion', strategy: 'rsi-reversion', from: '2023-01-03', to: '2023-01-17', instance: 'params: { period: 14, oversold: 30, overbought: 70, fraction: 0.25 }' },
  // grid sells the quantity its buy filled; a maker fee taken in BTC would leave it short of that
  // (strategies/grid.ts), so this case trades at a zero maker fee.
  { name: 'grid', strategy: 'grid', from: '2023-01-16', to: '2023-01-20', instance: 'params: { levels: 6, spacingPct: 0.15, orderQuote: 500 }', fees: '{ maker: 0, taker: 0.0025 }' },
  { name: 'market-maker', strategy: 'market-maker', from: '2023-01-10', to: '2023-01-12', instance: 'params: { orderQuote: 500, minSpreadBps: 20 }' },
  { name: 'margin-trend', strategy: 'margin-trend', from: '2023-01-10', to: '2023-01-12', instance: 'params: { fast: 12, slow: 26, collateral: 500 }' },
  {
    name: 'otc-dca',
    strategy: 'otc-dca',
    from: '2023-01-03',
    to: '2023-01-17',
    instance: 'schedule: { cron: "30 */4 * * *", timezone: Asia/Tehran }\n    params: { amount: 100, maxBuys: 60 }',
  },
];

function configOf(c: Case) {
  const text = `mode: backtest
strategies:
  - name: ${c.name}
    strategy: ${c.strategy}
    markets: [BTCUSDT]
    resolution: "300s"
    ${c.instance}
backtest:
  data: [ { symbol: BTCUSDT, file: backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz } ]
  from: ${c.from}
  to: ${c.to}
  balances: { USDT: 10000 }
  slippagePct: 0.05
${c.fees ? `  fees: ${c.fees}\n` : ''}journal: { file: ":memory:" }
`;
  return parseConfig(text, { baseDir: REPO });
}

describe('golden backtests on the bundled real data', () => {
  for (const c of CASES) {
    it(`${c.name} gives its pinned trades and metrics`, async () => {
      const run = await runBacktest(configOf(c));
      const got = golden(run.result);
      const want = fixture(c.name, got);
      // Every example strategy must actually trade on the data: on this run's result, not the fixture.
      expect(got.summary.trades).toBeGreaterThan(0);
      expect(got.orders.filter((o) => o.filled !== '0').length).toBeGreaterThan(0);
      expect(got.summary).toEqual(want.summary);
      expect(got.trades).toEqual(want.trades);
      expect(got.orders).toEqual(want.orders);
      expect(got.finalBalances).toEqual(want.finalBalances);
      expect(got.metrics).toEqual(want.metrics);
    }, 60_000);
  }
});
