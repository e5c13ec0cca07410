/**
 * The trading kernel: the one place that builds and owns every trading part, for live, paper and
 * backtests alike (nautilus_trader's NautilusKernel is the model). A mode hands in only its ports
 * (clock, venues, balance source, market and book views, journal, logger) and drives the kernel
 * with market events; everything that decides is built here once:
 * - the risk engine with every setting of the config: global limits, each strategy's `risk` and
 *   `capital`, `risk.protections` (fed by the equity after every candle close, `onBar` or the
 *   backtest's samples through `equity.record`; equity-feed.ts, and by the trades the portfolio closes) and
 *   the margin monitor (`risk.marginMonitor`);
 * - reservations with acceptance tracking: a resting order's funds count once (the reservation stops
 *   counting once a balance read shows the exchange's lock; with the in-process `ledger` at once);
 * - the execution engine, the portfolio, the owners of margin positions;
 * - one asset valuation (valuation.ts);
 * - the trading core with the strategy runners.
 * What an intent means is decided here too, so it is the same in every mode: a `marginClose`
 * without a price closes at the market, priced at the best bid (long) or ask (short) moved by the
 * strategy's maxSlippagePct, at most 4 % (core/intents.ts); a halt cancels every open order.
 */
import type { Instrument } from '../core/instrument.js';
import type { Clock } from '../core/clock.js';
import type { Decimal } from '../core/decimal.js';
import type { Intent, Verdict } from '../core/intents.js';
import type { Logger } from '../core/logger.js';
import type { MarginPosition } from '../core/types/margin.js';
import type { MizanConfig } from '../config/schema.js';
import { ClientIdGenerator } from '../execution/client-id.js';
import { BracketManager, memoryBracketStore, type BracketStore } from '../execution/brackets.js';
import { ExecutionEngine, type ExecutionJournal } from '../execution/engine.js';
import type { Venue } from '../execution/venue.js';
import { Portfolio, type CurrentLedger, type PortfolioDeps } from '../portfolio/portfolio.js';
import { RiskEngine } from '../risk/engine.js';
import type { StrategyLimits } from '../risk/limits.js';
import { followAcceptance } from '../risk/lock-coverage.js';
import { MarginMonitor } from '../risk/margin-monitor.js';
import { PositionOwners, type OwnerStore } from '../risk/margin-owners.js';
import { exchangeMarginFormulas } from '../risk/margin-topup.js';
import type { RiskSink } from '../risk/ports.js';
import { Reservations } from '../risk/reservations.js';
import { oneMinusOf, onePlusOf } from '../risk/grid.js';
import { pctFactor } from '../risk/pct.js';
import { roundPrice } from '../risk/rules/market-limits.js';
import type { Bar } from '../strategy/bar.js';
import type { BookView, FillEvent, KeyValueStore, MarketView, TradingStateName } from '../core/views.js';
import { MONITOR_CLOSE_TAG, startMarginWatch, type MarginWatch } from './margin-watch.js';
import { MarginBook, type MarginBookDeps } from './margin-book.js';
import { TradingCore, type RiskPort, type StrategyInstance } from './trading-core.js';
import { riskPort } from './risk-port.js';
import { AssetValuation } from './valuation.js';
import { MarketPrices } from './market-prices.js';
import { EquityFeed } from './equity-feed.js';
import { cancelPendingMargin } from './pending-margin.js';
import type { PublicTrade } from '../core/types/market.js';
import type { PlotSink } from '../strategy/plots.js';
import { explainLocked } from './exit-intent.js';
import { MAIN_ACCOUNT } from '../core/account.js';

/** What a mode supplies: everything the kernel reads from or writes to the outside. */
export interface KernelPorts {
  clock: Clock;
  logger: Logger;
  /** The venue of an account, as the mode builds it (the kernel wraps it to learn margin owners). */
  venueFor(account: string): Venue;
  /** A market's limits and fees; undefined for an unknown market. */
  market(symbol: string): MarketView | undefined;
  /** A market's book as strategies and risk see it (its mid is the mark price; market-prices.ts). */
  book(symbol: string): BookView | undefined;
  /**
   * The exchange's ledger when it is in this process and always current (a backtest's simulated
   * exchange): the portfolio's balances, which risk and the strategies read, are read from it.
   * Without it they are the exchange's last read, moved by fills until the next.
   */
  ledger?: CurrentLedger;
  /** Markets valued and traded, split into base and quote. */
  symbols: readonly string[];
  split(symbol: string): { base: string; quote: string };
  reference: string;
  /** Smallest sellable quantity of a market (dust below it). */
  minSellable?(symbol: string): Decimal | undefined;
  /** How the ledger keeps its round trips (a backtest: every record, and each order's last fill time); default: neither. */
  trades?: PortfolioDeps['trades'];
  /** Strategy state store. */
  kv(strategy: string): KeyValueStore;
  /** Where verdicts, the trading state and the protections' counters go (the journal). */
  riskSink?: RiskSink;
  /** The execution journal (orders and fills). */
  executionJournal?: ExecutionJournal;
  /** Where the margin-position owners are kept across restarts. */
  ownerStore?: OwnerStore;
  /** Client id prefix source (default: none; backtests use `bt`). */
  idPrefix?: string;
  /** A verdict the mode gives before risk (a backtest's warm-up); undefined lets risk decide. */
  gate?(intent: Intent): Verdict | undefined;
  /** The margin watch's timer period (live re-reads positions on it); 0: price updates only. */
  marginWatchMs?: number;
  /** Where the brackets under way are kept across restarts (the journal); default: in memory. */
  bracketStore?: BracketStore;
  /** Where the strategies' `ctx.plot` points go (a backtest keeps them for its report); none: checked and dropped. */
  plot?: PlotSink;
  /** How many final orders the execution engine keeps in memory (default: all; a live bot 1,000, a backtest BACKTEST_RETAINED_ORDERS). */
  retainFinal?: number;
  /** Remember the strategy of each final order dropped beyond retainFinal (see ExecutionOptions.keepRetiredOwners). */
  keepRetiredOwners?: boolean;
  keepOwners?: boolean; // keep the owners of closed margin positions (a backtest's result credits each to its strategy)
  /** How ended margin positions are booked (margin-book.ts); `follow: false`: the mode feeds `marginBook.synced` itself (a backtest's desk). */
  margin?: Pick<MarginBookDeps, 'journal' | 'restore' | 'costs' | 'unowned'> & { follow?: boolean };
  sleep?(ms: number): Promise<void>; // the execution engine's waits (default: real time; a book backtest: simulated)
}

export interface KernelSettings {
  config: Pick<MizanConfig, 'risk' | 'strategies'>;
  instances: StrategyInstance[];
}

/** Every strategy's own limits: its `risk` section with its `capital`. */
function strategyLimits(config: Pick<MizanConfig, 'strategies'>): Record<string, StrategyLimits> {
  return Object.fromEntries(config.strategies.map((s) => [s.name, { ...(s.risk ?? {}), ...(s.capital ? { capital: s.capital } : {}) }]));
}

/**
 * The most a marginClose without a price is moved from the best price (percent), whatever the
 * strategy's maxSlippagePct: the exchange refuses a margin price further than about 5 % from its
 * market (the simulator models it: `maxPriceDeviation` in src/sim/margin/config.ts), and a close
 * that would wait must stay near it.
 */
const MAX_CLOSE_SLIPPAGE_PCT = 4;

export class TradingKernel {
  readonly risk: RiskEngine;
  readonly engine: ExecutionEngine;
  /** Stop-loss / take-profit exits of entries (execution/brackets.ts); the mode feeds it trade prices. */
  readonly brackets: BracketManager;
  readonly portfolio: Portfolio;
  readonly owners: PositionOwners;
  readonly valuation: AssetValuation;
  /** One price per market (last and mark), kept here for every mode. */
  readonly prices: MarketPrices;
  readonly core: TradingCore;
  readonly monitor: MarginMonitor;
  readonly marginWatch: MarginWatch;
  /** Every margin position's journal row, and its trade once it ends (margin-book.ts). */
  readonly marginBook: MarginBook;
  /** The risk engine as the core sees it (the mode's gate, the marginClose default, closed trades to protections). */
  readonly riskPort: RiskPort;
  private readonly venues = new Map<string, Venue>();
  private readonly fillListeners: ((f: FillEvent) => void)[] = [];
  private readonly stops: (() => void)[] = [];
  /** The account's equity into the protections that watch it (equity-feed.ts). */
  readonly equity: EquityFeed;
  /** The accounts the bot trades: the main one, then its strategies' trading-credit accounts. */
  readonly accounts: readonly string[];

  constructor(
    private readonly p: KernelPorts,
    s: KernelSettings,
  ) {
    const { clock, logger } = p;
    const instances = s.instances;
    const accountOf = (strategy: string) => instances.find((i) => i.name === strategy)?.account ?? MAIN_ACCOUNT;
    const accounts = (this.accounts = [...new Set([MAIN_ACCOUNT, ...instances.map((i) => i.account ?? MAIN_ACCOUNT)])]);
    // A margin position's owner is the strategy whose passed marginOpen opened it, and no other: one
    // opened by hand or by another bot is none of this bot's (not listed, booked, closed, topped up).
    this.owners = new PositionOwners({
      // With a store, each open is journaled before it is sent (margin-open-records.ts).
      ...(p.ownerStore ? { store: p.ownerStore, now: () => clock.now() } : {}),
      logger: logger.child({ component: 'margin' }),
    });
    const venueFor = (account: string): Venue => this.venueFor(account);
    // The instrument of a market as the mode's one source says (catalog or specs); undefined when unknown.
    const instrument = (symbol: string): Instrument | undefined => {
      try {
        return p.split(symbol);
      } catch {
        return undefined;
      }
    };
    const prices = (this.prices = new MarketPrices((sym) => p.book(sym)));
    const mark = (sym: string) => prices.mark(sym);
    this.valuation = new AssetValuation({ reference: p.reference, split: p.split, symbols: p.symbols, price: mark });
    this.portfolio = new Portfolio({
      split: p.split,
      price: (asset, ref) => this.valuation.price(asset, ref),
      reference: p.reference,
      ...(p.minSellable ? { minSellable: p.minSellable } : {}),
      ...(p.trades ? { trades: p.trades } : {}),
      ...(p.ledger ? { ledger: p.ledger } : {}),
      valued: (asset) => this.valuation.route(asset) !== undefined,
    });
    const portfolio = this.portfolio;
    const mb = p.margin ?? {};
    this.marginBook = new MarginBook({ ...mb, trades: portfolio.trades, owners: this.owners, venueFor, logger: logger.child({ component: 'margin' }) });
    if (mb.follow ?? true) portfolio.onMarginSync((positions, account) => this.marginBook.synced(positions, account));
    this.risk = new RiskEngine({
      ports: {
        market: (sym) => p.market(sym),
        book: (sym) => p.book(sym),
        balance: (account, asset) => portfolio.balance(asset, account),
        balancesRead: (account) => portfolio.balancesRead(account),
        openOrders: () => this.engine.liveOrders(),
        positions: () => portfolio.positions.all(),
        marginPositions: () => portfolio.marginPositions(),
        markPrice: mark,
        accountOf,
        isStrategy: (strategy) => instances.some((i) => i.name === strategy),
      },
      clock,
      logger: logger.child({ component: 'risk' }),
      ...(p.riskSink ? { sink: p.riskSink } : {}),
      limits: s.config.risk.limits,
      protections: s.config.risk.protections,
      strategies: strategyLimits(s.config),
      // With the ledger the balances' `locked` is always current: an accepted order is covered at once.
      reservations: new Reservations({ liveLocked: p.ledger !== undefined }),
    });
    const risk = this.risk;
    const protections = s.config.risk.protections;
    const feedsEquity = protections.maxDrawdownPct !== undefined || protections.dailyLossLimitPct !== undefined;
    this.equity = new EquityFeed({
      clock,
      logger,
      reference: p.reference,
      // Every account the bot trades: the main one and its strategies' trading-credit accounts.
      equity: (ts) => portfolio.equity(ts, accounts),
      ...(feedsEquity ? { onEquity: (ts: number, e: Decimal) => risk.onEquity(ts, e) } : {}),
    });
    this.engine = new ExecutionEngine({
      venueFor,
      instrument,
      clock,
      logger: logger.child({ component: 'exec' }),
      ids: new ClientIdGenerator(clock, ...(p.idPrefix ? [p.idPrefix] : [])),
      ...(p.executionJournal ? { journal: p.executionJournal } : {}),
      reservations: risk,
      ...(p.sleep ? { sleep: (ms: number) => p.sleep!(ms) } : {}),
      options: {
        ...(p.retainFinal !== undefined ? { retainFinal: p.retainFinal } : {}),
        ...(p.keepRetiredOwners ? { keepRetiredOwners: true } : {}),
      },
    });
    this.engine.listen(venueFor(MAIN_ACCOUNT));
    this.brackets = new BracketManager({
      engine: this.engine,
      store: p.bracketStore ?? memoryBracketStore(),
      market: (s) => p.market(s),
      last: (s) => prices.last(s),
      logger: logger.child({ component: 'brackets' }),
    });
    // A fill out of a lock the last balance read holds frees it there at once (risk/lock-coverage.ts).
    this.stops.push(followAcceptance(this.engine, risk.reservations, clock, (a, sym, side, amount) => portfolio.releaseLocked(a, sym, side, amount)));
    // Who asked a position's last close that passed: the margin monitor's ends its trade `margin monitor`.
    risk.on('verdict', (v) => {
      this.owners.noteVerdict(v);
      if (v.ok && v.intent.kind === 'marginClose') portfolio.trades.closer(v.intent.positionId, v.intent.tag === MONITOR_CLOSE_TAG);
    });

    // A marginClose without a price closes at the market, as a MARKET order does: the best bid (long)
    // or ask (short) moved by the strategy's maxSlippagePct (at most MAX_CLOSE_SLIPPAGE_PCT: the
    // exchange refuses margin prices about 5 % from its market), on the tick inside that bound. The
    // exchange closes at its own price when it is at least that good, so a move against the position
    // between the decision and the exchange (a backtest's next open, the local book's lag) does not
    // leave it open; a move beyond the bound does, as it would refuse a MARKET order. Without the
    // market's tick the best price itself is sent (on the grid, as before).
    const closePrice = (pos: MarginPosition, strategy: string) => {
      const long = pos.side === 'long';
      const best = long ? p.book(pos.market)?.bestBid() : p.book(pos.market)?.bestAsk();
      const tick = p.market(pos.market)?.priceTick;
      if (!best || !tick) return best;
      const slip = pctFactor(Math.min(risk.maxSlippagePct(strategy), MAX_CLOSE_SLIPPAGE_PCT));
      const bound = long ? best.mul(oneMinusOf(slip)) : best.mul(onePlusOf(slip));
      const price = roundPrice(bound, tick, !long);
      return price.gt(0) ? price : best;
    };
    this.riskPort = riskPort(risk, portfolio, {
      closePrice,
      explain: (v) => explainLocked(v, this.brackets, p.market),
      ...(p.gate ? { gate: (i: Intent) => p.gate!(i) } : {}),
    });
    this.core = new TradingCore({
      clock,
      logger,
      instances,
      engine: this.engine,
      portfolio,
      risk: this.riskPort,
      venueFor,
      market: (sym) => p.market(sym),
      instrument,
      book: (sym) => p.book(sym),
      kv: (name) => p.kv(name),
      ...(p.executionJournal ? { executionJournal: p.executionJournal } : {}),
      ...(p.plot ? { plot: p.plot } : {}),
      ownerOf: (pos) => this.owners.owner(pos),
      exitBrackets: (strategy, symbol) => this.brackets.exit(strategy, symbol),
      halted: () => (risk.state.record.state === 'halted' ? (risk.state.record.reason ?? 'halted') : undefined),
      // A fill is booked (portfolio, risk, the listeners: a backtest's trade book) before anything
      // reacts to it: a bracket's exit placed and filled within this call is booked after its entry.
      onFill: (f) => {
        prices.onTrade(f.symbol, f.price, f.timestamp);
        for (const l of this.fillListeners) l(f);
        this.brackets.onFill(f);
      },
    });

    // A halt (protection breach or `mizan halt`) cancels every open order (risk.protections.cancelOpenOrdersOnHalt).
    const onHalt = ({ reason }: { reason: string }) => {
      logger.warn({ reason }, 'halted: cancelling every open order');
      for (const sym of p.symbols) void this.engine.cancelAll(sym);
      void this.cancelPendingMargin().catch((err: unknown) => logger.warn({ err }, 'halted: the pending margin openings could not be read or cancelled'));
    };
    risk.on('cancelAllOrders', onHalt);
    this.stops.push(() => void risk.off('cancelAllOrders', onHalt));
    // Every change of the trading state reaches the strategies (a grid rebuilds after a resume).
    const onState = (rec: { state: TradingStateName; reason?: string; since: number }, prev: { state: TradingStateName }) =>
      this.core.onTradingState({ state: rec.state, previous: prev.state, ...(rec.reason !== undefined ? { reason: rec.reason } : {}), since: rec.since });
    risk.on('state', onState);
    this.stops.push(() => void risk.off('state', onState));

    // The margin monitor. Its call margin is the exchange's, read off each position's own call price
    // (the exchange publishes no per-market call margin), never a simulator default.
    this.monitor = new MarginMonitor({
      config: s.config.risk.marginMonitor ?? {},
      // What was added to each position is kept with the owners (a restart does not renew the budget).
      ...(p.ownerStore ? { store: p.ownerStore } : {}),
      formulas: exchangeMarginFormulas((m) => p.market(m)?.quantityPrecision),
      quoteOf: (m) => instrument(m)?.quote,
      logger: logger.child({ component: 'margin' }),
    });
    this.marginWatch = startMarginWatch({
      core: this.core,
      monitor: this.monitor,
      owners: this.owners,
      positions: () => portfolio.marginPositions(),
      positionsRead: () => portfolio.marginSynced(),
      mark,
      closePrice,
      refresh: () => this.core.executor.syncMargin(MAIN_ACCOUNT),
      intervalMs: p.marginWatchMs ?? 0,
      pruneOwners: !p.keepOwners,
      logger,
    });
    this.stops.push(() => this.marginWatch.stop());
  }

  /** The venue of an account as the kernel trades on it (wrapped to learn which strategy opened a margin position). */
  venueFor(account: string): Venue {
    let v = this.venues.get(account);
    if (!v) this.venues.set(account, (v = this.owners.wrapVenue(this.p.venueFor(account), account)));
    return v;
  }

  /**
   * A trade of a market (live and paper: the public trade stream; backtests: the simulated
   * exchange's prints while a candle path is played): the market's last price, then the brackets'
   * take-profit watch, then the strategies' onTrade.
   */
  onTrade(trade: PublicTrade): void {
    this.prices.onTrade(trade.symbol, trade.price, trade.timestamp);
    this.brackets.onPrice(trade.symbol, trade.price);
    this.core.onTrade(trade);
  }

  /** A print that is not delivered to strategies as a trade (a backtest's candle path): the price and the brackets only. */
  onPrint(symbol: string, price: Decimal, time: number): void {
    this.prices.onTrade(symbol, price, time);
    this.brackets.onPrice(symbol, price);
  }

  /** Every fill after the portfolio booked it (a backtest's trade list). */
  onFill(listener: (f: FillEvent) => void): void {
    this.fillListeners.push(listener);
  }

  /**
   * A closed candle: to the strategies trading its market at its resolution (the core), then, once
   * they handled it, the account's equity (the portfolio valued at the books) to the protections
   * that watch it (drawdown, daily loss). A backtest's walk takes the same two steps (the core's bar
   * feed, then its equity sample after the candle close, into equity.record), so these protections
   * act on the same candle in every mode, not only at live's once-a-minute equity snapshot.
   */
  onBar(symbol: string, bar: Bar): void | Promise<void> {
    const r = this.core.onBar(symbol, bar);
    if (!this.equity.watched) return r;
    if (r) return r.then(() => void this.equity.sample());
    this.equity.sample();
  }

  /** Equity samples the protections did not get for want of a price (EquityFeed.unpricedSamples). */
  get unpricedSamples(): number {
    return this.equity.unpricedSamples;
  }

  /** Cancel the pending margin positions this bot opened (pending-margin.ts); how many were. */
  cancelPendingMargin(): Promise<number> {
    return cancelPendingMargin({ accounts: this.accounts, venueFor: (a) => this.venueFor(a), owners: this.owners, logger: this.p.logger });
  }

  /** Stop the watches and listeners the kernel started (the engine and core are stopped by the mode). */
  stop(): void {
    for (const s of this.stops.splice(0)) s();
  }
}
