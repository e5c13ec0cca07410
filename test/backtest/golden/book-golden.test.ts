/**
 * The golden order-book backtest: config/book-backtest.yaml (the market maker on the bundled
 * hftbacktest capture, queue model risk-averse, 50 ms latencies), with its trades, orders, final
 * balances, metrics and book metrics (fills, fill ratio, queue time, adverse selection) pinned in
 * book-market-maker.json next to this file. A change to the capture's conversion, the replay, the
 * fill model or the account shows up here; work on the replay's speed must leave it as it is.
 * Rewrite the fixture after an intended change: UPDATE_GOLDEN=1 npx vitest run test/backtest/golden
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { runBookBacktest } from '../../../src/backtest/book/run.js';
import { REPO } from '../helpers.js';
import { fixture, golden } from './pin.js';

it('the bundled book backtest gives its pinned fills, orders, metrics and book metrics', async () => {
  const run = await runBookBacktest(await loadConfig(join(REPO, 'config/book-backtest.yaml')));
  const got = golden(run.result);
  const want = fixture('book-market-maker', got);
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
