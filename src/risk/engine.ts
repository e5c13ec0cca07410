/**
 * The risk engine: every intent passes through `check` before the executor sees it. Rules run in a
 * fixed order (`this.rules` below), and the first denial stops the check:
 *   1 intentShape (the intent as the strategy wrote it)  2 tradingState  3 marketLimits (and sizing)
 *   4 priceSanity  5 exposure  6 ownership (a sell of another strategy's coins)  7 balance (reserve)
 *   8 orderRate  9 margin
 * A verdict is a pass (the adjusted intent: base quantity resolved, prices on the tick, with the list
 * of adjustments and, for anything that spends, a reservation id) or a denial (rule name and a reason
 * a person can read). Every verdict is logged and journaled; a denial is also emitted (`denied`). The
 * strategy hears of its denial from the trading core, which delivers the verdict `check` returned
 * (src/kernel/trading-core.ts).
 *
 * `check` is synchronous: the balance check and the reservation happen without yielding, so intents
 * of all strategies are serialised and can never over-commit one balance.
 */
import { EventEmitter } from 'eventemitter3';
import type { Clock } from '../core/clock.js';
import type { Decimal } from '../core/decimal.js';
import type { Intent } from '../core/intents.js';
import type { MarginRequest } from '../core/types/margin.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { Denial } from '../core/views.js';
import { IntentShapeRule } from './intent-shape.js';
import { DEFAULT_MAX_SLIPPAGE_PCT, mergeLimits, type RiskLimits, type StrategyLimits } from './limits.js';
import { OrderRateBudget } from './order-rate.js';
import type { RiskPorts, RiskSink, TradingStateRecord } from './ports.js';
import { Protections, type ClosedTrade, type ProtectionsConfig } from './protections/index.js';
import { Reservations } from './reservations.js';
import type { CheckState, RiskRule } from './rule.js';
import { BalanceRule } from './rules/balance.js';
import { ExposureRule } from './rules/exposure.js';
import { MarginRule } from './rules/margin.js';
import { marginBracketOnTick, MarketLimitsRule, roundPrice } from './rules/market-limits.js';
import { OrderRateRule } from './rules/order-rate.js';
import { OwnershipRule } from './rules/ownership.js';
import { PriceSanityRule } from './rules/price-sanity.js';
import { AccountReadRule } from './rules/account-read.js';
import { TradingStateRule } from './rules/trading-state.js';
import { TradingState } from './trading-state.js';
import { denialOf, type CheckOptions, type RiskVerdict } from './types.js';
import { MAIN_ACCOUNT } from '../core/account.js';

const DEFAULT_ORDER_RATE = { limit: 20, windowMs: 10_000, reserveForCancels: 4 } as const;

export interface RiskEngineDeps {
  ports: RiskPorts;
  clock: Clock;
  logger?: Logger;
  /** Journal of verdicts and of the trading state and protections (survives restarts). */
  sink?: RiskSink;
  /** Global limits (`risk.limits`). */
  limits?: RiskLimits;
  /** Per strategy instance: its `risk` limits and `capital` (tighten only). */
  strategies?: Record<string, StrategyLimits>;
  protections?: ProtectionsConfig;
  /** Share one Reservations between engines (e.g. with the portfolio); a new one by default. */
  reservations?: Reservations;
}

export interface RiskEngineEvents {
  verdict: [RiskVerdict];
  denied: [Denial];
  /** The trading state changed: (new, previous). */
  state: [TradingStateRecord, TradingStateRecord];
  /** The bot halted with cancelOpenOrdersOnHalt: the executor should cancel every open order. */
  cancelAllOrders: [{ reason: string }];
}

export class RiskEngine extends EventEmitter<RiskEngineEvents> {
  readonly reservations: Reservations;
  readonly state: TradingState;
  readonly protections: Protections;
  readonly rules: readonly RiskRule[];
  readonly orderRate: OrderRateBudget;
  private readonly logger: Logger;
  private readonly global: RiskLimits;
  private readonly own = new Map<string, StrategyLimits>();
  private readonly merged = new Map<string, StrategyLimits>();

  constructor(private readonly deps: RiskEngineDeps) {
    super();
    this.logger = deps.logger ?? silentLogger;
    this.global = deps.limits ?? {};
    this.reservations = deps.reservations ?? new Reservations();
    this.state = new TradingState({ clock: deps.clock, logger: this.logger, ...(deps.sink ? { sink: deps.sink } : {}) });
    const pc = deps.protections ?? {};
    this.protections = new Protections(pc, this.state, deps.sink);
    for (const [name, lim] of Object.entries(deps.strategies ?? {})) this.setStrategyLimits(name, lim);
    const sink = deps.sink;
    const rateStore =
      sink?.saveOrderRate && sink.loadOrderRate ? { load: () => sink.loadOrderRate!(), save: (t: readonly number[]) => sink.saveOrderRate!(t) } : undefined;
    this.orderRate = new OrderRateBudget(this.global.orderRate ?? DEFAULT_ORDER_RATE, deps.clock, rateStore);
    this.rules = [
      new IntentShapeRule(),
      new TradingStateRule(this.state, (s, now) => this.protections.lock(s, now)),
      new AccountReadRule(deps.ports),
      new MarketLimitsRule(deps.ports, this.reservations),
      new PriceSanityRule(),
      new ExposureRule(deps.ports, this.reservations),
      new OwnershipRule(deps.ports, this.reservations),
      new BalanceRule(deps.ports, this.reservations),
      new OrderRateRule(this.orderRate, deps.clock, deps.ports),
      new MarginRule(deps.ports),
    ];
    this.state.on('change', (rec, prev) => {
      this.emit('state', rec, prev);
      if (rec.state === 'halted' && prev.state !== 'halted' && (pc.cancelOpenOrdersOnHalt ?? true)) {
        this.emit('cancelAllOrders', { reason: rec.reason ?? 'halted' });
      }
    });
  }

  /** Set (or replace) a strategy's own limits. */
  setStrategyLimits(strategy: string, limits: StrategyLimits): void {
    this.own.set(strategy, limits);
    this.merged.set(strategy, mergeLimits(this.global, limits));
  }

  /** A strategy's slippage bound in percent (its `maxSlippagePct`, tightening the global one; default 2). */
  maxSlippagePct(strategy: string): number {
    return this.limitsOf(strategy).maxSlippagePct ?? DEFAULT_MAX_SLIPPAGE_PCT;
  }

  private limitsOf(strategy: string): StrategyLimits {
    let m = this.merged.get(strategy);
    if (!m) {
      m = mergeLimits(this.global, {});
      this.merged.set(strategy, m);
    }
    return m;
  }

  /**
   * The margin open to preview on the exchange (dry run) before checking `intent`: only a
   * `marginOpen` whose strategy has a `minCallDistancePct`, at the open price the check will use
   * (the intent's, else the current mid; on the tick). Undefined: check at once, no preview (also
   * when the check denies anyway: unknown market, no price, bad collateral or coefficient).
   */
  marginPreviewRequest(intent: Intent): MarginRequest | undefined {
    if (intent.kind !== 'marginOpen' || this.limitsOf(intent.strategy).minCallDistancePct === undefined) return undefined;
    const m = this.deps.ports.market(intent.market);
    if (!m || !intent.collateral.gt(0) || !intent.riskCoef.gte(1)) return undefined;
    const open = intent.openPrice ?? this.deps.ports.book(intent.market)?.mid();
    if (!open || !open.gt(0)) return undefined;
    const openPrice = roundPrice(open, m.priceTick, intent.side === 'long');
    if (openPrice.isZero()) return undefined;
    // The brackets the check will send (on the tick); one it denies gets no preview.
    const sl = intent.stopLoss && marginBracketOnTick('stopLoss', intent.stopLoss, intent.side, openPrice, m.priceTick);
    const tp = intent.takeProfit && marginBracketOnTick('takeProfit', intent.takeProfit, intent.side, openPrice, m.priceTick);
    if (typeof sl === 'string' || typeof tp === 'string') return undefined;
    return {
      market: intent.market,
      side: intent.side,
      collateral: intent.collateral,
      riskCoef: intent.riskCoef,
      openPrice,
      ...(sl ? { stopLoss: sl } : {}),
      ...(tp ? { takeProfit: tp } : {}),
    };
  }

  /** Check an intent; a pass reserves what it spends. Synchronous by design (see the file comment). */
  check<I extends Intent>(intent: I, options: CheckOptions = {}): RiskVerdict<I> {
    const strategy = intent.strategy;
    const s: CheckState = {
      original: intent,
      intent,
      strategy,
      account: this.deps.ports.accountOf?.(strategy) ?? MAIN_ACCOUNT,
      limits: this.limitsOf(strategy),
      global: this.global,
      own: this.own.get(strategy) ?? {},
      now: this.deps.clock.now(),
      options,
      adjustments: [],
      onPass: [],
      onDeny: [],
    };
    let verdict: RiskVerdict<I> | undefined;
    for (const rule of this.rules) {
      let reason: string | undefined;
      try {
        reason = rule.check(s);
      } catch (err) {
        reason = `rule failed: ${err instanceof Error ? err.message : String(err)}`;
      }
      if (reason !== undefined) {
        for (const undo of s.onDeny) undo();
        verdict = { ok: false, intent, rule: s.deniedBy ?? rule.name, reason, ...(s.retryAfterMs !== undefined ? { retryAfterMs: s.retryAfterMs } : {}) };
        break;
      }
    }
    if (!verdict) {
      for (const commit of s.onPass) commit();
      verdict = { ok: true, intent: s.intent as I, adjustments: s.adjustments };
      if (s.reservationId) verdict.reservationId = s.reservationId;
    }
    this.record(verdict);
    return verdict;
  }

  private record(v: RiskVerdict): void {
    this.deps.sink?.recordVerdict(v);
    if (v.ok) {
      this.logger.debug({ strategy: v.intent.strategy, kind: v.intent.kind, adjustments: v.adjustments, reservationId: v.reservationId }, 'risk: pass');
    } else {
      this.logger.info({ strategy: v.intent.strategy, kind: v.intent.kind, rule: v.rule, reason: v.reason }, `risk: denied by ${v.rule}: ${v.reason}`);
    }
    this.emit('verdict', v);
    if (!v.ok) {
      this.emit('denied', denialOf(v));
    }
  }

  /** The order ended (ExecutionEngine's ReservationPort). */
  release(reservationId: string): void {
    this.reservations.release(reservationId);
  }

  /** The order has filled this much base quantity in total so far. */
  settle(reservationId: string, filledQuantity: Decimal): void {
    this.reservations.settle(reservationId, filledQuantity);
  }

  /** Kill switch: nothing but cancels passes until resume(). */
  halt(reason: string): void {
    this.state.halt(reason);
  }

  reduce(reason: string): void {
    this.state.reduce(reason);
  }

  resume(reason?: string): void {
    this.state.resume(reason);
  }

  onEquity(ts: number, equity: Decimal): string[] {
    return this.protections.onEquity(ts, equity);
  }

  onTradeClosed(trade: ClosedTrade): string[] {
    return this.protections.onTradeClosed(trade);
  }
}
