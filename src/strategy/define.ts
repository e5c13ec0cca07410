/**
 * The Strategy API. A strategy is a module whose default export is `defineStrategy({...})`: a name,
 * typed parameters, and a `create(ctx)` that returns handlers (the parameters are `ctx.params`). Handlers return intents
 * (one, several, or none), synchronously or as a promise.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { MarketStats, PriceTick, PublicTrade } from '../core/types/market.js';
import type { Bar } from './bar.js';
import type { MarginPosition } from '../core/types/margin.js';
import type { Draft } from './builders.js';
import type { CandleWindow } from './candle-window.js';
import type { ParamSpecs, ParamValues } from './params.js';
import { checkPlotSpecs, type PlotSpecs } from './plots.js';
import type {
  BalanceView,
  BookHealthView,
  BookView,
  Denial,
  FillEvent,
  KeyValueStore,
  MarginAlert,
  MarketView,
  OrderUpdate,
  OrderView,
  SpotPositionView,
  TradingStateChange,
} from './views.js';

export type HandlerResult = Draft | readonly Draft[] | void | undefined;
export type MaybePromise<T> = T | Promise<T>;

export interface StrategyContext<P extends ParamSpecs = ParamSpecs> {
  /** Instance name from the config (also the client-id prefix). */
  readonly name: string;
  readonly params: ParamValues<P>;
  /** Markets this instance trades. */
  readonly markets: readonly string[];
  /** Candle resolution in seconds. */
  readonly resolutionSec: number;
  readonly clock: Clock;
  readonly log: Logger;
  /** Persistent key-value state of this instance. */
  readonly state: KeyValueStore;
  now(): number;
  market(symbol: string): MarketView;
  book(symbol: string): BookView | undefined;
  /**
   * Closed candles of a market at a resolution (default: the instance's). A multiple of the
   * instance's resolution is built from its candles (epoch-aligned; a candle shows once it closed).
   * Any other resolution must be declared in the config (`candles:`), else this throws.
   */
  candles(symbol: string, resolutionSec?: number): CandleWindow;
  balance(asset: string): BalanceView;
  position(symbol: string): SpotPositionView | undefined;
  /**
   * The pending and open margin positions this instance opened (of `market`, or all), as last synced
   * from the exchange: a closed or liquidated position leaves the list, in every mode (its trade is
   * in the backtest's result). Other strategies' positions, and ones opened by hand, are not listed,
   * and a `marginClose` or `marginAddCollateral` of them is denied (rule `ownership`). A position opened
   * outside the bot counts as the instance's when it is the only one trading that market.
   */
  marginPositions(market?: string): MarginPosition[];
  openOrders(symbol?: string): OrderView[];
  /**
   * A point of a declared plot series (`plots` in the definition) at the current candle: a backtest
   * keeps it for its report (over the candles or in its own pane). `symbol` may be left out when the
   * instance trades one market. An undeclared name throws; NaN leaves a gap.
   */
  plot(name: string, value: number, symbol?: string): void;
}

export interface StrategyHandlers {
  onStart?(): MaybePromise<HandlerResult>;
  onCandle?(symbol: string, bar: Bar): MaybePromise<HandlerResult>;
  onBook?(symbol: string, book: BookView): MaybePromise<HandlerResult>;
  onTrade?(trade: PublicTrade): MaybePromise<HandlerResult>;
  onStats?(symbol: string, stats: MarketStats): MaybePromise<HandlerResult>;
  onPrice?(tick: PriceTick): MaybePromise<HandlerResult>;
  onOrder?(update: OrderUpdate): MaybePromise<HandlerResult>;
  onFill?(fill: FillEvent): MaybePromise<HandlerResult>;
  onDenied?(denial: Denial): MaybePromise<HandlerResult>;
  /** A book this strategy trades became unhealthy or healthy again. */
  onBookHealth?(symbol: string, health: BookHealthView): MaybePromise<HandlerResult>;
  onMarginAlert?(alert: MarginAlert): MaybePromise<HandlerResult>;
  /**
   * The bot's trading state changed (`mizan halt` / `resume`, the API, a signal, a protection), in
   * every mode. A halt cancels every open order, and nothing but cancels passes until a resume: a
   * strategy that keeps orders or signals in memory rebuilds them when `state` is `active` again.
   * `ctx` is the instance's context (the one `create` received).
   */
  onTradingState?(change: TradingStateChange, ctx: StrategyContext): MaybePromise<HandlerResult>;
  /** The instance's cron schedule fired. */
  onSchedule?(time: number): MaybePromise<HandlerResult>;
  /**
   * The instance stops (the bot stops, the API stops it, the backtest ends). `stop.keepOrders`: the
   * user asked to leave the open orders on the exchange (`mizan run --keep-orders`, the API's
   * `keepOrders`); a strategy that cancels its orders on stop leaves them then.
   */
  onStop?(stop: StrategyStop): MaybePromise<HandlerResult>;
}

/** What `onStop` learns of its stop. */
export interface StrategyStop {
  /** The user asked to keep the open orders on the exchange: do not cancel them. */
  keepOrders: boolean;
}

export interface StrategyDefinition<P extends ParamSpecs = ParamSpecs> {
  name: string;
  description: string;
  params: P;
  /** Closed candles needed before the strategy can decide (the backtest warms up this many). */
  warmup?(params: ParamValues<P>): number;
  /** Series the strategy draws with `ctx.plot(name, value)`: `{ bbUpper: { pane: 'price' }, rsi: { pane: 'rsi', levels: [30, 70] } }`. */
  plots?: PlotSpecs;
  create(ctx: StrategyContext<P>): StrategyHandlers;
}

/** Identity helper that keeps the parameter types. */
export function defineStrategy<P extends ParamSpecs>(def: StrategyDefinition<P>): StrategyDefinition<P> {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(def.name)) throw new Error(`strategy name must be lower-case letters, digits and dashes, got "${def.name}"`);
  checkShape(def as unknown as Record<string, unknown>);
  checkPlotSpecs(def.name, def.plots);
  return def;
}

/**
 * What a strategy file compiled without a type check can still get wrong (esbuild strips the types):
 * said when the file is loaded, naming the strategy and the field, instead of the loader's later
 * "does not default-export a strategy".
 */
function checkShape(def: Record<string, unknown>): void {
  const name = String(def.name);
  const got = (v: unknown): string => (v === undefined ? 'nothing' : Array.isArray(v) ? 'an array' : v === null ? 'null' : typeof v);
  if (typeof def.params !== 'object' || def.params === null || Array.isArray(def.params))
    throw new Error(`strategy "${name}": params must be an object of parameter specs ({} when it has none), got ${got(def.params)}`);
  if (typeof def.create !== 'function') {
    const handlers = Object.keys(def).filter((k) => /^on[A-Z]/.test(k));
    const hint = handlers.length > 0 ? ` (${handlers.join(', ')}: handlers belong in the object create returns)` : '';
    throw new Error(`strategy "${name}": create(ctx) must be a function returning the handlers, got ${got(def.create)}${hint}`);
  }
}

export type AnyStrategyDefinition = StrategyDefinition<ParamSpecs>;
