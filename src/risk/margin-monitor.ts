/**
 * The margin monitor (Lean's margin-call model, for the exchange's margin positions). On every
 * `evaluate` it measures, for each open position, how far the mark price is from the call price and
 * from the liquidation price (in % of the mark, positive while safe):
 *   long: (mark − level) / mark × 100      short: (level − mark) / mark × 100
 * and acts at the configured thresholds (warnAtPct > topUpAtPct > closeAtPct), in this order:
 * - warn: a `warn` action (the runtime hands it to the strategy's onMarginAlert);
 * - top-up: collateral sized to move the call price back to `topUpTargetPct` from the mark (default
 *   warnAtPct), through the injected formula, capped by what is left of the per-asset budget; with
 *   no budget left (or no formula) a `warn` says so instead;
 * - close: a `close` action; not in the same evaluation as a top-up of the same position (the top-up
 *   gets one evaluation to take effect), so when the budget suffices the position is saved, not closed.
 * Each action fires once per crossing: it re-arms only after the distance has gone back above its
 * threshold. The budget counts a top-up when the action is emitted; `refund` gives it back when the
 * executor could not add it.
 *
 * The budget caps, per asset, the collateral added to the positions that have not ended: each top-up
 * counts against it for the whole life of the position it went to, restarts included (with a `store`,
 * the journal's key-value table, what was added to each position is kept there and read back at
 * start: a bot restarted N times does not get N budgets), and is released only once that position
 * has ended (`release`, fed from the owners' record of the positions this bot holds).
 */
import { EventEmitter } from 'eventemitter3';
import { Decimal } from '../core/decimal.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { MarginPosition } from '../core/types/margin.js';
import type { MarginAlert } from '../core/views.js';

const ZERO = new Decimal(0);
const HUNDRED = new Decimal(100);

interface MarginMonitorConfig {
  warnAtPct?: number;
  topUpAtPct?: number;
  closeAtPct?: number;
  /** Per asset: the most collateral the monitor may add in total. */
  topUpBudget?: Record<string, Decimal>;
  /** Distance of the call price from the mark that a top-up aims for, in % (default warnAtPct, else 2 × topUpAtPct). */
  topUpTargetPct?: number;
}

export interface MarginFormulas {
  /** Collateral to add so the position's call price becomes `targetCallPrice` (the simulator's or the README's formula). */
  collateralForCallPrice(position: MarginPosition, targetCallPrice: Decimal): Decimal;
}

export interface MarginAction extends MarginAlert {
  /** Why, in words. */
  reason: string;
  /** Top-up: the collateral to add, and its asset. */
  amount?: Decimal;
  asset?: string;
}

/** Where the top-ups of each position are kept across restarts (the journal's key-value table). */
interface TopUpStore {
  get(key: string): unknown;
  set(key: string, value: Record<string, unknown>): void;
}

const STORE_KEY = 'marginTopUps';

export interface MarginMonitorDeps {
  config: MarginMonitorConfig;
  store?: TopUpStore;
  formulas?: MarginFormulas;
  /** The collateral asset of a market when the position does not name it (the quote asset; undefined when not known). */
  quoteOf(market: string): string | undefined;
  logger?: Logger;
}

type Level = 'warn' | 'topUp' | 'close';

export function distancePct(side: MarginPosition['side'], mark: Decimal, level: Decimal): Decimal {
  if (level.lte(0)) return HUNDRED;
  return (side === 'long' ? mark.minus(level) : level.minus(mark)).div(mark).mul(100);
}

export class MarginMonitor extends EventEmitter<{ action: [MarginAction] }> {
  private readonly fired = new Map<number, Set<Level>>();
  /** Collateral added by the monitor to each position not ended yet, in its asset. */
  private readonly spent = new Map<number, { asset: string; amount: Decimal }>();
  private readonly logger: Logger;

  constructor(private readonly deps: MarginMonitorDeps) {
    super();
    this.logger = deps.logger ?? silentLogger;
    const saved = deps.store?.get(STORE_KEY);
    if (saved && typeof saved === 'object') {
      for (const [id, v] of Object.entries(saved as Record<string, unknown>)) {
        const r = v as { asset?: unknown; amount?: unknown } | null;
        if (!Number.isInteger(Number(id)) || typeof r?.asset !== 'string' || typeof r.amount !== 'string') continue;
        try {
          this.spent.set(Number(id), { asset: r.asset, amount: new Decimal(r.amount) });
        } catch {
          this.logger.warn({ positionId: id, amount: r.amount }, 'margin top-ups: a stored amount is no number; left out');
        }
      }
    }
  }

  /** What the monitor has added, in `asset`, to the positions not ended yet. */
  spentOf(asset: string): Decimal {
    let sum = ZERO;
    for (const s of this.spent.values()) if (s.asset === asset) sum = sum.plus(s.amount);
    return sum;
  }

  budgetLeft(asset: string): Decimal {
    const cap = this.deps.config.topUpBudget?.[asset];
    if (!cap) return ZERO;
    const left = cap.minus(this.spentOf(asset));
    return left.gt(0) ? left : ZERO;
  }

  /** A top-up of a position that could not be made: its amount goes back to the budget. */
  refund(positionId: number, amount: Decimal): void {
    const s = this.spent.get(positionId);
    if (!s) return;
    const left = Decimal.max(ZERO, s.amount.minus(amount));
    if (left.isZero()) this.spent.delete(positionId);
    else this.spent.set(positionId, { asset: s.asset, amount: left });
    this.persist();
  }

  /** Positions that have ended (those `alive` no longer holds): what was added to them leaves the budget's count. */
  release(alive: (positionId: number) => boolean): void {
    let changed = false;
    for (const id of this.spent.keys()) {
      if (alive(id)) continue;
      this.spent.delete(id);
      changed = true;
    }
    if (changed) this.persist();
  }

  private persist(): void {
    if (!this.deps.store) return;
    const out: Record<string, { asset: string; amount: string }> = {};
    for (const [id, s] of this.spent) out[String(id)] = { asset: s.asset, amount: s.amount.toFixed() };
    this.deps.store.set(STORE_KEY, out);
  }

  /** Check every open position at its mark price; returns (and emits) the actions, in order. */
  evaluate(positions: readonly MarginPosition[], mark: (market: string) => Decimal | undefined): MarginAction[] {
    const out: MarginAction[] = [];
    const live = new Set<number>();
    for (const p of positions) {
      if (p.state !== 'open') continue;
      live.add(p.id);
      const px = mark(p.market);
      if (!px || !px.gt(0)) continue;
      this.evaluateOne(p, px, out);
    }
    for (const id of this.fired.keys()) if (!live.has(id)) this.fired.delete(id);
    for (const a of out) {
      const info = { positionId: a.position.id, action: a.action, amount: a.amount?.toFixed() };
      if (a.action === 'warn') this.logger.warn(info, a.reason);
      else this.logger.error(info, a.reason);
      this.emit('action', a);
    }
    return out;
  }

  private evaluateOne(p: MarginPosition, px: Decimal, out: MarginAction[]): void {
    const c = this.deps.config;
    const toCall = distancePct(p.side, px, p.callPrice);
    const toLiq = distancePct(p.side, px, p.liquidityPrice);
    const fired = this.fired.get(p.id) ?? new Set<Level>();
    this.fired.set(p.id, fired);
    const base = { position: p, markPrice: px, distanceToCallPct: toCall.toNumber(), distanceToLiquidationPct: toLiq.toNumber() };
    const crossed = (lvl: Level, pct: number | undefined): boolean => {
      if (pct === undefined) return false;
      if (toCall.gt(pct)) {
        fired.delete(lvl);
        return false;
      }
      if (fired.has(lvl)) return false;
      fired.add(lvl);
      return true;
    };
    const where = `${p.market} ${p.side} #${p.id}: mark ${px.toFixed()} is ${toCall.toDecimalPlaces(3).toFixed()}% from the call price ${p.callPrice.toFixed()}`;
    if (crossed('warn', c.warnAtPct)) out.push({ ...base, action: 'warn', reason: `${where} (warn at ${c.warnAtPct}%)` });
    let toppedUp = false;
    if (crossed('topUp', c.topUpAtPct)) {
      const a = this.topUp(p, px, where, base);
      toppedUp = a.action === 'topUp';
      out.push(a);
    }
    if (!toppedUp && crossed('close', c.closeAtPct)) out.push({ ...base, action: 'close', reason: `${where} (close at ${c.closeAtPct}%)` });
  }

  private topUp(p: MarginPosition, px: Decimal, where: string, base: Omit<MarginAlert, 'action'>): MarginAction {
    const c = this.deps.config;
    const asset = p.collateral.currency ?? this.deps.quoteOf(p.market);
    if (asset === undefined)
      return {
        ...base,
        action: 'warn',
        reason: `${where}: top-up due at ${c.topUpAtPct}% but the position names no collateral asset and ${p.market} is not in the market catalog`,
      };
    const left = this.budgetLeft(asset);
    if (!this.deps.formulas) return { ...base, action: 'warn', reason: `${where}: top-up due at ${c.topUpAtPct}% but no collateral formula is configured` };
    const target = c.topUpTargetPct ?? c.warnAtPct ?? (c.topUpAtPct as number) * 2;
    const factor = new Decimal(target).div(100);
    const targetCall = p.side === 'long' ? px.mul(new Decimal(1).minus(factor)) : px.mul(new Decimal(1).plus(factor));
    const need = this.deps.formulas.collateralForCallPrice(p, targetCall);
    if (!need.gt(0)) return { ...base, action: 'warn', reason: `${where}: top-up due at ${c.topUpAtPct}% but the formula asks for no collateral` };
    if (!left.gt(0)) return { ...base, action: 'warn', reason: `${where}: top-up due at ${c.topUpAtPct}% but the ${asset} top-up budget is spent` };
    const amount = Decimal.min(need, left);
    this.spent.set(p.id, { asset, amount: (this.spent.get(p.id)?.amount ?? ZERO).plus(amount) });
    this.persist();
    const partial = amount.lt(need) ? ` (budget allows ${amount.toFixed()} of the ${need.toFixed()} needed)` : '';
    return {
      ...base,
      action: 'topUp',
      amount,
      asset,
      reason: `${where}: adding ${amount.toFixed()} ${asset} to move the call price to about ${targetCall.toFixed()} (${target}% away)${partial}`,
    };
  }
}
