/**
 * The parts `buildHarness` (setup.ts) puts together, one function per choice a backtest makes: the
 * candle fill model, the venue over the simulated exchange (and what its listeners record), the
 * margin refresh, and the run's bookkeeping of the kernel's events.
 */
import type { ManualClock } from '../core/clock.js';
import type { InstantOrder } from '../core/types/order.js';
import type { MizanConfig } from '../config/schema.js';
import type { Series } from './data.js';
import type { SimulatedExchange } from '../sim/exchange.js';
import type { SimDesks } from '../sim/margin/wiring.js';
import type { TradingKernel } from '../kernel/kernel.js';
import type { MarginBook } from '../kernel/margin-book.js';
import type { MarginPosition } from '../core/types/margin.js';
import { MAIN_ACCOUNT } from '../core/account.js';
import { SimVenue } from '../venues/sim-venue.js';
import { parseMarginPosition } from '../exchange/parse/margin.js';
import { ChurnSet } from '../core/churn-map.js';
import { CandleFill, type PlacementClock } from './fill-model.js';
import { RunChanges } from './run-changes.js';
import { BacktestVenue } from './venue.js';
import { SpotOrderLog } from './spot-order-log.js';
import { OrderEndingTally } from './order-endings.js';
import { BACKTEST_ACCOUNT } from './backtest-exchange.js';

/** An instant order the exchange executed, with the strategy its fills went to. */
export interface InstantRecord {
  order: InstantOrder;
  strategy?: string;
  tag?: string;
}

/** What the run keeps beside the kernel: written by the venue's, the engine's and the exchange's listeners. */
export interface RunBookkeeping {
  /** Live orders of the account per market (from the sim's pushed updates). */
  live: Map<string, Set<string>>;
  /** The live-order set of a market (made when first asked; the same set the updates change). */
  liveSet(symbol: string): Set<string>;
  /** Markets with an active margin position (refreshed after margin activity). */
  marginMarkets: Set<string>;
  /** The market of each margin position seen (by position id). */
  positionMarket: Map<number, string>;
  changes: RunChanges;
  instants: InstantRecord[];
  instantById: Map<string, InstantRecord>;
  /** Why market orders were cancelled unfilled at placement, by client id. */
  orderReasons: Map<string, string>;
  /** How the spot orders ended (states, the exchange's reasons). */
  endings: OrderEndingTally;
}

export function runBookkeeping(): RunBookkeeping {
  const live = new Map<string, Set<string>>();
  const liveSet = (symbol: string) => {
    let set = live.get(symbol);
    if (!set) live.set(symbol, (set = new ChurnSet()));
    return set;
  };
  return {
    live,
    liveSet,
    marginMarkets: new Set<string>(),
    positionMarket: new Map<number, string>(),
    changes: new RunChanges(),
    instants: [],
    instantById: new Map<string, InstantRecord>(),
    orderReasons: new Map<string, string>(),
    endings: new OrderEndingTally(),
  };
}

/** The kernel, once built: the fill model is made before it and reads it during the walk. */
export interface LateKernel {
  kernel?: TradingKernel;
}

/**
 * The candle fill model: the backtest's slippage, touch and volume cap; the brackets' take profits
 * as extra triggers; the account's exposure per market (which way the candle path is walked).
 */
export function candleFillFor(
  bt: NonNullable<MizanConfig['backtest']>,
  series: Series[],
  sim: SimulatedExchange,
  clock: ManualClock,
  desks: SimDesks,
  late: LateKernel,
): CandleFill {
  const fill = new CandleFill({
    sim,
    account: BACKTEST_ACCOUNT,
    clock,
    margin: desks.margin,
    options: { slippage: bt.slippagePct / 100, fillOnTouch: bt.fillOnTouch, ...(bt.volumeCapPct !== undefined ? { volumeCapPct: bt.volumeCapPct } : {}) },
    extraTriggers: (symbol) => late.kernel?.brackets.triggers(symbol) ?? [],
    exposure: (symbol) => {
      const kernel = late.kernel!;
      for (const p of kernel.portfolio.positions.all()) if (p.symbol === symbol && p.quantity.gt(0)) return 1;
      for (const p of kernel.portfolio.marginPositions(symbol)) if (p.state === 'open' || p.state === 'pending') return p.side === 'long' ? 1 : -1;
      return 0;
    },
  });
  for (const s of series) fill.addSeries(s);
  return fill;
}

/** What the backtest venue is built on (setup.ts buildHarness). */
export interface VenuePorts {
  sim: SimulatedExchange;
  desks: SimDesks;
  fill: CandleFill;
  /** The index of the last closed candle of a market (-1: none yet). */
  index(symbol: string): number;
  listenMargin(on: boolean): void;
  /** The placement clock. */
  simClock: PlacementClock;
}

/**
 * The simulated exchange's venue (SimVenue) behind the backtest venue, which fills on the candle
 * path; their listeners keep the live-order sets, the changes, the instant orders and why market
 * orders were cancelled.
 */
export function backtestVenueFor(p: VenuePorts, b: RunBookkeeping): BacktestVenue {
  const { sim, desks } = p;
  const { changes } = b;
  const inner = new SimVenue({ sim, account: BACKTEST_ACCOUNT, kind: 'backtest', margin: desks.margin, instant: desks.instant });
  inner.onOrderUpdate((snap) => {
    const set = b.liveSet(snap.symbol);
    if (snap.active) set.add(snap.clientOrderId);
    else set.delete(snap.clientOrderId);
    changes.eventsQueued();
  });
  return new BacktestVenue({
    inner,
    fill: p.fill,
    index: p.index,
    touched: (margin) => {
      if (margin) p.listenMargin(true);
      changes.balancesMoved();
      changes.marginMoved();
    },
    positionMarket: (id) => b.positionMarket.get(id),
    onInstant: (order) => {
      const rec: InstantRecord = { order };
      b.instants.push(rec);
      b.instantById.set(order.clientOrderId, rec);
    },
    onMarketCancelled: (id, reason) => void b.orderReasons.set(id, reason),
    clock: p.simClock, // the placement clock above
  });
}

/**
 * The run's bookkeeping of the kernel's and the exchange's events: the changes the walk looks at,
 * the strategy of each instant order, the spot orders' records (when `records`), and the exchange's
 * prints as the markets' last prices. Returns the spot order log, if any.
 */
export function recordRun(kernel: TradingKernel, sim: SimulatedExchange, b: RunBookkeeping, records: boolean): SpotOrderLog | undefined {
  const { engine } = kernel;
  const trades = kernel.portfolio.trades;
  const { changes, instantById, orderReasons } = b;
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
  engine.on('final', (o) => b.endings.ended(o));
  const spotLog = records ? new SpotOrderLog({ reason: (id) => orderReasons.get(id), lastFill: (id, forget) => trades.lastFill(id, forget) }) : undefined;
  if (spotLog) {
    engine.on('submitted', (o) => spotLog.submitted(o));
    engine.on('final', (o) => spotLog.ended(o));
  }
  // Brackets (the kernel's, execution/brackets.ts): their take profits are played into the candle
  // path; the prints the exchange makes there are the markets' last prices (with the closes the walk
  // writes into the kernel's candle slots). The account's own fills (an entry at the open plus
  // slippage, a stop at its price less slippage) move the last price, as they do on the exchange,
  // but are not prices the market traded: a take profit watched by the bot never fires on them.
  sim.on('trade', (t) => {
    if (t.fromOrder) kernel.prices.onTrade(t.symbol, t.price, t.timestamp);
    else kernel.onPrint(t.symbol, t.price, t.timestamp);
  });
  engine.on('fill', () => changes.balancesMoved());
  sim.on('fill', (f) => {
    if (f.accountId === BACKTEST_ACCOUNT) changes.balancesMoved();
  });
  return spotLog;
}

/**
 * Re-reads which markets have active margin positions, and hands the positions to the kernel's
 * margin book (margin-book.ts): one first seen closed (or liquidated) becomes a trade then, its fees
 * converted at the prices of that moment, with the desk's own cost record (the kernel's `margin.costs`).
 */
export function marginRefresher(desks: SimDesks, listenMargin: (on: boolean) => void, b: RunBookkeeping, book: MarginBook): () => void {
  return () => {
    const all = desks.margin.list(BACKTEST_ACCOUNT, {});
    b.marginMarkets.clear();
    const seen: MarginPosition[] = [];
    for (const p of all) {
      b.positionMarket.set(p.id, p.market);
      const active = p.state === 'open' || p.state === 'pending';
      if (active) b.marginMarkets.add(p.market);
      if (active || !book.isBooked(p.id)) seen.push(parseMarginPosition(p));
    }
    book.synced(seen, MAIN_ACCOUNT);
    listenMargin(b.marginMarkets.size > 0);
  };
}
