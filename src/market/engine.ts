/**
 * MarketDataEngine: owns the local books (through BookTracker), the trade tapes, the statistics
 * and the live candle aggregators of the markets it tracks; wires a StreamPort and a DepthSource.
 * Cold start (`start(symbols)`): subscribe to the channels first, then fetch depth by REST (one
 * `/v2/depth/all` call when many markets), so no stream side is missed; stream sides then replace
 * their side. Every event is published after the state it announces was updated, and a throwing
 * listener is logged, never thrown back into the stream.
 */
import { EventEmitter } from 'eventemitter3';
import type { Clock } from '../core/clock.js';
import type { Decimal } from '../core/decimal.js';
import { type Logger, silentLogger } from '../core/logger.js';
import type { MarketStats, PriceTick, PublicTrade } from '../core/types/market.js';
import type { BookHealth } from './book-health.js';
import { BookTracker, type BookTrackerOptions } from './book-tracker.js';
import { CandleAggregator, type LiveCandle } from './candle-aggregator.js';
import { FirstCandle, type CandleHistory } from './first-candle.js';
import { UntrackedSymbolError } from './errors.js';
import type { OrderBook } from './order-book.js';
import type { BookSide, DepthSource, RawLevel, StreamEvents, StreamPort, Timers } from './ports.js';
import { realTimers } from './ports.js';
import { LateTrades } from './late-trades.js';
import { MarketStatsStore } from './stats-store.js';
import { TradeRing, TradeTape } from './trade-tape.js';

export interface MarketDataEngineOptions {
  /** Live candle resolutions in seconds, of every market not in `marketCandles`. Default [60]. */
  candleResolutions: number[];
  /** Per market, the resolutions built for it (the ones its strategies use), instead of `candleResolutions`. */
  marketCandles?: Readonly<Record<string, readonly number[]>>;
  /** Closed candles kept per market and resolution. */
  candleWindow: number;
  /** Trades kept per market. */
  tapeCapacity: number;
  /** Period of the housekeeping tick (side ages, candle closes by the clock), ms. */
  tickMs: number;
  /** A candle period closes by the clock this long after its end (room for late trades), ms. */
  closeDelayMs: number;
  /** Subscribe `<symbol>@marketCap` too. */
  subscribeStats: boolean;
  /** Subscribe `all@price`. */
  subscribeAllPrice: boolean;
  /** Send the subscriptions again after a reconnect (when the stream client does not). */
  resubscribeOnReconnect: boolean;
  book: Partial<BookTrackerOptions>;
}

export const DEFAULT_ENGINE_OPTIONS: MarketDataEngineOptions = {
  candleResolutions: [60],
  candleWindow: 500,
  tapeCapacity: 1_000,
  tickMs: 250,
  closeDelayMs: 1_000,
  subscribeStats: true,
  subscribeAllPrice: false,
  resubscribeOnReconnect: false,
  book: {},
};

export interface MarketDataEngineEvents {
  book: (symbol: string, book: OrderBook, health: BookHealth) => void;
  health: (symbol: string, health: BookHealth) => void;
  trade: (trade: PublicTrade) => void;
  candleClosed: (symbol: string, resolution: number, candle: LiveCandle) => void;
  stats: (symbol: string, stats: MarketStats) => void;
  price: (tick: PriceTick) => void;
}

export interface MarketDataEngineDeps {
  stream: StreamPort;
  depth: DepthSource;
  clock: Clock;
  timers?: Timers;
  logger?: Logger;
  options?: Partial<MarketDataEngineOptions>;
  /** The exchange's candle history: a first candle the start cut short is taken from it (first-candle.ts). */
  history?: CandleHistory;
}

export interface EngineCounters {
  /** Stream payloads the engine dropped (bad trade, levels that are not a list). */
  malformed: number;
  /** Exceptions thrown by listeners of the engine's events. */
  listenerErrors: number;
}

interface CandleSeries {
  agg: CandleAggregator;
  closed: LiveCandle[];
  first?: FirstCandle;
}

/** The closed candles to deliver now (a first candle cut short by the start waits for the history). */
const taken = (s: CandleSeries, candles: LiveCandle[]) => (s.first ? s.first.take(candles) : candles);

const DEPTH_CHANNEL = /^([A-Za-z0-9]+)@(buy|sell)Depth$/i;

export class MarketDataEngine extends EventEmitter<MarketDataEngineEvents> {
  readonly tracker: BookTracker;
  readonly tape: TradeTape;
  readonly statsStore = new MarketStatsStore();
  readonly counters: EngineCounters = { malformed: 0, listenerErrors: 0 };
  private readonly opts: MarketDataEngineOptions;
  private readonly log: Logger;
  private readonly timers: Timers;
  private readonly candleSeries = new Map<string, Map<number, CandleSeries>>();
  private readonly channels = new Set<string>();
  private readonly handlers: { [E in Exclude<keyof StreamEvents, 'depthRaw'>]: StreamEvents[E] };
  private interval: unknown;
  private wired = false;
  private readonly late: LateTrades;

  constructor(private readonly deps: MarketDataEngineDeps) {
    super();
    this.opts = { ...DEFAULT_ENGINE_OPTIONS, ...deps.options };
    this.log = deps.logger ?? silentLogger;
    this.timers = deps.timers ?? realTimers;
    this.late = new LateTrades(this.log);
    this.tape = new TradeTape(this.opts.tapeCapacity);
    this.tracker = new BookTracker({
      depth: deps.depth,
      clock: deps.clock,
      timers: this.timers,
      logger: this.log,
      options: this.opts.book,
    });
    this.tracker.on('health', (s, h) => this.publish('health', s, h));
    this.tracker.on('book', (s, b, h) => this.publish('book', s, b, h));
    this.handlers = {
      depth: (symbol, side, levels) => this.onDepth(symbol, side, levels),
      trade: (trade) => this.onTrade(trade),
      marketCap: (symbol, stats) => this.onStats(symbol, stats),
      price: (tick) => this.onPrice(tick),
      connectionDown: (connIndex) => this.tracker.connectionDown(connIndex),
      connectionUp: (connIndex) => this.onConnectionUp(connIndex),
      channelStale: (channel) => this.onChannel(channel, true),
      channelFresh: (channel) => this.onChannel(channel, false),
    };
  }

  /** Track `symbols`: subscribe, then cold-start their books. Can be called again to add markets. */
  async start(symbols: string[]): Promise<{ synced: string[]; failed: string[] }> {
    this.wire();
    const fresh = symbols.filter((s) => !this.tracker.isTracked(s));
    for (const s of fresh) {
      this.tracker.track(s);
      this.candleSeries.set(s, new Map(this.candleResolutions(s).map((res) => [res, this.newSeries(s, res)])));
      this.subscribe(`${s}@buyDepth`);
      this.subscribe(`${s}@sellDepth`);
      this.subscribe(`${s}@trade`);
      if (this.opts.subscribeStats) this.subscribe(`${s}@marketCap`);
    }
    if (this.opts.subscribeAllPrice) this.subscribe('all@price');
    return this.tracker.coldStart(fresh);
  }

  private newSeries(symbol: string, res: number): CandleSeries {
    const s: CandleSeries = { agg: new CandleAggregator(symbol, res, { closeDelayMs: this.opts.closeDelayMs }), closed: [] };
    const { history, clock } = this.deps;
    const deliver = (candles: LiveCandle[]) => {
      if (this.wired) this.closeCandles(symbol, res, s, candles);
    };
    if (history) s.first = new FirstCandle({ symbol, seconds: res, startedAt: clock.now(), history, timers: this.timers, log: this.log, deliver });
    return s;
  }

  /** Unsubscribe, stop timers and resyncs. The state stays readable. */
  stop(): void {
    if (this.interval !== undefined) this.timers.clearInterval(this.interval);
    this.interval = undefined;
    this.tracker.stop();
    if (this.wired) {
      listen(this.deps.stream, 'off', this.handlers);
      this.wired = false;
    }
    for (const c of this.channels) this.deps.stream.unsubscribe?.(c);
    this.channels.clear();
  }

  /** Housekeeping: side ages and resyncs, candles closed by the clock. Runs every `tickMs`. */
  tick(): void {
    this.tracker.tick();
    const now = this.deps.clock.now();
    for (const [symbol, series] of this.candleSeries) {
      for (const [res, s] of series) this.closeCandles(symbol, res, s, taken(s, s.agg.tick(now)));
    }
    this.late.flush(now);
  }

  /** The live candle resolutions built for a market (seconds). */
  candleResolutions(symbol: string): readonly number[] {
    return this.opts.marketCandles?.[symbol] ?? this.opts.candleResolutions;
  }

  symbols(): string[] {
    return this.tracker.symbols();
  }

  book(symbol: string): OrderBook {
    return this.tracker.book(symbol);
  }

  health(symbol: string): BookHealth {
    return this.tracker.health(symbol);
  }

  /** The book only while it is healthy: undefined when any stale reason is set. */
  healthyBook(symbol: string): OrderBook | undefined {
    return this.tracker.health(symbol).healthy ? this.tracker.book(symbol) : undefined;
  }

  /** Closed candles (oldest first, at most `candleWindow`). */
  candles(symbol: string, resolution: number): LiveCandle[] {
    return [...this.series(symbol, resolution).closed];
  }

  /** The candle of the period still open (undefined before its first trade). */
  currentCandle(symbol: string, resolution: number): LiveCandle | undefined {
    return this.series(symbol, resolution).agg.current();
  }

  /** Trades dropped from candles of one resolution because their period was already closed. */
  lateTrades(symbol: string, resolution: number): number {
    return this.series(symbol, resolution).agg.lateTrades;
  }

  /** Trades left out of at least one candle resolution, of one market or of all, since the start. */
  lateTradeCount(symbol?: string): number {
    return this.late.count(symbol);
  }

  trades(symbol: string, n?: number): PublicTrade[] {
    return this.tape.recent(symbol, n);
  }

  tradeRing(symbol: string): TradeRing | undefined {
    return this.tape.of(symbol);
  }

  stats(symbol: string): MarketStats | undefined {
    return this.statsStore.stats(symbol)?.value;
  }

  /** Last trade price from the tape; else the newest of `all@price` and `@marketCap`. */
  lastPrice(symbol: string): Decimal | undefined {
    return this.tape.last(symbol)?.price ?? this.statsStore.lastPrice(symbol)?.value;
  }

  private series(symbol: string, resolution: number): CandleSeries {
    const s = this.candleSeries.get(symbol)?.get(resolution);
    if (!s) {
      if (!this.candleSeries.has(symbol)) throw new UntrackedSymbolError(symbol);
      throw new RangeError(`no live candles of ${symbol} at resolution ${resolution}s (built: ${this.candleResolutions(symbol).join(', ')})`);
    }
    return s;
  }

  private wire(): void {
    if (this.wired) return;
    this.wired = true;
    listen(this.deps.stream, 'on', this.handlers);
    if (this.interval === undefined && this.opts.tickMs > 0) {
      this.interval = this.timers.setInterval(() => this.guard('tick', () => this.tick()), this.opts.tickMs);
    }
  }

  private subscribe(channel: string): void {
    if (this.channels.has(channel)) return;
    this.channels.add(channel);
    this.deps.stream.subscribe(channel);
  }

  private onDepth(symbol: string, side: BookSide, levels: ArrayLike<RawLevel>): void {
    this.guard('depth', () => {
      if (!this.tracker.isTracked(symbol)) return;
      let list = levels;
      if (list === null || typeof list !== 'object') {
        this.counters.malformed++;
        return;
      }
      // socket.io delivers an object keyed "0", "1", …: accept it if an adapter passes it through.
      if (typeof list.length !== 'number') list = Object.values(list as object) as RawLevel[];
      this.tracker.applySide(symbol, side === 'ask' ? 'ask' : 'bid', list);
    });
  }

  private onTrade(trade: PublicTrade): void {
    this.guard('trade', () => {
      const series = this.candleSeries.get(trade?.symbol);
      if (!series) return;
      if (!validTrade(trade)) {
        this.counters.malformed++;
        this.log.warn({ symbol: trade.symbol }, 'malformed trade dropped');
        return;
      }
      this.tape.push(trade);
      const closed: [number, CandleSeries, LiveCandle[]][] = [];
      let lateFor: number[] | undefined;
      for (const [res, s] of series) {
        const late = s.agg.lateTrades;
        closed.push([res, s, taken(s, s.agg.addTrade(trade))]);
        if (s.agg.lateTrades !== late) (lateFor ??= []).push(res);
      }
      if (lateFor) this.late.record(trade.symbol, trade.timestamp, lateFor, this.deps.clock.now());
      for (const [, s, candles] of closed) this.store(s, candles);
      for (const [res, , candles] of closed) for (const c of candles) this.publish('candleClosed', trade.symbol, res, c);
      this.publish('trade', trade);
    });
  }

  private closeCandles(symbol: string, res: number, s: CandleSeries, candles: LiveCandle[]): void {
    if (candles.length === 0) return;
    this.store(s, candles);
    for (const c of candles) this.publish('candleClosed', symbol, res, c);
  }

  private store(s: CandleSeries, candles: LiveCandle[]): void {
    if (candles.length === 0) return;
    s.closed.push(...candles);
    const extra = s.closed.length - this.opts.candleWindow;
    if (extra > 0) s.closed.splice(0, extra);
  }

  private onStats(symbol: string, stats: MarketStats): void {
    this.guard('marketCap', () => {
      this.statsStore.setStats(symbol, stats, this.deps.clock.now());
      this.publish('stats', symbol, stats);
    });
  }

  private onPrice(tick: PriceTick): void {
    this.guard('price', () => {
      this.statsStore.setPrice(tick, this.deps.clock.now());
      this.publish('price', tick);
    });
  }

  private onConnectionUp(connIndex: number): void {
    this.guard('connectionUp', () => {
      if (this.opts.resubscribeOnReconnect) for (const c of this.channels) this.deps.stream.subscribe(c);
      this.tracker.connectionUp(connIndex);
    });
  }

  private onChannel(channel: string, stale: boolean): void {
    const m = DEPTH_CHANNEL.exec(typeof channel === 'string' ? channel.replace(/[^\x21-\x7e]/g, '') : '');
    if (!m) return;
    const symbol = (m[1] as string).toUpperCase();
    const side: BookSide = (m[2] as string).toLowerCase() === 'buy' ? 'bid' : 'ask';
    if (stale) this.tracker.channelStale(symbol, side);
    else this.tracker.channelFresh(symbol, side);
  }

  /** Emit, logging (not throwing) a listener's exception. */
  private publish<E extends keyof MarketDataEngineEvents>(event: E, ...args: Parameters<MarketDataEngineEvents[E]>): void {
    try {
      (this.emit as (e: E, ...a: Parameters<MarketDataEngineEvents[E]>) => boolean)(event, ...args);
    } catch (err) {
      this.counters.listenerErrors++;
      this.log.error({ err, event }, 'market-data listener threw');
    }
  }

  private guard(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.counters.malformed++;
      this.log.warn({ err, what }, 'market-data stream message dropped');
    }
  }
}

function validTrade(t: PublicTrade): boolean {
  return (
    typeof t.symbol === 'string' &&
    typeof t.price?.isFinite === 'function' &&
    t.price.isFinite() &&
    t.price.gt(0) &&
    typeof t.quantity?.isFinite === 'function' &&
    t.quantity.isFinite() &&
    t.quantity.gte(0) &&
    Number.isFinite(t.timestamp)
  );
}

/** Add or remove every handler (one call per event: StreamPort's `on`/`off` are overloads). */
function listen(stream: StreamPort, method: 'on' | 'off', h: { [E in Exclude<keyof StreamEvents, 'depthRaw'>]: StreamEvents[E] }): void {
  const m = method === 'on' ? stream.on.bind(stream) : stream.off.bind(stream);
  if (stream.emitsRawDepth === true) m('depthRaw', h.depth);
  else m('depth', h.depth);
  m('trade', h.trade);
  m('marketCap', h.marketCap);
  m('price', h.price);
  m('connectionDown', h.connectionDown);
  m('connectionUp', h.connectionUp);
  m('channelStale', h.channelStale);
  m('channelFresh', h.channelFresh);
}
