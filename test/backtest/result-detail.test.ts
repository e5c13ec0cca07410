/**
 * `runBacktest(…, { detail: 'summary' })`, what every sweep trial and `mizan backtest` without
 * `--out` run: the same run and the same numbers as a full result, without the order records and
 * plot series that neither a sweep row nor the terminal summary reads.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { runBacktest } from '../../src/backtest/run.js';
import { BACKTEST_RETAINED_ORDERS } from '../../src/backtest/setup.js';
import { cancel, market, qty } from '../../src/strategy/builders.js';
import { config as minuteConfig, newLog, REPO, scripted, writeCandles, type Ohlcv, type Script } from './helpers.js';

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

describe("runBacktest detail: 'summary'", () => {
  // rsi-reversion plots and trades spot orders; margin-trend's orders are margin positions.
  for (const [strategy, params, from, to] of [
    ['rsi-reversion', '{ period: 14, oversold: 30, overbought: 70, fraction: 0.25 }', '2023-01-03', '2023-01-17'],
    ['margin-trend', '{ fast: 12, slow: 26, collateral: 500 }', '2023-01-10', '2023-01-12'],
  ] as const) {
    it(`${strategy}: the same summary, metrics, breakdowns, trades, equity and balances; no order records or plots`, async () => {
      const full = (await runBacktest(config(strategy, params, from, to))).result;
      const lean = (await runBacktest(config(strategy, params, from, to), { detail: 'summary' })).result;
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
      expect(lean.breakdowns).toEqual(full.breakdowns);
      expect(lean.denied).toEqual(full.denied);
      expect(lean.data).toEqual(full.data);
      if (strategy === 'rsi-reversion') expect(full.plots.length).toBeGreaterThan(0);
    });
  }

  it('more orders than it keeps in memory: cancels of long-final orders, denials and the order count are the same', async () => {
    // A buy and a sell every two minutes: 2,400 orders, more than the BACKTEST_RETAINED_ORDERS final
    // orders a summary run keeps. Near the end the strategy cancels its first order (final, long
    // dropped from memory there) and an id that was never an order.
    const n = 2 * (BACKTEST_RETAINED_ORDERS + 200);
    const rows: Ohlcv[] = Array.from({ length: n + 10 }, (_, i) => {
      const p = 100 + (i % 7);
      return [p, p + 1, p - 1, p, 1000];
    });
    const file = writeCandles(rows);
    const run = async (detail: 'full' | 'summary') => {
      const ids: string[] = [];
      const log = newLog();
      const at: Script['at'] = {};
      for (let k = 0; k < n; k++) at[k] = () => market(k % 2 === 0 ? 'BUY' : 'SELL', 'BTCUSDT', qty('0.2'));
      at[n + 2] = () => [cancel(ids[0]!), cancel('bt-never-placed')];
      const s = scripted({ at, log });
      const inner = s.definition.create;
      s.definition = {
        ...s.definition,
        create(ctx: Parameters<typeof inner>[0]) {
          const h = inner(ctx);
          return { ...h, onOrder: (u: Parameters<NonNullable<typeof h.onOrder>>[0]) => (ids.length === 0 && ids.push(u.order.clientOrderId), h.onOrder?.(u)) };
        },
      } as never;
      const cfg = minuteConfig(file, { rows: rows.length, balances: '{ USDT: 10000, BTC: 1 }' });
      const { result } = await runBacktest(cfg, { instances: [s], detail });
      return { result, denials: log.denials, firstId: ids[0] };
    };
    const full = await run('full');
    const lean = await run('summary');
    expect(full.result.summary.orders).toBeGreaterThan(2 * BACKTEST_RETAINED_ORDERS);
    expect(full.result.orders).toHaveLength(full.result.summary.orders);
    // Every order once, in the order placed, the first one included (recorded as it ended, long
    // before the run did; the execution engine no longer holds it).
    const ids = full.result.orders.map((o) => o.clientOrderId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toBe(full.firstId);
    expect(full.result.orders.every((o, i, all) => i === 0 || o.createdAt >= all[i - 1]!.createdAt)).toBe(true);
    expect(full.result.orders.filter((o) => o.state === 'filled')).toHaveLength(ids.length);
    expect(lean.result.summary).toEqual(full.result.summary);
    expect(lean.result.denied).toEqual(full.result.denied);
    expect(lean.denials).toEqual(full.denials);
    // Only the id that never was an order is refused, in both.
    expect(full.denials).toEqual(['ownership: order bt-never-placed is not an order of s']);
    expect(lean.result.trades).toEqual(full.result.trades);
  });

  it('refuses a detail it does not know, naming it', async () => {
    const c = config('rsi-reversion', '{ period: 14, oversold: 30, overbought: 70, fraction: 0.25 }', '2023-01-03', '2023-01-04');
    await expect(runBacktest(c, { detail: 'metrics' as 'full' })).rejects.toThrow(`detail must be 'full' or 'summary', got "metrics"`);
  });

  it('mizan backtest prints the same summary without --out (which builds no order record) as with it', async () => {
    const run = (args: string[]) =>
      promisify(execFile)(process.execPath, [join(REPO, 'bin/mizan.js'), 'backtest', 'config/backtest.yaml', ...args], {
        cwd: REPO,
        env: { ...process.env, NO_COLOR: '1' },
      });
    const out = join(mkdtempSync(join(tmpdir(), 'mizan-detail-')), 'out');
    const [lean, full] = await Promise.all([run([]), run(['--out', out])]);
    expect(full.stdout).toContain('wrote ');
    expect(lean.stdout).toMatch(/Trades\s+[1-9]/);
    expect(lean.stdout).toBe(full.stdout.replace(/^wrote .*\n/m, ''));
  }, 60_000);
});
