/**
 * A scripted context for strategy unit tests: positions, margin positions, books and state are
 * plain mutable fields the test sets; handler results are returned as drafts for assertions.
 */
import { ManualClock } from '../../src/core/clock.js';
import { d, Decimal } from '../../src/core/decimal.js';
import { silentLogger } from '../../src/core/logger.js';
import type { BookLevel } from '../../src/core/types/market.js';
import { Bar } from '../../src/strategy/bar.js';
import type { MarginPosition } from '../../src/core/types/margin.js';
import type { AnyStrategyDefinition, HandlerResult, StrategyContext, StrategyHandlers } from '../../src/strategy/define.js';
import type { Draft } from '../../src/strategy/builders.js';
import { CandleWindow } from '../../src/strategy/candle-window.js';
import { resolveParams } from '../../src/strategy/params.js';
import type { BookView, JsonValue, OrderView, SpotPositionView } from '../../src/strategy/views.js';

export interface Harness {
  ctx: StrategyContext;
  handlers: StrategyHandlers;
  clock: ManualClock;
  positions: Map<string, SpotPositionView>;
  margin: MarginPosition[];
  kv: Map<string, JsonValue>;
  /** What ctx.openOrders() answers. */
  orders: OrderView[];
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
    setBalance(asset, value, locked = '0') {
      balances.set(asset, { value: d(value), locked: d(locked) });
    },
    setPosition(symbol, quantity, avgPrice = '0') {
      positions.set(symbol, { symbol, quantity: d(quantity), avgPrice: d(avgPrice), realizedPnl: d(0) });
    },
  };
}

export function drafts(r: HandlerResult): Draft[] {
  if (!r) return [];
  return Array.isArray(r) ? [...(r as Draft[])] : [r as Draft];
}

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

export { Decimal };
