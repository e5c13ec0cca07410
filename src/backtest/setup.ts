/**
 * Composition of one backtest: the simulated exchange and its desks (the venue), the same risk
 * engine, execution engine, portfolio and trading core as live, on a ManualClock. Only the ports
 * differ from live: the venue (SimulatedExchange + candle fill model), the books (the last close)
 * and the clock. The parts it chooses are built in harness-parts.ts.
 */
import { ManualClock, type Clock } from '../core/clock.js';
import { Decimal, incrementFromDecimals } from '../core/decimal.js';
import type { Intent, Verdict } from '../core/intents.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { MizanConfig } from '../config/schema.js';
import type { ExecutionEngine } from '../execution/engine.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { RiskEngine } from '../risk/engine.js';
import type { SimulatedExchange } from '../sim/exchange.js';
import type { MarketSpec } from '../sim/markets.js';
import type { SimDesks } from '../sim/margin/wiring.js';
import type { TradingCore, StrategyInstance } from '../kernel/trading-core.js';
import type { PositionOwners } from '../risk/margin-owners.js';
import { TradingKernel } from '../kernel/kernel.js';
import { referenceAsset } from '../kernel/reference.js';
import { parseMarginMarkets } from '../exchange/parse/margin-extra.js';
import { withMarginBounds } from '../market/margin-bounds.js';
import { parseOtcMarkets } from '../exchange/parse/otc.js';
import { withInstantBounds } from '../market/instant-bounds.js';
import type { Series } from './data.js';
import type { CandleFill } from './fill-model.js';
import type { TradeBook } from '../portfolio/trade-book.js';
import type { MarginCosts } from '../portfolio/trade-record.js';
import type { RunChanges } from './run-changes.js';
import { PlotBook } from './plots.js';
import type { BacktestVenue } from './venue.js';
import type { SpotOrderLog } from './spot-order-log.js';
import type { OrderEndingTally } from './order-endings.js';
import { CloseBook, marketView } from './views.js';
import type { KeyValueStore, MarketView } from '../core/views.js';
import type { CurrentLedger } from '../portfolio/portfolio.js';
import { MAIN_ACCOUNT } from '../core/account.js';
import { BACKTEST_ACCOUNT, BACKTEST_RETAINED_ORDERS, backtestExchange } from './backtest-exchange.js';
import { type InstantRecord, type LateKernel, backtestVenueFor, candleFillFor, marginRefresher, recordRun, runBookkeeping } from './harness-parts.js';

export { BACKTEST_ACCOUNT, BACKTEST_RETAINED_ORDERS } from './backtest-exchange.js';

/** Points kept per plot series in the result (the report draws at most 5,000 candles per page). */
const PLOT_POINTS = 5000;
/** An asset the valuer left out of samples for want of a price on its route (a market with no candle yet). */
export interface UnvaluedAsset {
  /** The route's market without a price. */
  market: string;
  /** The first and last sample times left out, ms. */
  from: number;
  to: number;
  samples: number;
}

export interface Harness {
  kernel: TradingKernel;
  clock: ManualClock;
  sim: SimulatedExchange;
  desks: SimDesks;
  fill: CandleFill;
  core: TradingCore;
  engine: ExecutionEngine;
  risk: RiskEngine;
  portfolio: Portfolio;
  trades: TradeBook;
  books: Map<string, CloseBook>;
  /** Candle i of series j has closed (the index the simulated exchange's fills of that market read). */
  candleClosed(j: number, i: number): void;
  /** Live orders of the account per market (from the sim's pushed updates). */
  live: Map<string, Set<string>>;
  /** The live-order set of a market (made when first asked; the same set the updates change). */
  liveSet(symbol: string): Set<string>;
  /** Markets with an active margin position (refreshed after margin activity). */
  marginMarkets: Set<string>;
  /** What changed since the walk last looked (events queued, balances, margin positions). */
  changes: RunChanges;
  reference: string;
  split(symbol: string): { base: string; quote: string };
  /** Re-read which markets have active margin positions; positions closed since are added to the trades. */
  refreshMargin(): void;
  /** Which strategy opened which margin position (learnt from the passed marginOpen intents). */
  owners: PositionOwners;
  /** The value of one unit of `asset` in the reference asset at the last closes, or undefined. */
  rate(asset: string): Decimal | undefined;
  /** Instant orders the exchange executed, with the strategy their fills went to. */
  instants: InstantRecord[];
  /** Why market orders were cancelled unfilled at placement, by client id. */
  orderReasons: Map<string, string>;
  /** How the spot orders ended (states, the exchange's reasons). */
  endings: OrderEndingTally;
  /** Assets held during the run that it cannot value in the reference asset (left out of the equity). */
  unpriced: Set<string>;
  /** Assets left out of some equity samples: their route's market had no price yet. */
  unvalued: Map<string, UnvaluedAsset>;
  /** The strategies' `ctx.plot` series (from `from` on). */
  plots: PlotBook;
  /** The spot orders' records (with `orderRecords`, the default). */
  spotLog?: SpotOrderLog;
}

export interface HarnessOptions {
  config: MizanConfig;
  instances: StrategyInstance[];
  series: Series[];
  fromMs: number;
  logger?: Logger;
  /**
   * Whether the result will list the run's orders (default true): a record per spot order, made as it
   * ends. False: none, and no order's last fill time is kept. Either way the execution engine keeps
   * only the last BACKTEST_RETAINED_ORDERS final orders (and the owners of the others, so a cancel
   * means the same): memory grows by a record and an owner entry per order, not by a tracked order.
   */
  orderRecords?: boolean;
}

/** A per-symbol cache of a pure function of the market's spec. */
function memo<T>(fn: (symbol: string) => T): (symbol: string) => T {
  const cache = new Map<string, T>();
  return (s) => {
    let v = cache.get(s);
    if (v === undefined && !cache.has(s)) cache.set(s, (v = fn(s)));
    return v as T;
  };
}

/** Intents before `fromMs` are denied (rule `warmup`); cancels pass: the strategies warm up on the data before the run. */
export function warmupGate(clock: Clock, fromMs: number): (intent: Intent) => Verdict | undefined {
  return (intent) =>
    clock.now() < fromMs && intent.kind !== 'cancel' && intent.kind !== 'cancelAll'
      ? { ok: false, intent, rule: 'warmup', reason: `warming up: the backtest starts at ${new Date(fromMs).toISOString()}` }
      : undefined;
}

/** The strategies' state stores of a backtest: in memory, one per strategy. */
export function memoryKv(): (strategy: string) => KeyValueStore {
  const kv = new Map<string, Map<string, unknown>>();
  return (name) => {
    let m = kv.get(name);
    if (!m) kv.set(name, (m = new Map()));
    const store = m;
    return {
      get: <T>(k: string) => store.get(k) as T | undefined,
      set: (k, v) => void store.set(k, v),
      delete: (k) => void store.delete(k),
    };
  };
}

/** What the backtest's kernel is built on: the ports a backtest chooses (setup.ts buildHarness). */
interface BacktestKernelPorts {
  clock: ManualClock;
  logger: Logger;
  venue: BacktestVenue;
  market(symbol: string): MarketView | undefined;
  book(symbol: string): CloseBook | undefined;
  ledger: CurrentLedger;
  split(symbol: string): { base: string; quote: string };
  reference: string;
  minSellable(symbol: string): Decimal;
  records: boolean;
  plots: PlotBook;
  /** What a margin position cost (the desk's record). */
  marginCosts(id: number): MarginCosts;
}

/**
 * The same kernel as live and paper; only the ports differ: the simulated exchange's ledger (always
 * current: its locks count at once), the last closes as books, the warm-up gate (intents before `from` are
 * denied, cancels pass), an in-memory state store, and a ledger that keeps every round trip.
 */
function backtestKernel(o: HarnessOptions, p: BacktestKernelPorts): TradingKernel {
  return new TradingKernel(
    {
      clock: p.clock,
      logger: p.logger,
      venueFor: (account) => {
        if (account !== MAIN_ACCOUNT) throw new Error(`backtests trade the main account only, not ${account}`);
        return p.venue;
      },
      market: p.market,
      book: p.book,
      ledger: p.ledger,
      symbols: o.series.map((s) => s.symbol),
      split: p.split,
      reference: p.reference,
      minSellable: p.minSellable,
      trades: { retain: true, fillTimes: p.records },
      idPrefix: 'bt',
      retainFinal: BACKTEST_RETAINED_ORDERS,
      keepRetiredOwners: true,
      keepOwners: true,
      // Ended margin positions are booked from the desk's list (marginRefresher) with its own cost record.
      margin: { follow: false, unowned: 'unknown', costs: (_account, pos) => p.marginCosts(pos.id) },
      plot: (strategy, symbol, name) => p.plots.open(strategy, symbol, name),
      gate: warmupGate(p.clock, o.fromMs),
      kv: memoryKv(),
    },
    { config: o.config, instances: o.instances },
  );
}

/** The run's markets: their instruments, the reference asset, and their views and limits, made once (the specs do not change during a run). */
function runMarkets(o: HarnessOptions, sim: SimulatedExchange, specs: readonly MarketSpec[], desks: SimDesks) {
  const spec = (s: string) => {
    const m = sim.market(s);
    if (!m) throw new Error(`unknown market ${s}`);
    return m;
  };
  const split = memo((s) => ({ base: spec(s).baseAsset, quote: spec(s).quoteAsset }));
  // The kernel's one rule (kernel/reference.ts), over the markets of the run (the kernel's symbols:
  // in a backtest the data series, which include markets loaded to value assets).
  const reference = referenceAsset(
    o.config.reference,
    o.series.map((s) => s.symbol),
    split,
  );
  const stepOf = memo((s) => incrementFromDecimals(spec(s).stepSize));
  const minSellable = memo((s) => Decimal.max(spec(s).minQty, stepOf(s)));
  const marketViews = new Map(specs.map((m) => [m.symbol, marketView(m, sim.feeRates(BACKTEST_ACCOUNT, m.symbol))]));
  // The margin desk's risk-coefficient bounds, as live and paper load them into the catalog (test/backtest/settings-parity.test.ts).
  withMarginBounds([...marketViews.values()], parseMarginMarkets(desks.margin.publicMarkets()));
  // The instant desk's bounds, from the desk that refuses an order outside them (`/v1/otc/markets`, as live and paper read it).
  withInstantBounds([...marketViews.values()], parseOtcMarkets(desks.instant.otcMarkets()));
  return { split, reference, minSellable, marketViews };
}

export function buildHarness(o: HarnessOptions): Harness {
  const logger = o.logger ?? silentLogger;
  // At the earliest candle of every series, whichever is listed first: the warm-up candles are walked
  // at their own times (the warm-up gate judges the clock against from).
  const start = Math.min(...o.series.map((s) => (s.length > 0 ? s.time[0]! * 1000 : Infinity)));
  const clock = new ManualClock(Number.isFinite(start) ? start : o.fromMs);
  const { sim, specs, desks, simClock, listenMargin } = backtestExchange(o.config, clock, logger);
  const m = runMarkets(o, sim, specs, desks);
  const books = new Map(o.series.map((s) => [s.symbol, new CloseBook(s.symbol)]));
  const cursor = new Int32Array(o.series.length).fill(-1);
  const seriesOf = new Map(o.series.map((s, j) => [s.symbol, j]));
  const index = (symbol: string) => {
    const j = seriesOf.get(symbol);
    return j === undefined ? -1 : cursor[j]!;
  };
  const b = runBookkeeping();
  const records = o.orderRecords ?? true;
  const late: LateKernel = {};
  const fill = candleFillFor(o.config.backtest!, o.series, sim, clock, desks, late);
  const venue = backtestVenueFor({ sim, desks, fill, index, listenMargin, simClock }, b);
  // Points kept per plot series: about 5,000 of the longest market's candles from `from` on.
  const plots = new PlotBook(() => clock.now(), o.fromMs, Math.max(0, ...o.series.map((s) => s.length - s.firstIndex)) + 1, PLOT_POINTS);
  const kernel = (late.kernel = backtestKernel(o, {
    clock,
    logger,
    venue,
    market: (sym) => m.marketViews.get(sym),
    book: (sym) => books.get(sym),
    // The simulated exchange's ledger is the run's balances: the strategies, risk and the result read it.
    ledger: {
      balance: (account, asset) => (account === MAIN_ACCOUNT ? sim.ledger.get(BACKTEST_ACCOUNT, asset) : undefined),
      assets: (account) => (account === MAIN_ACCOUNT ? Object.keys(sim.ledger.balances(BACKTEST_ACCOUNT)) : []),
    },
    split: m.split,
    reference: m.reference,
    minSellable: m.minSellable,
    records,
    plots,
    marginCosts: (id) => desks.margin.costs(BACKTEST_ACCOUNT, id),
  }));
  const { portfolio, engine, risk, core, owners } = kernel;
  // The ledger's round trips: the kernel books every fill there once (portfolio.applyFill).
  const trades = portfolio.trades;
  const spotLog = recordRun(kernel, sim, b, records);
  return {
    kernel,
    clock,
    sim,
    desks,
    fill,
    core,
    engine,
    risk,
    portfolio,
    trades,
    books,
    candleClosed: (j, i) => void (cursor[j] = i),
    live: b.live,
    liveSet: b.liveSet,
    marginMarkets: b.marginMarkets,
    changes: b.changes,
    reference: m.reference,
    split: m.split,
    refreshMargin: marginRefresher(desks, listenMargin, b, kernel.marginBook),
    owners,
    rate: (asset) => kernel.valuation.rate(asset),
    instants: b.instants,
    orderReasons: b.orderReasons,
    endings: b.endings,
    unpriced: new Set<string>(),
    unvalued: new Map(),
    plots,
    ...(spotLog ? { spotLog } : {}),
  };
}
