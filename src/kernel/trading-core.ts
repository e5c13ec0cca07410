/**
 * The trading core shared by live, paper and backtest: strategy instances with their contexts,
 * the intent pipeline (risk -> execution; the risk engine journals every verdict through its sink,
 * src/risk/sinks.ts) and the feedback (orders, fills, denials) to the strategy that asked. Modes differ only in the ports handed in (venue, books, clock).
 */
import { Decimal } from '../core/decimal.js';
import type { ExitIntent, Intent, Verdict } from '../core/intents.js';
import { denialOf } from '../risk/types.js';
import { DenialTally } from './denial-tally.js';
import type { MarketStats, PriceTick, PublicTrade } from '../core/types/market.js';
import type { Bar } from '../strategy/bar.js';
import { CandleWindow } from '../strategy/candle-window.js';
import type { StrategyContext } from '../strategy/define.js';
import { StrategyRunner, type StrategyEvent } from '../strategy/runner.js';
import type { BookHealthView, BookView, Denial, FillEvent, MarginAlert, TradingStateChange } from '../core/views.js';
import { HigherTimeframe } from './higher-timeframe.js';
import { strategyContext, undeclared } from './strategy-context.js';
import { IntentExecutor } from './intent-executor.js';
import { planExit } from './exit-intent.js';
import { precheck } from './precheck.js';
import type { StrategyInstance, TradingCoreDeps } from './trading-core-ports.js';
import { MAIN_ACCOUNT } from '../core/account.js';

export type { RiskPort, StrategyInstance, TradingCoreDeps } from './trading-core-ports.js';

/** A verdict that passed the intent (with the reservation it holds, if any). */
type PassedVerdict = Extract<Verdict, { ok: true }> & { reservationId?: string };

export class TradingCore {
  readonly runners = new Map<string, StrategyRunner>();
  private readonly runnerList: StrategyRunner[] = [];
  private readonly windows = new Map<string, CandleWindow>();
  private readonly feeds = new Map<string, (bar: Bar) => void | Promise<void>>();
  /** Per market and base resolution: the higher timeframes built from its candles. */
  private readonly higher = new Map<string, HigherTimeframe[]>();
  private readonly built = new Set<string>();
  /** Closed candles fed per market and resolution since the start (the status line's warm-up). */
  private readonly seen = new Map<string, { n: number }>();
  private readonly bySymbol = new Map<string, StrategyRunner[]>();
  readonly executor: IntentExecutor;
  denials = 0;
  /** The last denial (the status line shows it, with its numbers). */
  lastDenial: Denial | undefined;
  /** Denials by rule and reason (the backtest summary and result.json break them down). */
  readonly denialTally = new DenialTally();
  fills = 0;
  private readonly denialListeners: ((d: Denial) => void)[] = [];

  constructor(private readonly deps: TradingCoreDeps) {
    this.executor = new IntentExecutor({
      engine: deps.engine,
      venueFor: deps.venueFor,
      portfolio: deps.portfolio,
      clock: deps.clock,
      logger: deps.logger,
      accountOf: (s) => this.instance(s)?.account ?? MAIN_ACCOUNT,
      deny: (d) => this.deny(d),
      release: (id) => deps.risk.release?.(id),
      best: (symbol, side) => (side === 'bid' ? deps.book(symbol)?.bestBid() : deps.book(symbol)?.bestAsk()),
      ...(deps.executionJournal ? { journal: deps.executionJournal } : {}),
      fill: (f, account) => this.onFill(f, account),
      instrument: (symbol) => deps.instrument(symbol),
      ...(deps.ownerOf ? { ownerOf: deps.ownerOf } : {}),
    });
    for (const inst of deps.instances) {
      const ctx = this.context(inst);
      const handlers = inst.definition.create(ctx);
      const runner = new StrategyRunner({
        ctx,
        handlers,
        recreate: () => inst.definition.create(ctx),
        logger: deps.logger.child({ strategy: inst.name }),
        sink: (intents) => this.process(intents),
      });
      this.runners.set(inst.name, runner);
      this.runnerList.push(runner);
      for (const s of inst.markets) {
        const list = this.bySymbol.get(s) ?? [];
        list.push(runner);
        this.bySymbol.set(s, list);
      }
    }
    deps.engine.on('order', (u) => void this.runners.get(u.order.strategy)?.dispatch({ type: 'order', update: u }));
    deps.engine.on('fill', (f) => {
      const inst = this.instance(f.strategy);
      this.onFill(f, inst?.account ?? MAIN_ACCOUNT);
    });
  }

  private instance(name: string): StrategyInstance | undefined {
    return this.deps.instances.find((i) => i.name === name);
  }

  private onFill(f: FillEvent, account: string): void {
    this.fills++;
    // Booked once, into the ledger (balances, position, round trip; a closed round trip reaches the
    // protections from there).
    this.deps.portfolio.applyFill(f, account);
    // Last: the kernel's listeners, which book it elsewhere (a backtest's trade book) and then let
    // the brackets react (an exit they place and fill in this call comes after this fill everywhere).
    this.deps.onFill?.(f);
    void this.runners.get(f.strategy)?.dispatch({ type: 'fill', fill: f });
  }

  /**
   * Every denial of every strategy, risk's and the exchange's alike (the API's denial log). Returns
   * the function that stops listening.
   */
  onDenial(listener: (d: Denial) => void): () => void {
    this.denialListeners.push(listener);
    return () => {
      const i = this.denialListeners.indexOf(listener);
      if (i >= 0) this.denialListeners.splice(i, 1);
    };
  }

  private deny(d: Denial): void {
    this.denials++;
    this.lastDenial = d;
    this.denialTally.add(d.rule, d.reason);
    for (const l of this.denialListeners) l(d);
    // Risk denials are logged by the risk engine; exchange refusals by the executor. Here: debug only.
    this.deps.logger.debug({ strategy: d.intent.strategy, rule: d.rule, reason: d.reason, intent: d.intent.kind }, 'intent denied');
    void this.runners.get(d.intent.strategy)?.dispatch({ type: 'denied', denial: d });
  }

  /**
   * Check and execute the intents of one handler call, in order. While intents are denied
   * this runs synchronously (a denial needs no await); from the first one that passes it goes on
   * asynchronously and returns the promise.
   */
  process(intents: Intent[]): void | Promise<void> {
    for (let i = 0; i < intents.length; i++) {
      const v = this.decide(intents[i]!);
      if (v instanceof Promise) return this.previewedFrom(intents, i, v);
      if (v) return this.executeFrom(intents, i, v);
    }
  }

  /** Intent `i` waits for what the exchange is asked first (`v`): then executed if it passed, and the rest go on. */
  private async previewedFrom(intents: Intent[], i: number, pending: Promise<PassedVerdict | undefined>): Promise<void> {
    const v = await pending;
    if (v) return this.executeFrom(intents, i, v);
    const rest = this.process(intents.slice(i + 1));
    if (rest) await rest;
  }

  /**
   * Check one intent; a denial is delivered here. The verdict when it passed. A margin open that
   * needs the exchange's dry-run preview (a minimum call distance applies) and an instant order (its
   * price) give a promise: the exchange is asked on the strategy's venue first (kernel/precheck.ts).
   */
  private decide(intent: Intent): PassedVerdict | undefined | Promise<PassedVerdict | undefined> {
    if (intent.kind === 'exit') return this.exit(intent);
    const asks = intent.kind === 'instant' || intent.kind === 'marginOpen';
    const pre = asks ? precheck(intent, this.deps.risk, () => this.deps.venueFor(this.instance(intent.strategy)?.account ?? MAIN_ACCOUNT)) : undefined;
    if (pre) return pre.then((options) => this.verdict(intent, this.deps.risk.check(intent, options)));
    return this.verdict(intent, this.deps.risk.check(intent));
  }

  /** An exit (kernel/exit-intent.ts): the brackets exit by themselves; the rest of the position is a market sell risk checks. */
  private exit(intent: ExitIntent): PassedVerdict | undefined {
    const d = this.deps;
    const plan = planExit(intent, {
      exitBrackets: (s, sym) => d.exitBrackets?.(s, sym) ?? new Decimal(0),
      position: (s, sym) => d.portfolio.positions.get(s, sym)?.quantity ?? new Decimal(0),
      market: (sym) => d.market(sym),
      halted: () => d.halted?.(),
      marketsOf: (s) => this.instance(s)?.markets,
    });
    if ('denied' in plan) return this.verdict(intent, { ok: false, intent, rule: 'exit', reason: plan.denied });
    d.logger.debug(
      { strategy: intent.strategy, symbol: intent.symbol, rest: plan.order?.size.kind === 'base' ? plan.order.size.quantity.toFixed() : '0' },
      'exit: the brackets cancel their legs and exit at market; the rest is sold at market',
    );
    return plan.order ? this.verdict(plan.order, d.risk.check(plan.order)) : undefined;
  }

  private verdict(intent: Intent, verdict: Verdict & { reservationId?: string }): PassedVerdict | undefined {
    this.deps.journal?.recordDecision?.(verdict);
    if (!verdict.ok) {
      this.deny(denialOf({ ...verdict, intent }));
      return undefined;
    }
    if (verdict.adjustments.length > 0) this.deps.logger.debug({ strategy: intent.strategy, adjustments: verdict.adjustments }, 'intent adjusted');
    return verdict;
  }

  /** Execute intent `i` (passed with verdict `v`), then check and execute the rest, in order. */
  private async executeFrom(intents: Intent[], i: number, v: PassedVerdict): Promise<void> {
    for (;;) {
      await this.executor.execute(v.intent, v.reservationId);
      let next: PassedVerdict | undefined;
      while (++i < intents.length) {
        const d = this.decide(intents[i]!);
        next = d instanceof Promise ? await d : d;
        if (next) break;
      }
      if (!next) return;
      v = next;
    }
  }

  /** The closed candles strategies were given for a market and resolution (read-only use). */
  candleWindow(symbol: string, res: number): CandleWindow {
    return this.windowFor(symbol, res);
  }

  private windowFor(symbol: string, res: number): CandleWindow {
    const k = `${symbol}:${res}`;
    let w = this.windows.get(k);
    if (!w) {
      w = new CandleWindow(this.deps.candleCapacity ?? 500);
      this.windows.set(k, w);
    }
    return w;
  }

  private context(inst: StrategyInstance): StrategyContext {
    /** Windows of other resolutions this instance was given (checked once: a strategy may ask per candle). */
    const other = new Map<string, CandleWindow>();
    return strategyContext(inst, this.deps, (symbol, res) => {
      const r = res ?? inst.resolutionSec;
      if (r === inst.resolutionSec) return this.windowFor(symbol, r);
      const k = `${symbol}:${r}`;
      let w = other.get(k);
      if (w) return w;
      if (!this.fed(symbol, r)) {
        // A multiple of the strategy's resolution is built from its own candles (none is streamed for it).
        if (r > inst.resolutionSec && r % inst.resolutionSec === 0) this.ensureHigher(symbol, inst.resolutionSec, r);
        else throw undeclared(inst, symbol, r);
      }
      other.set(k, (w = this.windowFor(symbol, r)));
      return w;
    });
  }

  // ------------------------------------------------------------------------------ market events

  async start(): Promise<void> {
    await Promise.all([...this.runners.values()].map((r) => r.dispatch({ type: 'start' })));
  }

  /** Every instance's onStop; `keepOrders`: the user asked to leave the open orders on the exchange. */
  async stop(opts: { keepOrders?: boolean } = {}): Promise<void> {
    const keepOrders = opts.keepOrders ?? false;
    await Promise.all([...this.runners.values()].map((r) => r.dispatch({ type: 'stop', keepOrders })));
  }

  /**
   * A closed candle: into the window, then to the instances trading the market at that resolution.
   * The one candle path of every mode (live's candle events and the backtest's walk): synchronous
   * when the handlers are and nothing is queued; a promise only when there is something to wait for.
   */
  onBar(symbol: string, bar: Bar): void | Promise<void> {
    return this.barFeed(symbol, bar.seconds)(bar);
  }

  /**
   * onBar of one market and resolution with its window and runners looked up once (made on first
   * use, then kept): a backtest takes it once per market and calls it per candle.
   */
  barFeed(symbol: string, seconds: number): (bar: Bar) => void | Promise<void> {
    const k = `${symbol}:${seconds}`;
    let feed = this.feeds.get(k);
    if (feed) return feed;
    const window = this.windowFor(symbol, seconds);
    const higher = this.higherOf(symbol, seconds);
    const runners = (this.bySymbol.get(symbol) ?? []).filter((r) => this.instance(r.name)!.resolutionSec === seconds);
    const seen = { n: 0 };
    this.seen.set(k, seen);
    feed = (bar) => {
      seen.n++;
      window.pushBar(bar);
      for (let i = 0; i < higher.length; i++) higher[i]!.push(bar);
      let pending: Promise<void>[] | undefined;
      for (const r of runners) {
        const p = r.candle(symbol, bar);
        if (p) (pending ??= []).push(p);
      }
      return pending ? Promise.all(pending).then(() => undefined) : undefined;
    };
    this.feeds.set(k, feed);
    return feed;
  }

  /** How many closed candles of a market and resolution reached the strategies since the start. */
  candlesSeen(symbol: string, seconds: number): number {
    return this.seen.get(`${symbol}:${seconds}`)?.n ?? 0;
  }

  /** The strategy instances, as configured. */
  get instances(): readonly StrategyInstance[] {
    return this.deps.instances;
  }

  private higherOf(symbol: string, base: number): HigherTimeframe[] {
    const k = `${symbol}:${base}`;
    let list = this.higher.get(k);
    if (!list) this.higher.set(k, (list = []));
    return list;
  }

  /**
   * Whether the mode feeds `seconds` candles of `symbol` itself: an instance trades the market at
   * that resolution, or declared it (`candles:` in the config).
   */
  private fed(symbol: string, seconds: number): boolean {
    return this.deps.instances.some((i) => i.markets.includes(symbol) && (i.resolutionSec === seconds || (i.candleSeconds?.includes(seconds) ?? false)));
  }

  /** Build `seconds` candles of a market from its `base` candles (the caller checked none is fed). */
  private ensureHigher(symbol: string, base: number, seconds: number): void {
    // One builder per market and resolution (two strategies of different resolutions may ask for it).
    const k = `${symbol}:${seconds}`;
    if (this.built.has(k)) return;
    this.built.add(k);
    const h = new HigherTimeframe(base, seconds, this.windowFor(symbol, seconds));
    h.seed(this.windowFor(symbol, base));
    this.higherOf(symbol, base).push(h);
  }

  /** Whether an instance trading `symbol` handles `type` events (backtests skip unread events). */
  listens(symbol: string, type: StrategyEvent['type']): boolean {
    return (this.bySymbol.get(symbol) ?? []).some((r) => r.handles(type));
  }

  onBook(symbol: string, book: BookView): void {
    for (const r of this.bySymbol.get(symbol) ?? []) void r.dispatch({ type: 'book', symbol, book });
  }

  onBookHealth(symbol: string, health: BookHealthView): void {
    for (const r of this.bySymbol.get(symbol) ?? []) void r.dispatch({ type: 'bookHealth', symbol, health });
  }

  onTrade(trade: PublicTrade): void {
    for (const r of this.bySymbol.get(trade.symbol) ?? []) void r.dispatch({ type: 'trade', trade });
  }

  onStats(symbol: string, stats: MarketStats): void {
    for (const r of this.bySymbol.get(symbol) ?? []) void r.dispatch({ type: 'stats', symbol, stats });
  }

  onPrice(tick: PriceTick): void {
    for (const r of this.bySymbol.get(tick.symbol) ?? []) void r.dispatch({ type: 'price', tick });
  }

  onSchedule(strategy: string, time: number): Promise<void> {
    return this.runners.get(strategy)?.dispatch({ type: 'schedule', time }) ?? Promise.resolve();
  }

  onMarginAlert(strategy: string, alert: MarginAlert): void {
    void this.runners.get(strategy)?.dispatch({ type: 'marginAlert', alert });
  }

  /** The trading state changed: to every strategy (test/e2e/halt-resume-grid.test.ts). */
  onTradingState(change: TradingStateChange): void {
    for (const r of this.runnerList) void r.dispatch({ type: 'tradingState', change });
  }

  /** Whether a strategy has queued events not handled yet (a denial or order update raised during a handler). */
  get busy(): boolean {
    // Asked after every candle (a backtest's walk): an indexed loop, no iterator.
    const list = this.runnerList;
    for (let i = 0; i < list.length; i++) if (list[i]!.busy) return true;
    return false;
  }

  /**
   * Wait until every strategy has handled everything queued so far. With nothing queued there is
   * nothing to wait for and no promise is made (a backtest asks after every order).
   */
  idle(): void | Promise<void> {
    let pending: Promise<void>[] | undefined;
    for (const r of this.runners.values()) if (r.busy) (pending ??= []).push(r.drain());
    return pending ? Promise.all(pending).then(() => undefined) : undefined;
  }
}
