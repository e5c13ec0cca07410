/**
 * The accounting invariant (ARCHITECTURE.md, "One kernel"): every trade's PnL, open trades marked at
 * the last price (and the fee dust a trade left revalued with it), adds up exactly (in decimal) to
 * the change of the account's value. Each run starts with USDT only, so no balance is left that
 * no strategy traded. The account's end value is computed here from the simulated exchange's ledger
 * (`finalBalances`) at the markets' last prices, independently of the trade book.
 *
 * Runs: every bundled example strategy, a bracket strategy with a stop loss only and re-entries
 * after long flat periods, one with a stop loss and a take profit, one that sells while its bracket
 * rests, margin-trend (closed at the end), and a two-strategy config.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Decimal } from '../../src/core/decimal.js';
import { parseConfig } from '../../src/config/load.js';
import { runBacktest } from '../../src/backtest/run.js';
import type { BacktestResult } from '../../src/backtest/result.js';
import { REPO } from './helpers.js';

const FIX = join(REPO, 'test/backtest/fixtures');

interface Run {
  name: string;
  from: string;
  to: string;
  /** The strategies: YAML list items, indented under `strategies:`. */
  strategies: string;
  extra?: string;
}

const one = (name: string, strategy: string, params: string, more = '') =>
  `  - name: ${name}\n    strategy: ${strategy}\n    markets: [BTCUSDT]\n    resolution: "300s"\n    params: ${params}\n${more}`;

const RUNS: Run[] = [
  { name: 'sma-cross', from: '2023-01-03', to: '2023-01-17', strategies: one('sma', 'sma-cross', '{ fast: 10, slow: 30, fraction: 0.5 }') },
  {
    name: 'rsi-reversion',
    from: '2023-01-03',
    to: '2023-01-17',
    strategies: one('rsi', 'rsi-reversion', '{ period: 14, oversold: 30, overbought: 70, fraction: 0.25 }'),
  },
  {
    name: 'grid',
    from: '2023-01-16',
    to: '2023-01-20',
    strategies: one('grid', 'grid', '{ levels: 6, spacingPct: 0.15, orderQuote: 500 }'),
    extra: '  fees: { maker: 0, taker: 0.0025 }\n',
  },
  { name: 'market-maker', from: '2023-01-10', to: '2023-01-12', strategies: one('mm', 'market-maker', '{ orderQuote: 500, minSpreadBps: 20 }') },
  {
    name: 'margin-trend',
    from: '2023-01-10',
    to: '2023-01-12',
    strategies: one('mt', 'margin-trend', '{ fast: 12, slow: 26, collateral: 500 }'),
    extra: '  closeAtEnd: true\n',
  },
  {
    name: 'otc-dca',
    from: '2023-01-03',
    to: '2023-01-17',
    strategies: one('dca', 'otc-dca', '{ amount: 100, maxBuys: 60 }', '    schedule: { cron: "30 */4 * * *", timezone: Asia/Tehran }\n'),
  },
  {
    name: 'bracket stop, re-entries after long flat periods',
    from: '2023-01-03',
    to: '2023-01-20',
    strategies: one('brk', join(FIX, 'bracket-reentry.ts'), '{}'),
  },
  {
    name: 'bracket stop and take profit',
    from: '2023-01-03',
    to: '2023-01-20',
    strategies: one('both', join(FIX, 'bracket-both.ts'), '{ pct: 1, every: 12 }'),
  },
  {
    name: 'sells while its bracket rests',
    from: '2023-01-03',
    to: '2023-01-20',
    strategies: one('sell', join(FIX, 'bracket-both.ts'), '{ pct: 2, every: 6, sellAfter: 3 }'),
  },
  {
    name: 'two strategies on one market',
    from: '2023-01-03',
    to: '2023-02-09',
    strategies:
      one('sma', 'sma-cross', '{ fast: 10, slow: 30, fraction: 0.5 }') +
      one('rsi', 'rsi-reversion', '{ period: 14, oversold: 30, overbought: 70, fraction: 0.25 }'),
  },
];

function configOf(r: Run) {
  return parseConfig(
    `mode: backtest
strategies:
${r.strategies}backtest:
  data: [ { symbol: BTCUSDT, file: backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz } ]
  from: ${r.from}
  to: ${r.to}
  balances: { USDT: 10000 }
  slippagePct: 0.05
${r.extra ?? ''}journal: { file: ":memory:" }
`,
    { baseDir: REPO },
  );
}

/** The account's value in USDT from the ledger's balances at the markets' last prices. */
function ledgerValue(r: BacktestResult): Decimal {
  let v = new Decimal(0);
  for (const [asset, b] of Object.entries(r.finalBalances)) {
    const qty = new Decimal(b.value);
    if (qty.isZero()) continue;
    if (asset === 'USDT') v = v.plus(qty);
    else {
      const px = r.accounting.lastPrices[`${asset}USDT`];
      if (!px) throw new Error(`${asset} is held at the end and has no USDT market price`);
      v = v.plus(qty.mul(px));
    }
  }
  return v;
}

describe("the accounting invariant: the trades add up to the account's change, exactly", () => {
  for (const run of RUNS) {
    it(
      run.name,
      async () => {
        const { result: r } = await runBacktest(configOf(run));
        expect(r.summary.trades, 'the run trades').toBeGreaterThan(0);
        expect(Object.keys(r.accounting.pnl)).toEqual(['USDT']);
        const trades = new Decimal(r.accounting.pnl.USDT!);
        const change = ledgerValue(r).minus(10000);
        expect(trades.toFixed()).toBe(change.toFixed());
        // The trades listed are the ones summed (their pnl rounded to 15 significant digits).
        const listed = r.trades.reduce((a, t) => a.plus(t.pnl), new Decimal(0));
        expect(listed.minus(trades).abs().toNumber()).toBeLessThan(1e-9 * Math.max(1, r.trades.length));
      },
      120_000,
    );
  }
});
