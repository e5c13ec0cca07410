/**
 * Composition of one backtest: the simulated exchange and its desks (the venue), the same risk
 * engine, execution engine, portfolio and trading core as live, on a ManualClock. Only the ports
 * differ from live: the venue (SimulatedExchange + candle fill model), the books (the last close)
 * and the clock.
 */
import { ManualClock } from '../core/clock.js';
import { Decimal, incrementFromDecimals } from '../core/decimal.js';
import type { Intent } from '../core/intents.js';
import type { InstantOrder } from '../core/types/order.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { MizanConfig } from '../config/schema.js';
import type { ExecutionEngine } from '../execution/engine.js';
import { SimVenue } from '../venues/sim-venue.js';
import type { BracketManager } from '../execution/brackets.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { RiskEngine } from '../risk/engine.js';
import type { SimulatedExchange } from '../sim/exchange.js';
import type { SimDesks } from '../sim/margin/wiring.js';
import type { TradingCore, StrategyInstance } from '../kernel/trading-core.js';
import type { PositionOwners } from '../risk/margin-owners.js';
import { TradingKernel } from '../kernel/kernel.js';
import { referenceAsset } from '../kernel/reference.js';
import { parseMarginPosition } from '../exchange/parse/margin.js';
import { parseMarginMarkets } from '../exchange/parse/margin-extra.js';
import { withMarginBounds } from '../market/margin-bounds.js';
import type { Series } from './data.js';
import { CandleFill } from './fill-model.js';
import type { TradeBook } from '../portfolio/trade-book.js';
import { RunChanges } from './run-changes.js';
import { PlotBook } from './plots.js';
import { BacktestVenue } from './venue.js';
import { SpotOrderLog } from './spot-order-log.js';
import { CloseBook, marketView } from './views.js';
import type { MarketView } from '../core/views.js';
import type { CurrentLedger } from '../portfolio/portfolio.js';
import { ChurnSet } from '../core/churn-map.js';
import { MAIN_ACCOUNT } from '../core/account.js';
import { BACKTEST_ACCOUNT, BACKTEST_RETAINED_ORDERS, backtestExchange } from './backtest-exchange.js';

export { BACKTEST_ACCOUNT, BACKTEST_RETAINED_ORDERS } from './backtest-exchange.js';

/** Points kept per plot series in the result (the report draws at most 5,000 candles per page). */
const PLOT_POINTS = 5000;
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
  instants: { order: InstantOrder; strategy?: string; tag?: string }[];
  /** Why market orders were cancelled unfilled at placement, by client id. */
  orderReasons: Map<string, string>;
  /** Assets held during the run that it cannot value in the reference asset (left out of the equity). */
  unpriced: Set<string>;
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
}

/**
 * The same kernel as live and paper; only the ports differ: the simulated exchange's ledger (always
 * current: `liveLocked`), the last closes as books, the warm-up gate (intents before `from` are
 * denied, cancels pass), an in-memory state store, and a ledger that keeps every round trip.
 */
function backtestKernel(o: HarnessOptions, p: BacktestKernelPorts): TradingKernel {
  const kv = new Map<string, Map<string, unknown>>();
  const warmupDenied = (intent: Intent) => ({
    ok: false as const,
    intent,
    rule: 'warmup',
    reason: `warming up: the backtest starts at ${new Date(o.fromMs).toISOString()}`,
  });
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
      liveLocked: true,
      symbols: o.series.map((s) => s.symbol),
      split: p.split,
      reference: p.reference,
      minSellable: p.minSellable,
      trades: { retain: true, fillTimes: p.records },
      idPrefix: 'bt',
      retainFinal: BACKTEST_RETAINED_ORDERS,
      keepRetiredOwners: true,
      keepOwners: true,
      plot: (strategy, symbol, name, value) => p.plots.add(strategy, symbol, name, value),
      gate: (intent) => (p.clock.now() < o.fromMs && intent.kind !== 'cancel' && intent.kind !== 'cancelAll' ? warmupDenied(intent) : undefined),
      kv: (name) => {
        let m = kv.get(name);
        if (!m) kv.set(name, (m = new Map()));
        const store = m;
        return {
          get: <T>(k: string) => store.get(k) as T | undefined,
          set: (k, v) => void store.set(k, v),
          delete: (k) => void store.delete(k),
        };
      },
    },
    { config: o.config, instances: o.instances },
  );
}

export function buildHarness(o: HarnessOptions): Harness {
  const bt = o.config.backtest!;
  const logger = o.logger ?? silentLogger;
  const first = o.series[0]!;
  const clock = new ManualClock(first.length > 0 ? first.time[0]! * 1000 : o.fromMs);
  const { sim, specs, desks, simClock, listenMargin } = backtestExchange(o.config, clock, logger);
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
  const books = new Map(o.series.map((s) => [s.symbol, new CloseBook(s.symbol)]));
  const cursor = new Int32Array(o.series.length).fill(-1);
  const seriesOf = new Map(o.series.map((s, j) => [s.symbol, j]));
  const index = (symbol: string) => {
    const j = seriesOf.get(symbol);
    return j === undefined ? -1 : cursor[j]!;
  };
  const live = new Map<string, Set<string>>();
  const marginMarkets = new Set<string>();
  const changes = new RunChanges();

  // Per-market constants, made once (the specs do not change during a run).
  const stepOf = memo((s) => incrementFromDecimals(spec(s).stepSize));
  const minSellableOf = memo((s) => Decimal.max(spec(s).minQty, stepOf(s)));
  const marketViews = new Map(specs.map((m) => [m.symbol, marketView(m, sim.feeRates(BACKTEST_ACCOUNT, m.symbol))]));
  // The margin desk's risk-coefficient bounds, as live and paper load them into the catalog (test/backtest/settings-parity.test.ts).
  withMarginBounds([...marketViews.values()], parseMarginMarkets(desks.margin.publicMarkets()));
  const positionMarket = new Map<number, string>();
  let kernel!: TradingKernel;
  const rate = (asset: string): Decimal | undefined => kernel.valuation.rate(asset);
  const records = o.orderRecords ?? true;
  const instants: Harness['instants'] = [];
  const instantById = new Map<string, Harness['instants'][number]>();
  const orderReasons = new Map<string, string>();
  let brackets: BracketManager | undefined;
  const fill = new CandleFill({
    sim,
    account: BACKTEST_ACCOUNT,
    clock,
    margin: desks.margin,
    options: { slippage: bt.slippagePct / 100, fillOnTouch: bt.fillOnTouch, ...(bt.volumeCapPct !== undefined ? { volumeCap: bt.volumeCapPct / 100 } : {}) },
    extraTriggers: (symbol) => brackets?.triggers(symbol) ?? [],
    exposure: (symbol) => {
      for (const p of kernel.portfolio.positions.all()) if (p.symbol === symbol && p.quantity.gt(0)) return 1;
      for (const p of kernel.portfolio.marginPositions(symbol)) if (p.state === 'open' || p.state === 'pending') return p.side === 'long' ? 1 : -1;
      return 0;
    },
  });
  for (const s of o.series) fill.addSeries(s);

  const inner = new SimVenue({ sim, account: BACKTEST_ACCOUNT, kind: 'backtest', margin: desks.margin, instant: desks.instant });
  const liveSet = (symbol: string) => {
    let set = live.get(symbol);
    if (!set) live.set(symbol, (set = new ChurnSet()));
    return set;
  };
  inner.onOrderUpdate((snap) => {
    const set = liveSet(snap.symbol);
    if (snap.active) set.add(snap.clientOrderId);
    else set.delete(snap.clientOrderId);
    changes.eventsQueued();
  });
  const venue = new BacktestVenue({
    inner,
    fill,
    index,
    touched: (margin) => {
      if (margin) listenMargin(true);
      changes.balancesMoved();
      changes.marginMoved();
    },
    positionMarket: (id) => positionMarket.get(id),
    onInstant: (order) => {
      const rec: Harness['instants'][number] = { order };
      instants.push(rec);
      instantById.set(order.clientOrderId, rec);
    },
    onMarketCancelled: (id, reason) => void orderReasons.set(id, reason),
    clock: simClock, // the placement clock above
  });
  // Points kept per plot series: about 5,000 of the longest market's candles from `from` on.
  const plots = new PlotBook(() => clock.now(), o.fromMs, Math.max(0, ...o.series.map((s) => s.length - s.firstIndex)) + 1, PLOT_POINTS);
  kernel = backtestKernel(o, {
    clock,
    logger,
    venue,
    market: (sym) => marketViews.get(sym),
    book: (sym) => books.get(sym),
    // The simulated exchange's ledger is the run's balances: the strategies, risk and the result read it.
    ledger: {
      balance: (account, asset) => (account === MAIN_ACCOUNT ? sim.ledger.get(BACKTEST_ACCOUNT, asset) : undefined),
      assets: (account) => (account === MAIN_ACCOUNT ? Object.keys(sim.ledger.balances(BACKTEST_ACCOUNT)) : []),
    },
    split,
    reference,
    minSellable: minSellableOf,
    records,
    plots,
  });
  const { portfolio, engine, risk, core, owners } = kernel;
  // The ledger's round trips: the kernel books every fill there once (portfolio.applyFill).
  const trades = portfolio.trades;
  kernel.onFill((f) => {
    changes.balancesMoved();
    if (instantById.size > 0) {
      const rec = instantById.get(f.clientOrderId);
      if (rec && rec.strategy === undefined) {
        rec.strategy = f.strategy;
        if (f.tag) rec.tag = f.tag;
      }
    }
  });
  engine.on('order', () => changes.eventsQueued());
  const spotLog = records ? new SpotOrderLog({ reason: (id) => orderReasons.get(id), lastFill: (id, forget) => trades.lastFill(id, forget) }) : undefined;
  if (spotLog) {
    engine.on('submitted', (o) => spotLog.submitted(o));
    engine.on('final', (o) => spotLog.ended(o));
  }
  // Brackets (the kernel's, execution/brackets.ts): their take profits are played into the candle
  // path; the prints the exchange makes there are the markets' last prices (with the closes the walk
  // writes into the kernel's candle slots).
  brackets = kernel.brackets;
  sim.on('trade', (t) => kernel.onPrint(t.symbol, t.price, t.timestamp));
  const recorded = new Set<number>();
  const refreshMargin = () => {
    const all = desks.margin.list(BACKTEST_ACCOUNT, {});
    marginMarkets.clear();
    for (const p of all) {
      positionMarket.set(p.id, p.market);
      if (p.state === 'open' || p.state === 'pending') marginMarkets.add(p.market);
      else if ((p.state === 'closed' || p.state === 'liquidated') && !recorded.has(p.id)) {
        // Recorded when first seen closed: its fees are converted at the prices of that moment.
        recorded.add(p.id);
        const pos = parseMarginPosition(p);
        trades.addMargin(owners.owner(pos) ?? 'unknown', pos, desks.margin.costs(BACKTEST_ACCOUNT, p.id));
      }
    }
    listenMargin(marginMarkets.size > 0);
  };
  engine.on('fill', () => changes.balancesMoved());
  sim.on('fill', (f) => {
    if (f.accountId === BACKTEST_ACCOUNT) changes.balancesMoved();
  });
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
    live,
    liveSet,
    marginMarkets,
    changes,
    reference,
    split,
    refreshMargin,
    owners,
    rate,
    instants,
    orderReasons,
    unpriced: new Set<string>(),
    plots,
    ...(spotLog ? { spotLog } : {}),
  };
}
