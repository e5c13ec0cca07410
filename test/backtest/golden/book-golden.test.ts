/**
 * The golden order-book backtest: config/book-backtest.yaml (the market maker on the bundled
 * hftbacktest capture, queue model risk-averse, 50 ms latencies), with its trades, orders, final
 * balances, metrics and book metrics (fills, fill ratio, queue time, adverse selection) pinned in
 * book-market-maker.json next to this file. A change to the capture's conversion, the replay, the
 * fill model or the account shows up here; work on the replay's speed must leave it as it is.
 * Rewrite the fixture after an intended change: UPDATE_GOLDEN=1 npx vitest run test/backtest/golden
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { runBookBacktest } from '../../../src/backtest/book/run.js';
import type { BacktestResult } from '../../../src/backtest/result.js';
import { REPO } from '../helpers.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const FILE = join(HERE, 'book-market-maker.json');

function golden(r: BacktestResult) {
  const metrics: Record<string, number | null> = {};
  for (const [k, m] of Object.entries(r.metrics)) if (m && typeof m === 'object' && 'value' in m) metrics[k] = m.value as number | null;
  return {
    summary: r.summary,
    metrics,
    book: r.book,
    finalBalances: r.finalBalances,
    trades: r.trades,
    orders: r.orders.map((o) => ({ side: o.side, type: o.type, price: o.price, quantity: o.quantity, filled: o.filled, avgPrice: o.avgPrice, fee: o.fee, state: o.state, createdAt: o.createdAt, updatedAt: o.updatedAt })),
  };
}

it('the bundled book backtest gives its pinned fills, orders, metrics and book metrics', async () => {
  const run = await runBookBacktest(await loadConfig(join(REPO, 'config/book-backtest.yaml')));
  const got = JSON.parse(JSON.stringify(golden(run.result))) as ReturnType<typeof golden>;
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(FILE)) {
    if (process.env.UPDATE_GOLDEN !== '1') throw new Error(`${FILE} is missing: run with UPDATE_GOLDEN=1 to write it`);
    writeFileSync(FILE, JSON.stringify(got, null, 1) + '\n');
  }
  const want = JSON.parse(readFileSync(FILE, 'utf8')) as ReturnType<typeof golden>;
  expect(run.events).toBe(32_888);
  // The market maker must quote and get fills on the capture: on this run's result, not the fixture.
  expect(got.orders.length).toBeGreaterThan(50);
  expect(got.book?.fills).toBeGreaterThan(0);
  expect(got.summary).toEqual(want.summary);
  expect(got.book).toEqual(want.book);
  expect(got.trades).toEqual(want.trades);
  expect(got.orders).toEqual(want.orders);
  expect(got.finalBalances).toEqual(want.finalBalances);
  expect(got.metrics).toEqual(want.metrics);
}, 120_000);
