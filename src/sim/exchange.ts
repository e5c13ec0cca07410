/**
 * The SimulatedExchange: markets, accounts and keys, balances (through the Ledger), spot orders and
 * their matching, market statistics, trades and candles, deterministic for a seed and timed by an
 * injected Clock. The same object is the venue of backtests and paper trading and stands behind the
 * wire server. Market data comes in through `replaceBookSide`, `recordTrade` and `setCandles`;
 * changes go out as events (emitted after the state is written, once per operation).
 */
import { EventEmitter } from 'eventemitter3';
import { Decimal, toDecimal, type DecimalInput } from '../core/decimal.js';
import type { Clock } from '../core/clock.js';
import type { Candle } from '../core/types/index.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { AccountStore, type ApiKeyRecord, type FeeOverride, type NewApiKey, type SimAccount } from './accounts.js';
import { CandleStore } from './candles.js';
import { SimError } from './errors.js';
import { Ledger, type LedgerEntry } from './ledger.js';
import { MarketStatsTracker } from './market-stats.js';
import { defaultMarketSpecs, type MarketSpec } from './markets.js';
import type { BookSide, LevelInput, PlaceOrderRequest, SimFill, SimOrder, SimTrade } from './order-types.js';
import { Prng } from './prng.js';
import { SlidingWindowLimiter, type RateState } from './rate-limiter.js';
import { SpotEngine } from './spot-engine.js';
import type { Permission } from './wire/route.js';
import { copyOrder, type DepthEvent, type MarketSnapshot, type PriceEvent, type SimEvents } from './events.js';
import { DEFAULT_MAX_MARKET_MOVE } from './market-move.js';

export interface SimulatedExchangeOptions {
  clock: Clock;
  seed?: number;
  markets?: MarketSpec[];
  logger?: Logger;
  /** Order calls (create, cancel) allowed per window per account: 20 per 10 s by default. */
  orderRateLimit?: { limit: number; windowMs: number };
  /** A market order is cancelled when it would move the price more than this fraction (0.02). */
  maxMarketMove?: DecimalInput;
  /** Levels per side in depth events and views (50). */
  depthLevels?: number;
  /** Called with every last-price change (also available as the `price` event). */
  onPrice?: ((p: PriceEvent) => void)[];
  /**
   * Keep the public market data trades build up: 24-hour stats, trade candles and recent trades
   * (true by default). A backtest turns it off: nothing reads them there (its prices come from the
   * candle files, and the margin desk's price events read only the last price), and it saves work
   * and memory on every print. Orders, fills, balances and the last price are the same either way.
   */
  recordMarketData?: boolean;
  /**
   * Closed orders kept per account for lookups (getOrder, the order history, the account's trades),
   * the newest ones; older closed orders are forgotten. Default: every one, as the exchange keeps
   * them. A backtest keeps a few (BACKTEST_RETAINED_ORDERS).
   */
  retainClosedOrders?: number;
}

export interface NewAccount {
  id?: string;
  balances?: Record<string, DecimalInput>;
  fees?: Record<string, { makerFee: DecimalInput; takerFee: DecimalInput }>;
}

const RECENT_TRADES = 100;

export class SimulatedExchange extends EventEmitter<SimEvents> {
  readonly clock: Clock;
  readonly ledger = new Ledger();
  readonly accounts: AccountStore;
  readonly prng: Prng;
  readonly depthLevels: number;
  private readonly logger: Logger;
  private readonly specs = new Map<string, MarketSpec>();
  private readonly engine: SpotEngine;
  private readonly stats = new MarketStatsTracker();
  private readonly candleStore = new CandleStore();
  private readonly recent = new Map<string, SimTrade[]>();
  private readonly limiter: SlidingWindowLimiter;
  private readonly queue: (() => void)[] = [];
  private readonly dirtyDepth = new Set<string>();
  private readonly dirtyStats = new Set<string>();
  private opDepth = 0;
  private assetList: string[] | undefined;
  private readonly recordMarketData: boolean;

  constructor(opts: SimulatedExchangeOptions) {
    super();
    this.clock = opts.clock;
    this.prng = new Prng(opts.seed ?? 1);
    this.logger = opts.logger ?? silentLogger;
    this.depthLevels = opts.depthLevels ?? 50;
    this.recordMarketData = opts.recordMarketData ?? true;
    for (const m of opts.markets ?? defaultMarketSpecs()) this.specs.set(m.symbol, m);
    this.accounts = new AccountStore(this.clock, this.prng);
    this.limiter = new SlidingWindowLimiter(this.clock, opts.orderRateLimit?.limit ?? 20, opts.orderRateLimit?.windowMs ?? 10_000);
    for (const fn of opts.onPrice ?? []) this.on('price', fn);
    this.engine = new SpotEngine({
      clock: this.clock,
      ledger: this.ledger,
      prng: this.prng,
      market: (s) => this.specs.get(s),
      fees: (a, s) => this.feeRates(a, s),
      maxMarketMove: toDecimal(opts.maxMarketMove ?? DEFAULT_MAX_MARKET_MOVE, 'maxMarketMove'),
      ...(opts.retainClosedOrders !== undefined ? { retainClosedOrders: opts.retainClosedOrders } : {}),
      sink: {
        trade: (t) => this.onTrade(t),
        order: (o) => {
          const snap = copyOrder(o);
          this.queue.push(() => this.emit('order', snap));
        },
        fill: (f) => this.queue.push(() => this.emit('fill', f)),
        // Marked only while someone listens (flush builds depth events for listeners alone).
        depth: (symbol, side) => {
          if (this.listenerCount('depth') > 0) this.dirtyDepth.add(`${symbol}|${side}`);
        },
      },
    });
  }

  // ------------------------------------------------------------------------------- markets

  markets(): MarketSpec[] {
    return [...this.specs.values()];
  }

  market(symbol: string): MarketSpec | undefined {
    return this.specs.get(symbol);
  }

  requireMarket(symbol: string): MarketSpec {
    const m = this.specs.get(symbol);
    if (!m) throw new SimError(422, 'The given data was invalid.', { symbol: [`symbol ${JSON.stringify(symbol)} is not a market of this exchange`] });
    return m;
  }

  /** Every asset of every market (the markets are fixed at construction, so computed once). */
  assets(): string[] {
    this.assetList ??= [...new Set(this.markets().flatMap((m) => [m.baseAsset, m.quoteAsset]))];
    return [...this.assetList];
  }

  // --------------------------------------------------------------------------- market data in

  /** A full snapshot of one side of the replayed external book. Resting account orders it crosses are filled. */
  replaceBookSide(symbol: string, side: BookSide, levels: LevelInput[], timeMs?: number): void {
    this.requireMarket(symbol);
    void timeMs; // snapshots carry no time of their own on this exchange; fills are stamped by the clock
    this.op(() => this.engine.replaceSide(symbol, side, levels));
  }

  /** Both sides of the replayed book at once (one operation: its events go out once, after both). */
  replaceBook(symbol: string, bids: LevelInput[], asks: LevelInput[]): void {
    this.requireMarket(symbol);
    this.op(() => {
      this.engine.replaceSide(symbol, 'bid', bids);
      this.engine.replaceSide(symbol, 'ask', asks);
    });
  }

  /** A public trade: moves the last price, triggers stops, fills resting account orders it prints through. */
  recordTrade(trade: SimTrade): void {
    this.requireMarket(trade.symbol);
    this.op(() => this.engine.publicTrade({ ...trade }));
  }

  /** Set the last price without a trade (initial state before any data arrives). */
  setLastPrice(symbol: string, price: Decimal): void {
    this.requireMarket(symbol);
    this.engine.setLastPrice(symbol, price);
  }

  /** The base candle series of a market for /v1/udf/history; later trades extend it. */
  setCandles(symbol: string, candles: Candle[], baseSeconds?: number): void {
    this.requireMarket(symbol);
    this.candleStore.set(symbol, candles, baseSeconds);
  }

  // ------------------------------------------------------------------------------ market views

  lastPrice(symbol: string): Decimal | undefined {
    return this.engine.lastPrice(symbol);
  }

  bestBid(symbol: string): Decimal | undefined {
    return this.engine.book(symbol).bid.best();
  }

  bestAsk(symbol: string): Decimal | undefined {
    return this.engine.book(symbol).ask.best();
  }

  /** (best bid + best ask) / 2, or undefined when a side is empty. */
  mid(symbol: string): Decimal | undefined {
    const bid = this.bestBid(symbol);
    const ask = this.bestAsk(symbol);
    return bid && ask ? bid.plus(ask).div(2) : undefined;
  }

  /** The merged book (replayed levels plus resting account orders): bids high to low, asks low to high. */
  book(symbol: string, depth = this.depthLevels): { bids: LevelInput[]; asks: LevelInput[] } {
    const b = this.engine.book(symbol);
    return { bids: b.bid.levels(depth), asks: b.ask.levels(depth) };
  }

  marketSnapshot(symbol: string): MarketSnapshot {
    const b = this.engine.book(symbol);
    const bids = b.bid.totals();
    const asks = b.ask.totals();
    return {
      symbol,
      bidPrice: b.bid.best(),
      askPrice: b.ask.best(),
      bidVolume: bids.volume,
      askVolume: asks.volume,
      bidCount: bids.count,
      askCount: asks.count,
      ...this.stats.snapshot(symbol, this.clock.now()),
      lastPrice: this.engine.lastPrice(symbol),
    };
  }

  /** Latest trades, newest first. */
  recentTrades(symbol: string, limit = RECENT_TRADES): SimTrade[] {
    return (this.recent.get(symbol) ?? []).slice(-limit).reverse();
  }

  candles(symbol: string, resolutionSeconds: number, fromSec: number, toSec: number): Candle[] {
    return this.candleStore.history(symbol, resolutionSeconds, fromSec, toSec);
  }

  // ---------------------------------------------------------------------------------- accounts

  createAccount(req: NewAccount = {}): SimAccount {
    const account = this.accounts.create(req.id);
    for (const [asset, amount] of Object.entries(req.balances ?? {})) this.deposit(account.id, asset, amount);
    for (const [symbol, f] of Object.entries(req.fees ?? {})) this.setAccountFees(account.id, symbol, f);
    return account;
  }

  createApiKey(accountId: string, req: NewApiKey): ApiKeyRecord {
    return this.accounts.createKey(accountId, req);
  }

  deposit(accountId: string, asset: string, amount: DecimalInput): void {
    this.accounts.require(accountId);
    this.ledger.credit(accountId, asset, toDecimal(amount, `deposit ${asset}`));
  }

  /** The account behind an API key, or a 401 / 403 SimError. */
  authenticate(apiKey: string | undefined, ip: string, permission: Permission): string {
    return this.accounts.authenticate(apiKey, ip, permission);
  }

  /** Count one order call (create or cancel) against the account's limit. */
  consumeOrderCall(accountId: string): RateState & { allowed: boolean } {
    return this.limiter.take(accountId);
  }

  get orderCallWindowMs(): number {
    return this.limiter.windowMs;
  }

  orderCallState(accountId: string): RateState {
    return this.limiter.peek(accountId);
  }

  /** Give an account its own maker and taker rates on one market. */
  setAccountFees(accountId: string, symbol: string, fees: { makerFee: DecimalInput; takerFee: DecimalInput }): void {
    this.requireMarket(symbol);
    this.accounts.setFees(accountId, symbol, { makerFee: toDecimal(fees.makerFee, 'makerFee'), takerFee: toDecimal(fees.takerFee, 'takerFee') });
  }

  feeRates(accountId: string, symbol: string): FeeOverride {
    const o = this.accounts.get(accountId)?.fees.get(symbol);
    if (o) return o;
    const m = this.requireMarket(symbol);
    return { makerFee: m.makerFee, takerFee: m.takerFee };
  }

  /** Maker and taker rates of every market for the account. */
  fees(accountId: string): Record<string, FeeOverride> {
    this.accounts.require(accountId);
    return Object.fromEntries(this.markets().map((m) => [m.symbol, this.feeRates(accountId, m.symbol)]));
  }

  /** Balances of every asset the exchange lists (zero when never held), plus any other asset held. */
  balances(accountId: string): Record<string, LedgerEntry> {
    this.accounts.require(accountId);
    const held = this.ledger.balances(accountId);
    const out: Record<string, LedgerEntry> = {};
    for (const a of (this.assetList ??= this.assets())) out[a] = held[a] ?? { value: new Decimal(0), locked: new Decimal(0) };
    return { ...out, ...held };
  }

  // ------------------------------------------------------------------------------------ orders

  placeOrder(accountId: string, req: PlaceOrderRequest): SimOrder {
    this.accounts.require(accountId);
    return copyOrder(this.op(() => this.engine.place(accountId, req)));
  }

  getOrder(accountId: string, clientOrderId: string): SimOrder {
    return copyOrder(this.engine.order(accountId, clientOrderId));
  }

  cancelOrder(accountId: string, clientOrderId: string): SimOrder {
    return copyOrder(this.op(() => this.engine.cancel(accountId, clientOrderId)));
  }

  /** Every order of the account, oldest first. */
  orders(accountId: string): SimOrder[] {
    return this.engine.accountOrders(accountId).map(copyOrder);
  }

  openOrders(accountId: string, symbol?: string): SimOrder[] {
    return this.engine.openOrders(accountId, symbol || undefined).map(copyOrder);
  }

  /**
   * The account's open orders as the exchange holds them, not copies: to read at once (a backtest's
   * fill model reads prices and stops per played candle), never to keep or change.
   */
  openOrdersView(accountId: string, symbol?: string): readonly Readonly<SimOrder>[] {
    return this.engine.openOrders(accountId, symbol || undefined);
  }

  /** The account's fills, newest first. */
  accountTrades(accountId: string, symbol?: string): SimFill[] {
    const fills = this.engine.accountOrders(accountId).flatMap((o) => (symbol && o.symbol !== symbol ? [] : o.fills));
    return fills.sort((a, b) => b.timestamp - a.timestamp);
  }

  // ---------------------------------------------------------------------------------- internals

  private onTrade(t: SimTrade): void {
    if (this.recordMarketData) {
      this.stats.record(t);
      this.candleStore.record(t.symbol, t.price, t.quantity, t.timestamp);
      let list = this.recent.get(t.symbol);
      if (!list) this.recent.set(t.symbol, (list = []));
      list.push(t);
      if (list.length > RECENT_TRADES * 2) list.splice(0, list.length - RECENT_TRADES);
    }
    if (this.listenerCount('stats') > 0 || this.listenerCount('price') > 0) this.dirtyStats.add(t.symbol);
    this.queue.push(() => this.emit('trade', t));
  }

  /** Run a state change, then publish what it changed (state before events). */
  private op<T>(fn: () => T): T {
    this.opDepth++;
    try {
      return fn();
    } finally {
      if (--this.opDepth === 0) this.flush();
    }
  }

  private flush(): void {
    if (this.queue.length === 0) {
      if (this.dirtyDepth.size === 0 && this.dirtyStats.size === 0) return;
      // Only book and stats changes, which nobody listens to (a backtest's book moves): nothing to send.
      if (this.listenerCount('depth') === 0 && this.listenerCount('stats') === 0 && this.listenerCount('price') === 0) {
        clearSet(this.dirtyDepth);
        clearSet(this.dirtyStats);
        return;
      }
    }
    const events = this.queue.splice(0);
    // Depth and stats events are built only when someone listens (a backtest does not).
    const depth = this.dirtyDepth.size > 0 && this.listenerCount('depth') > 0 ? [...this.dirtyDepth] : [];
    const wantStats = this.dirtyStats.size > 0 && (this.listenerCount('stats') > 0 || this.listenerCount('price') > 0);
    const stats = wantStats ? [...this.dirtyStats] : [];
    clearSet(this.dirtyDepth);
    clearSet(this.dirtyStats);
    for (const key of depth) {
      const [symbol, side] = key.split('|') as [string, BookSide];
      const b = this.engine.book(symbol).side(side);
      const e: DepthEvent = { symbol, side, levels: b.levels(this.depthLevels) };
      events.push(() => this.emit('depth', e));
    }
    for (const symbol of stats) {
      const snap = this.marketSnapshot(symbol);
      events.push(() => this.emit('stats', snap));
      if (snap.lastPrice) {
        const p: PriceEvent = { symbol, price: snap.lastPrice, change24h: snap.change24h };
        events.push(() => this.emit('price', p));
      }
    }
    for (const e of events) {
      try {
        e();
      } catch (err) {
        this.logger.error({ err }, 'simulator event listener failed');
      }
    }
  }
}

/** Empty a set; an empty one is left alone (V8's clear() allocates a new table even then). */
function clearSet(s: Set<string>): void {
  if (s.size > 0) s.clear();
}
