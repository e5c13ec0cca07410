/**
 * `mizan/testing`: unit-test a strategy without an exchange. `harness(strategy, { markets, params })`
 * builds a scripted context (its clock, positions, margin positions and key-value state are plain
 * fields the test sets) and calls the strategy's `create`; the test then calls the handlers with
 * scripted candles (`candle`), books (`simpleBook`) and fills (`fillEvent`), and reads what they
 * returned as a list of drafts (`drafts`) to assert on.
 *
 *   const h = harness(myStrategy, { markets: ['BTCUSDT'], params: { fast: 2, slow: 3 } });
 *   const out = drafts(await h.handlers.onCandle?.('BTCUSDT', candle(60, 101)));
 *   expect(out[0]).toMatchObject({ kind: 'order', side: 'BUY' });
 */
import { ManualClock } from '../core/clock.js';
import { d, Decimal, type DecimalInput } from '../core/decimal.js';
import { silentLogger } from '../core/logger.js';
import type { BookLevel, Side } from '../core/types/market.js';
import { Bar } from '../strategy/bar.js';
import type { MarginPosition } from '../core/types/margin.js';
import type { AnyStrategyDefinition, HandlerResult, StrategyContext, StrategyHandlers } from '../strategy/define.js';
import type { Draft } from '../strategy/builders.js';
import { CandleWindow } from '../strategy/candle-window.js';
import { resolveParams } from '../strategy/params.js';
import { plotter } from '../strategy/plots.js';
import type { BookView, FillEvent, JsonValue, OrderView, SpotPositionView } from '../strategy/views.js';

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
  /** What ctx.balance(asset) answers (free = value − locked); unset assets are 0. */
  setBalance(asset: string, value: string, locked?: string): void;
}

export function harness(def: AnyStrategyDefinition, opts: { markets: string[]; params?: Record<string, unknown>; now?: number }): Harness {
  const r = resolveParams(def.params, opts.params ?? {});
  if (!r.ok) throw new Error(r.issues.map((i) => `${i.path}: ${i.message}`).join('; '));
  const clock = new ManualClock(opts.now ?? 1_700_000_000_000);
  const positions = new Map<string, SpotPositionView>();
  const margin: MarginPosition[] = [];
  const kv = new Map<string, JsonValue>();
  const balances = new Map<string, { value: Decimal; locked: Decimal }>();
  const orders: OrderView[] = [];
  const plots: Harness['plots'] = [];
  const ctx: StrategyContext = {
    name: 'test',
    params: r.values,
    markets: opts.markets,
    resolutionSec: 60,
    clock,
    log: silentLogger,
    state: { get: (k) => kv.get(k) as never, set: (k, v) => void kv.set(k, v), delete: (k) => void kv.delete(k) },
    now: () => clock.now(),
    // A market with fine steps and no minimums: base = the symbol without its USDT/TMN quote.
    market: (symbol) => {
      const quote = symbol.endsWith('TMN') ? 'TMN' : 'USDT';
      const z = d(0);
      return { symbol, base: symbol.slice(0, -quote.length), quote, qtyStep: d('1e-8'), priceTick: d('1e-8'), quantityPrecision: 8, pricePrecision: 8, minQty: z, minNotional: z, makerFee: d('0.002'), takerFee: d('0.002') };
    },
    book: () => undefined,
    candles: () => new CandleWindow(10),
    balance: (asset) => {
      const b = balances.get(asset);
      return b ? { asset, value: b.value, locked: b.locked, free: b.value.minus(b.locked) } : { asset, value: d(0), locked: d(0), free: d(0) };
    },
    position: (s) => positions.get(s),
    marginPositions: (m) => margin.filter((p) => !m || p.market === m),
    openOrders: (symbol) => orders.filter((o) => !symbol || o.symbol === symbol),
    plot: plotter({ strategy: 'test', plots: def.plots, markets: opts.markets, sink: (_s, symbol, name, value) => void plots.push({ name, symbol, value, time: clock.now() }) }),
  };
  const handlers = def.create(ctx);
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

export { Decimal, ManualClock };
