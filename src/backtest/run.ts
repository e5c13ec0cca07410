/**
 * `runBacktest(config, options)`: loads and checks the data, builds the harness (setup.ts), then
 * walks every market's candles in time order on one simulated clock. Per candle close T:
 *   1. if the account has an order resting or a margin position open in that market, the candle's
 *      path is played into the simulated exchange (fills, stops, margin triggers: fill-model.ts);
 *   2. the clock moves to T, the market's book view to the close, and the closed candle goes to the
 *      strategies (synchronously when their handlers are); intents go through risk and execution;
 *      orders placed now reach the exchange at the next open;
 *   3. with a margin position open in that market, the margin monitor evaluates it at the close;
 *   4. after every market closing at T has been handled, the equity is sampled (plain numbers).
 * The first sample is the equity at the first moment at or after `from` (a candle close or a
 * schedule tick), taken before any strategy acts then: the base of the total return is the account
 * before the run's first decision (its fees and fills come after it).
 * Candles before `from` warm the strategies up; their intents are denied (rule `warmup`).
 */
import { silentLogger } from '../core/logger.js';
import type { MizanConfig } from '../config/schema.js';
import { loadStrategyInstances } from '../runtime/strategy-loader.js';
import { withParams } from './params-override.js';
import { loadData } from './load.js';
import { buildResult, harnessRecord, type BacktestResult } from './result.js';
import { BACKTEST_ACCOUNT, buildHarness } from './setup.js';
import type { DataReport, Series } from './data.js';
import { parseMarginPosition } from '../exchange/parse/margin.js';
import { BacktestSchedules } from './schedules.js';
import { unpricedBalances } from './equity-value.js';
import { closeAtEnd } from './close-at-end.js';
import { declaredFeed, walk, walkContext } from './walk.js';
import type { BacktestOptions } from './options.js';

export type { BacktestOptions } from './options.js';
export { withParams } from './params-override.js';

export interface BacktestRun {
  result: BacktestResult;
  series: Series[];
  /** Candles walked (warm-up included). */
  candles: number;
}

/** Thrown when the data cannot support the run (a market without a candle in range). */
export class BacktestDataError extends Error {
  constructor(readonly report: DataReport) {
    super(`backtest data is missing:\n  ${report.problems.join('\n  ')}`);
    this.name = 'BacktestDataError';
  }
}

export async function runBacktest(config: MizanConfig, opts: BacktestOptions = {}): Promise<BacktestRun> {
  const bt = config.backtest;
  if (!bt) throw new Error('the config has no backtest section (data, from, to)');
  if (opts.detail !== undefined && opts.detail !== 'full' && opts.detail !== 'summary') {
    throw new Error(`detail must be 'full' or 'summary', got ${JSON.stringify(opts.detail)}`);
  }
  const fromMs = opts.from ?? bt.from;
  const toMs = opts.to ?? bt.to;
  if (!(fromMs < toMs)) throw new Error(`backtest range is empty: from ${new Date(fromMs).toISOString()} is not before to ${new Date(toMs).toISOString()}`);
  if (bt.recordings.length > 0) {
    // A recording (backtest.data kind: book): replayed through the market-data engine (book/run.ts),
    // loaded only then (a candle backtest starts without the book engine's code).
    const { runBookBacktest } = await import('./book/run.js');
    const r = await runBookBacktest(config, opts);
    return { result: r.result, series: r.series, candles: r.events };
  }
  const logger = opts.logger ?? silentLogger;
  const instances = opts.instances ?? (await loadStrategyInstances(withParams(config, opts.params)));
  const { series, report, declared } = await loadData(config, instances, fromMs, toMs, opts);
  const h = report.ok ? buildHarness({ config, instances, series, fromMs, logger, orderRecords: opts.detail !== 'summary' }) : undefined;
  if (h) opts.onClock?.(h.clock); // log lines carry the simulated time (test/e2e/backtest-errors.test.ts)
  if (h) {
    for (const asset of unpricedBalances(config, h, series)) {
      h.unpriced.add(asset);
      report.problems.push(
        `${asset}: the starting balance cannot be valued in ${h.reference} (no market of the run converts it): it is left out of the equity and the returns`,
      );
    }
  }
  opts.onDataReport?.(report);
  if (!h) throw new BacktestDataError(report);
  const total = series.reduce((a, s) => a + s.length, 0);
  const firstClose = Math.min(...series.map((s) => (s.length > 0 ? (s.time[0]! + s.resSec) * 1000 : Infinity)));
  const schedules = new BacktestSchedules(config, instances, Math.max(fromMs, firstClose));
  const eq = await walk(walkContext({ h, series, fromMs, total, opts, schedules, advance: declaredFeed(h, declared) }));
  for (const [asset, u] of h.unvalued) {
    const at = (t: number) => new Date(t).toISOString();
    report.problems.push(
      `${asset}: left out of ${u.samples} equity sample(s) from ${at(u.from)} to ${at(u.to)}: ${u.market}, its route to ${h.reference}, had no price yet (its data starts later)`,
    );
  }
  await h.core.stop();
  await h.core.idle();
  if (bt.closeAtEnd) await closeAtEnd(h, series, eq); // strategies stopped: sell what is open at the last close (test/backtest/cli/close-at-end.test.ts)
  const lastT = h.clock.now();
  h.trades.closeOpen(lastT, (s) => h.books.get(s)?.mid());
  // Margin positions closed since the last refresh, then those still open: trades `open at end` at the last close.
  h.refreshMargin();
  for (const w of h.desks.margin.list(BACKTEST_ACCOUNT, { active: true })) {
    const p = parseMarginPosition(w);
    const mark = h.books.get(p.market)?.mid();
    if (mark) h.trades.addMargin(h.owners.owner(p) ?? 'unknown', p, h.desks.margin.costs(BACKTEST_ACCOUNT, p.id), mark, lastT);
  }
  h.desks.detach();
  const result = buildResult({
    config,
    instances,
    fromMs,
    toMs,
    h: harnessRecord(h),
    symbols: series.map((s) => s.symbol),
    candles: series.reduce((a, s) => a + s.length - s.firstIndex, 0),
    ...benchmarkOf(series.find((s) => config.strategies.some((st) => st.markets.includes(s.symbol))) ?? series[0]!),
    report,
    equity: eq.finish(),
    detail: opts.detail ?? 'full',
  });
  return { result, series, candles: total };
}

/** Buy and hold of the first market a strategy trades (a series loaded only to value an asset is not one): its open at the first candle of the run, its last close. */
function benchmarkOf(main: Series): { benchmark?: { firstPrice: number; lastPrice: number } } {
  if (main.length === 0) return {};
  const fi = Math.min(main.firstIndex, main.length - 1);
  return { benchmark: { firstPrice: main.open[fi]!, lastPrice: main.close[main.length - 1]! } };
}
