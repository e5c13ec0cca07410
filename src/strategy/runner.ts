/**
 * Runs one strategy instance: delivers events to its handlers one at a time and in order (a slow
 * async handler delays the next event, it is never re-entered), stamps the instance name on the
 * intents it returns and hands them to the intent sink (risk, then execution). A handler that
 * throws is logged and counted; the bot keeps running.
 */
import type { Intent } from '../core/intents.js';
import type { Logger } from '../core/logger.js';
import type { MarketStats, PriceTick, PublicTrade } from '../core/types/market.js';
import type { Bar } from './bar.js';
import type { Draft } from './builders.js';
import type { HandlerResult, StrategyContext, StrategyHandlers } from './define.js';
import { HandlerErrors } from './handler-errors.js';
import type { BookHealthView, BookView, Denial, FillEvent, MarginAlert, OrderUpdate, TradingStateChange } from './views.js';

export type StrategyEvent =
  | { type: 'start' }
  | { type: 'candle'; symbol: string; bar: Bar }
  | { type: 'book'; symbol: string; book: BookView }
  | { type: 'trade'; trade: PublicTrade }
  | { type: 'stats'; symbol: string; stats: MarketStats }
  | { type: 'price'; tick: PriceTick }
  | { type: 'order'; update: OrderUpdate }
  | { type: 'fill'; fill: FillEvent }
  | { type: 'denied'; denial: Denial }
  | { type: 'bookHealth'; symbol: string; health: BookHealthView }
  | { type: 'marginAlert'; alert: MarginAlert }
  | { type: 'tradingState'; change: TradingStateChange }
  | { type: 'schedule'; time: number }
  | { type: 'stop'; keepOrders: boolean };

/** The handler each event type is delivered to. */
const HANDLER: { readonly [T in StrategyEvent['type']]: keyof StrategyHandlers } = {
  start: 'onStart',
  candle: 'onCandle',
  book: 'onBook',
  trade: 'onTrade',
  stats: 'onStats',
  price: 'onPrice',
  order: 'onOrder',
  fill: 'onFill',
  denied: 'onDenied',
  bookHealth: 'onBookHealth',
  marginAlert: 'onMarginAlert',
  tradingState: 'onTradingState',
  schedule: 'onSchedule',
  stop: 'onStop',
};

type IntentSink = (intents: Intent[], strategy: string) => void | Promise<void>;

export interface RunnerDeps {
  ctx: StrategyContext;
  handlers: StrategyHandlers;
  /**
   * Builds the handlers anew (the definition's `create(ctx)`): a start after a stop runs on a fresh
   * instance, as after a restart of the bot (what the strategy keeps is in its state store).
   */
  recreate?: () => StrategyHandlers;
  sink: IntentSink;
  logger: Logger;
}

export class StrategyRunner {
  private queue: Promise<void> = Promise.resolve();
  /** Events queued and not yet handled. */
  private queued = 0;
  private stopped = false;
  errors = 0;
  intentsEmitted = 0;
  /** Handler errors by kind; logs the first of each with its stack, repeats rate-limited (test/runtime/run-handler-errors.test.ts). */
  readonly errorLog: HandlerErrors;

  private handlers: StrategyHandlers;

  constructor(private readonly deps: RunnerDeps) {
    this.handlers = deps.handlers;
    this.errorLog = new HandlerErrors(deps.logger, deps.ctx.name, { now: () => deps.ctx.now() });
  }

  /** True after a stop event, until a start event. */
  get isStopped(): boolean {
    return this.stopped;
  }

  get name(): string {
    return this.deps.ctx.name;
  }

  /** Resolves when every event queued so far has been handled. */
  drain(): Promise<void> {
    return this.queue;
  }

  /** Whether a queued event is still being handled (when not, drain() has nothing to wait for). */
  get busy(): boolean {
    return this.queued > 0;
  }

  /** Queue an event; resolves when it (and every event before it) has been handled. */
  dispatch(event: StrategyEvent): Promise<void> {
    // Stopped: only a new start is delivered (the API's strategy start); a second stop is not.
    if (this.stopped && event.type !== 'start') return this.queue;
    if (event.type === 'stop') this.stopped = true;
    if (event.type === 'start' && this.stopped) {
      this.stopped = false;
      const recreate = this.deps.recreate;
      if (recreate) {
        // In the queue: the stop queued before must still reach the old handlers.
        this.queued++;
        this.queue = this.queue.then(() => {
          try {
            this.handlers = recreate();
          } catch (err) {
            this.stopped = true;
            this.queued--;
            this.fail(err, event);
            return;
          }
          return this.handle(event);
        });
        return this.queue;
      }
    }
    // No handler for this type: handling it would do nothing, so nothing is queued (no promise per
    // order or fill event a strategy does not read). The answer is the same: the queue so far.
    if (typeof this.handlers[HANDLER[event.type]] !== 'function') return this.queue;
    this.queued++;
    this.queue = this.queue.then(() => this.handle(event));
    return this.queue;
  }

  /**
   * Deliver a closed candle: the one candle path of every mode. With nothing queued before it the
   * handler runs at once, synchronously when it is synchronous (no promise or event object per
   * candle: the backtest's hot path); behind queued events it waits its turn like any event.
   * Returns a promise only when there is something to wait for.
   */
  candle(symbol: string, bar: Bar): void | Promise<void> {
    const h = this.handlers;
    if (!h.onCandle || this.stopped) return;
    if (this.queued > 0) return this.dispatch({ type: 'candle', symbol, bar });
    let result: HandlerResult | Promise<HandlerResult>;
    try {
      result = h.onCandle(symbol, bar);
    } catch (err) {
      this.fail(err, { type: 'candle', symbol, bar });
      return;
    }
    if (result instanceof Promise) return this.settle(result, { type: 'candle', symbol, bar });
    if (!result) return;
    const done = this.emit(result, { type: 'candle', symbol, bar });
    // Its intents are still executing: the next event waits for them, as behind a queued event.
    return done
      ? this.settle(
          done.then(() => undefined),
          undefined,
        )
      : undefined;
  }

  /**
   * Finish a candle that did not end synchronously: its async handler (`event` given: its result is
   * then emitted) or the intents it emitted. Later events queue behind it.
   */
  private settle(p: Promise<HandlerResult>, event: StrategyEvent | undefined): Promise<void> {
    this.queued++;
    this.queue = this.queue.then(async () => {
      try {
        let r: HandlerResult;
        try {
          r = await p;
        } catch (err) {
          if (event) this.fail(err, event);
          return;
        }
        if (event) await this.emit(r, event);
      } finally {
        this.queued--;
      }
    });
    return this.queue;
  }

  /** Whether the strategy has a handler for this event type (a backtest builds no event nobody reads). */
  handles(type: StrategyEvent['type']): boolean {
    return typeof this.handlers[HANDLER[type]] === 'function';
  }

  private async handle(event: StrategyEvent): Promise<void> {
    try {
      let result: HandlerResult;
      try {
        result = await this.invoke(event);
      } catch (err) {
        this.fail(err, event);
        return;
      }
      await this.emit(result, event);
    } finally {
      this.queued--;
    }
  }

  private fail(err: unknown, event: StrategyEvent): void {
    this.errors++;
    this.errorLog.record(HANDLER[event.type], err);
  }

  private invoke(event: StrategyEvent): HandlerResult | Promise<HandlerResult> {
    const h = this.handlers;
    try {
      switch (event.type) {
        case 'start':
          return h.onStart?.();
        case 'candle':
          return h.onCandle?.(event.symbol, event.bar);
        case 'book':
          return h.onBook?.(event.symbol, event.book);
        case 'trade':
          return h.onTrade?.(event.trade);
        case 'stats':
          return h.onStats?.(event.symbol, event.stats);
        case 'price':
          return h.onPrice?.(event.tick);
        case 'order':
          return h.onOrder?.(event.update);
        case 'fill':
          return h.onFill?.(event.fill);
        case 'denied':
          return h.onDenied?.(event.denial);
        case 'bookHealth':
          return h.onBookHealth?.(event.symbol, event.health);
        case 'marginAlert':
          return h.onMarginAlert?.(event.alert);
        case 'tradingState':
          return h.onTradingState?.(event.change, this.deps.ctx);
        case 'schedule':
          return h.onSchedule?.(event.time);
        case 'stop':
          return h.onStop?.({ keepOrders: event.keepOrders });
      }
    } catch (err) {
      this.fail(err, event);
      return undefined;
    }
  }

  private emit(result: HandlerResult, event: StrategyEvent): void | Promise<void> {
    if (!result) return;
    const drafts: readonly Draft[] = Array.isArray(result) ? (result as readonly Draft[]) : [result as Draft];
    if (drafts.length === 0) return;
    // Object.assign, not an object spread: the same own properties and order for a draft (a plain
    // object), at a fraction of the cost (V8 builds `{ ...d, strategy }` on a slow path).
    const strategy = this.name;
    const intents = drafts.map((d) => Object.assign({}, d, { strategy }) as Intent);
    this.intentsEmitted += intents.length;
    try {
      const r = this.deps.sink(intents, this.name);
      if (r instanceof Promise) return r.catch((err) => this.fail(err, event));
    } catch (err) {
      this.fail(err, event);
    }
  }
}
