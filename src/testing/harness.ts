/**
 * `mizan/testing`: unit-test a strategy without an exchange. `harness(strategy, { markets, params })`
 * builds a scripted context (its clock, positions, margin positions and key-value state are plain
 * fields the test sets) and calls the strategy's `create`; the test then feeds it closed candles
 * (`bar` for a full OHLCV bar, `candle` for a close-only one) with `h.run(bars)` / `h.feed(symbol, bar)`,
 * or calls the handlers itself, with books (`simpleBook`, `h.setBook`) and fills (`fillEvent`), and
 * reads what they returned as a list of drafts (`drafts`) to assert on.
 *
 * `ctx.candles(symbol, resolution)` answers from the candles the test fed, as the kernel does: the
 * instance's own resolution holds every bar fed (also through `h.handlers.onCandle`), a multiple of it
 * is built from them by the kernel's own builder (kernel/higher-timeframe.ts), a declared one
 * (`candles: [seconds]`) holds the bars of that length fed to it. `ctx.book(symbol)` answers the
 * book the test set (or the last one given to `onBook`).
 *
 *   const h = harness(myStrategy, { markets: ['BTCUSDT'], params: { fast: 2, slow: 3 } });
 *   const out = await h.run([bar(0, 100, 101, 99, 100), bar(60, 100, 103, 100, 102)]);
 *   expect(out[0]).toMatchObject({ kind: 'order', side: 'BUY' });
 */
import { ManualClock } from '../core/clock.js';
import { d, Decimal, incrementFromDecimals, type DecimalInput } from '../core/decimal.js';
import { silentLogger } from '../core/logger.js';
import type { BookLevel, Side } from '../core/types/market.js';
import { Bar } from '../strategy/bar.js';
import type { MarginPosition } from '../core/types/margin.js';
import type { AnyStrategyDefinition, HandlerResult, StrategyContext, StrategyHandlers } from '../strategy/define.js';
import type { Draft } from '../strategy/builders.js';
import { CandleWindow } from '../strategy/candle-window.js';
import { HigherTimeframe } from '../kernel/higher-timeframe.js';
import { resolveParams } from '../strategy/params.js';
import { plotter } from '../strategy/plots.js';
import type { BookView, FillEvent, JsonValue, OrderView, SpotPositionView, TradingStateName } from '../strategy/views.js';

export interface Harness {
  ctx: StrategyContext;
  handlers: StrategyHandlers;
  clock: ManualClock;
  positions: Map<string, SpotPositionView>;
  margin: MarginPosition[];
  kv: Map<string, JsonValue>;
  /** What ctx.openOrders() answers. */
  orders: OrderView[];
  /** Every `ctx.plot` point, in order, at the clock's time (an undeclared name throws, as in every mode). */
  plots: { name: string; symbol: string; value: number; time: number }[];
  setPosition(symbol: string, quantity: string, avgPrice?: string): void;
  /** What ctx.book(symbol) answers from now on (undefined: no book); `onBook` sets it too. */
  setBook(symbol: string, book: BookView | undefined): void;
  /**
   * One closed candle of `symbol`: the clock moves to its close (never back), it goes into the
   * candle windows, and, at the instance's resolution, to `onCandle`; its drafts.
   */
  feed(symbol: string, bar: Bar): Promise<Draft[]>;
  /**
   * The bot's trading state changes to `state` (it starts `active`): `onTradingState` gets the change
   * (from the previous state) as the kernel delivers it; its drafts.
   */
  setTradingState(state: TradingStateName, reason?: string): Promise<Draft[]>;
  /** Feeds the bars in order (of `symbol`, default the first market) and returns every draft, in order. */
  run(bars: Iterable<Bar>, symbol?: string): Promise<Draft[]>;
  /** What ctx.balance(asset) answers (free = value − locked); unset assets are 0. */
  setBalance(asset: string, value: string, locked?: string): void;
}

export interface HarnessOptions {
  markets: string[];
  params?: Record<string, unknown>;
  /** The clock's start, epoch ms. */
  now?: number;
  /** The instance's resolution in seconds (its `resolution:`), default 60. */
  resolutionSec?: number;
  /** Other resolutions the config declares (`candles:`), in seconds: fed with bars of that length. */
  candles?: number[];
  /** Candles kept per window (default 500, as the bot). */
  candleCapacity?: number;
  /**
   * A market's trading rules as `ctx.market(symbol)` gives them (default: steps of 1e-8, no minimums,
   * fees 0.2 %): e.g. `{ BTCUSDT: { minQty: '0.0001', minNotional: 5, quantityPrecision: 6 } }` to
   * test what a strategy does with an amount the exchange would refuse (dust).
   */
  marketRules?: Record<string, MarketRules>;
}

/** The rules of a market in the harness; quantity and price steps follow their precisions (decimal places). */
export interface MarketRules {
  quantityPrecision?: number;
  pricePrecision?: number;
  minQty?: DecimalInput;
  maxQty?: DecimalInput;
  minNotional?: DecimalInput;
  makerFee?: DecimalInput;
  takerFee?: DecimalInput;
}

export function harness(def: AnyStrategyDefinition, opts: HarnessOptions): Harness {
  const r = resolveParams(def.params, opts.params ?? {});
  if (!r.ok) throw new Error(r.issues.map((i) => `${i.path}: ${i.message}`).join('; '));
  const clock = new ManualClock(opts.now ?? 1_700_000_000_000);
  const positions = new Map<string, SpotPositionView>();
  const margin: MarginPosition[] = [];
  const kv = new Map<string, JsonValue>();
  const balances = new Map<string, { value: Decimal; locked: Decimal }>();
  const orders: OrderView[] = [];
  const plots: Harness['plots'] = [];
  const books = new Map<string, BookView>();
  const res = opts.resolutionSec ?? 60;
  if (!Number.isInteger(res) || res < 1) throw new Error(`resolutionSec: ${res} is not a whole number of seconds`);
  const declared = opts.candles ?? [];
  for (const s of declared) if (!Number.isInteger(s) || s < 1) throw new Error(`candles: ${s} is not a whole number of seconds`);
  const windows = new Map<string, CandleWindow>();
  const windowOf = (symbol: string, seconds: number) => {
    const k = `${symbol}:${seconds}`;
    let w = windows.get(k);
    if (!w) windows.set(k, (w = new CandleWindow(opts.candleCapacity ?? 500)));
    return w;
  };
  /** Per market: the higher timeframes built from its candles at the instance's resolution. */
  const higher = new Map<string, HigherTimeframe[]>();
  const candles = (symbol: string, seconds = res): CandleWindow => {
    if (seconds === res || declared.includes(seconds)) return windowOf(symbol, seconds);
    const k = `${symbol}:${seconds}`;
    if (!windows.has(k)) {
      if (!(seconds > res && seconds % res === 0)) {
        throw new Error(
          `strategy ${def.name}: ctx.candles(${JSON.stringify(symbol)}, ${seconds}) reads ${seconds}s candles, which are neither its resolution (${res}s) nor a multiple of it, ` +
            `and the harness does not declare them: pass candles: [${seconds}] (a config's strategies[].candles)`,
        );
      }
      // Built as the kernel builds it: from the candles already fed, then from each new one.
      const h = new HigherTimeframe(res, seconds, windowOf(symbol, seconds));
      h.seed(windowOf(symbol, res));
      const list = higher.get(symbol) ?? [];
      list.push(h);
      higher.set(symbol, list);
    }
    return windowOf(symbol, seconds);
  };
  /** A closed candle into the windows (as the trading core's bar feed does). */
  const intoWindows = (symbol: string, bar: Bar) => {
    if (bar.seconds !== res && !declared.includes(bar.seconds)) {
      throw new Error(
        `a ${bar.seconds}s bar of ${symbol} fed to a ${res}s strategy: give bars of ${res}s, or declare ${bar.seconds} in the harness's candles: [...]`,
      );
    }
    windowOf(symbol, bar.seconds).pushBar(bar);
    if (bar.seconds === res) for (const h of higher.get(symbol) ?? []) h.push(bar);
  };
  const ctx: StrategyContext = {
    name: 'test',
    params: r.values,
    markets: opts.markets,
    resolutionSec: res,
    clock,
    log: silentLogger,
    state: { get: (k) => kv.get(k) as never, set: (k, v) => void kv.set(k, v), delete: (k) => void kv.delete(k) },
    now: () => clock.now(),
    // A market with fine steps and no minimums unless marketRules says otherwise: base = the symbol without its USDT/TMN quote.
    market: (symbol) => {
      const quote = symbol.endsWith('TMN') ? 'TMN' : 'USDT';
      const r = opts.marketRules?.[symbol] ?? {};
      const qp = r.quantityPrecision ?? 8;
      const pp = r.pricePrecision ?? 8;
      return {
        symbol,
        base: symbol.slice(0, -quote.length),
        quote,
        qtyStep: incrementFromDecimals(qp),
        priceTick: incrementFromDecimals(pp),
        quantityPrecision: qp,
        pricePrecision: pp,
        minQty: d(r.minQty ?? 0),
        ...(r.maxQty !== undefined ? { maxQty: d(r.maxQty) } : {}),
        minNotional: d(r.minNotional ?? 0),
        makerFee: d(r.makerFee ?? '0.002'),
        takerFee: d(r.takerFee ?? '0.002'),
      };
    },
    book: (symbol) => books.get(symbol),
    candles,
    balance: (asset) => {
      const b = balances.get(asset);
      return b ? { asset, value: b.value, locked: b.locked, free: b.value.minus(b.locked) } : { asset, value: d(0), locked: d(0), free: d(0) };
    },
    position: (s) => positions.get(s),
    marginPositions: (m) => margin.filter((p) => !m || p.market === m),
    openOrders: (symbol) => orders.filter((o) => !symbol || o.symbol === symbol),
    plot: plotter({
      strategy: 'test',
      plots: def.plots,
      markets: opts.markets,
      sink: (_s, symbol, name) => (value) => void plots.push({ name, symbol, value, time: clock.now() }),
    }),
  };
  const created = def.create(ctx);
  // onCandle and onBook as the kernel delivers them: the candle is in ctx.candles() and the book is
  // ctx.book()'s answer when the handler runs.
  const handlers: StrategyHandlers = { ...created };
  const onCandle = created.onCandle?.bind(created);
  const onBook = created.onBook?.bind(created);
  if (onCandle) {
    handlers.onCandle = (symbol, bar) => {
      intoWindows(symbol, bar);
      return onCandle(symbol, bar);
    };
  }
  if (onBook) {
    handlers.onBook = (symbol, book) => {
      books.set(symbol, book);
      return onBook(symbol, book);
    };
  }
  let tradingState: TradingStateName = 'active';
  const feed = async (symbol: string, bar: Bar): Promise<Draft[]> => {
    if (!opts.markets.includes(symbol)) throw new Error(`feed: ${symbol} is not one of the markets (${opts.markets.join(', ')})`);
    if (bar.closeTimeMs > clock.now()) clock.set(bar.closeTimeMs);
    // A declared resolution only fills its window; the strategy's own goes to onCandle (as in every mode).
    if (bar.seconds !== res || !onCandle) {
      intoWindows(symbol, bar);
      return [];
    }
    return drafts(await handlers.onCandle!(symbol, bar));
  };
  return {
    ctx,
    handlers,
    clock,
    positions,
    margin,
    kv,
    orders,
    plots,
    setBalance(asset, value, locked = '0') {
      balances.set(asset, { value: d(value), locked: d(locked) });
    },
    setPosition(symbol, quantity, avgPrice = '0') {
      positions.set(symbol, { symbol, quantity: d(quantity), avgPrice: d(avgPrice), realizedPnl: d(0) });
    },
    setBook(symbol, book) {
      if (book) books.set(symbol, book);
      else books.delete(symbol);
    },
    feed,
    async setTradingState(state, reason) {
      const previous = tradingState;
      tradingState = state;
      const change = { state, previous, ...(reason !== undefined ? { reason } : {}), since: clock.now() };
      return drafts(await created.onTradingState?.(change, ctx));
    },
    async run(bars, symbol = opts.markets[0]!) {
      const out: Draft[] = [];
      for (const b of bars) out.push(...(await feed(symbol, b)));
      return out;
    },
  };
}

/** What a handler returned (nothing, one draft or several) as an array of drafts. */
export function drafts(r: HandlerResult): Draft[] {
  if (!r) return [];
  return Array.isArray(r) ? [...(r as Draft[])] : [r as Draft];
}

/** A one-minute bar at `time` (seconds) whose open, high, low and close are all `close`, volume 1. */
export function candle(time: number, close: number | string): Bar {
  const c = Number(close);
  return new Bar(time, c, c, c, c, 1, 60);
}

/**
 * A full OHLCV bar starting at `time` (seconds) and `seconds` long (default 60), volume 1 unless given.
 * Its high must be the highest and its low the lowest of its prices.
 */
export function bar(
  time: number,
  open: number | string,
  high: number | string,
  low: number | string,
  close: number | string,
  volume: number | string = 1,
  seconds = 60,
): Bar {
  const [o, h, l, c, v] = [open, high, low, close, volume].map(Number) as [number, number, number, number, number];
  const named: [string, number][] = [
    ['open', o],
    ['high', h],
    ['low', l],
    ['close', c],
    ['volume', v],
  ];
  for (const [k, x] of named) if (!Number.isFinite(x) || x < 0) throw new RangeError(`bar at ${time}: ${k} ${String(x)} is not a number of 0 or more`);
  if (h < Math.max(o, c, l) || l > Math.min(o, c)) throw new RangeError(`bar at ${time}: high ${h} and low ${l} do not bound open ${o} and close ${c}`);
  if (!Number.isInteger(seconds) || seconds < 1) throw new RangeError(`bar at ${time}: seconds ${seconds} is not a whole number of seconds`);
  return new Bar(time, o, h, l, c, v, seconds);
}

/** A book with the given mid and a one-unit spread around it. */
export function simpleBook(symbol: string, bid: string, ask: string, healthy = true): BookView {
  const bids: BookLevel[] = [{ price: d(bid), quantity: d(10) }];
  const asks: BookLevel[] = [{ price: d(ask), quantity: d(10) }];
  return {
    symbol,
    bestBid: () => d(bid),
    bestAsk: () => d(ask),
    mid: () => d(bid).plus(ask).div(2),
    spread: () => d(ask).minus(bid),
    bids: () => bids,
    asks: () => asks,
    walk: (_side, q) => ({ avgPrice: d(ask), filled: q, cost: q.mul(ask), exhausted: false }),
    health: () => ({ healthy, reasons: healthy ? [] : ['stream_down'], bidAgeMs: 0, askAgeMs: 0, resyncs: 0 }),
  };
}

/** A fill of one of the strategy's orders, as `onFill` receives it (fee 0 in the quote asset unless given). */
export function fillEvent(f: {
  symbol: string;
  side: Side;
  price: DecimalInput;
  quantity: DecimalInput;
  clientOrderId?: string;
  fee?: DecimalInput;
  feeAsset?: string;
  timestamp?: number;
  tag?: string;
  strategy?: string;
}): FillEvent {
  return {
    clientOrderId: f.clientOrderId ?? 'test-order',
    strategy: f.strategy ?? 'test',
    symbol: f.symbol,
    side: f.side,
    price: d(f.price),
    quantity: d(f.quantity),
    fee: d(f.fee ?? 0),
    feeAsset: f.feeAsset ?? 'USDT',
    timestamp: f.timestamp ?? 1_700_000_000_000,
    ...(f.tag !== undefined ? { tag: f.tag } : {}),
  };
}

export { ManualClock };
