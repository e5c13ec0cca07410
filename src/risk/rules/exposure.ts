/**
 * Rule 4, exposure. Only intents that add exposure are checked (buys, instant buys, margin opens);
 * an exit is never blocked here. Every limit is checked twice: the global limit against everything
 * the bot holds and has in flight, and the strategy's own limit against what that strategy holds.
 * - open orders: per market and in total (orders the executor tracks, plus passed orders still in
 *   flight, counted once through their reservation id);
 * - position value per market (quote), quantity per asset, value per quote asset over all markets:
 *   held spot positions at the mark price (book mid), plus buys in flight (their reserved amount),
 *   plus margin positions (collateral × risk coefficient), plus this intent;
 * - capital per strategy and asset: what the strategy has reserved plus the cost of what it holds,
 *   plus this intent's spend. Reaching a limit exactly passes; one unit over is denied.
 */
import { Decimal, dgt } from '../../core/decimal.js';
import type { StrategyLimits } from '../limits.js';
import type { RiskPorts } from '../ports.js';
import type { Reservations } from '../reservations.js';
import type { CheckState, RiskRule } from '../rule.js';
import { capitalInUse } from '../capital.js';

const ZERO = new Decimal(0);
const NAME = 'exposure';

interface Scope {
  label: string;
  strategy?: string;
  limits: StrategyLimits;
}

export class ExposureRule implements RiskRule {
  readonly name = NAME;

  constructor(
    private readonly ports: RiskPorts,
    private readonly reservations: Reservations,
  ) {}

  check(s: CheckState): string | undefined {
    const it = s.intent;
    const adds = it.kind === 'order' || it.kind === 'instant' ? it.side === 'BUY' : it.kind === 'marginOpen';
    if (!adds || !s.market) return undefined;
    const scopes: Scope[] = [
      { label: 'bot', limits: s.global },
      { label: `strategy ${s.strategy}`, strategy: s.strategy, limits: s.own },
    ];
    for (const scope of scopes) {
      const r = (it.kind === 'order' ? this.openOrders(s, scope) : undefined) ?? this.positionValue(s, scope);
      if (r) return r;
    }
    return this.capital(s);
  }

  private openOrders(s: CheckState, scope: Scope): string | undefined {
    const { maxOpenOrders, maxOpenOrdersPerMarket } = scope.limits;
    if (maxOpenOrders === undefined && maxOpenOrdersPerMarket === undefined) return undefined;
    const symbol = s.market?.symbol as string;
    let total = 0;
    let market = 0;
    for (const r of this.reservations.active()) {
      if (r.kind !== 'order' || (scope.strategy && r.strategy !== scope.strategy)) continue;
      total++;
      if (r.symbol === symbol) market++;
    }
    for (const o of this.ports.openOrders?.() ?? []) {
      if ((o.reservationId && this.reservations.has(o.reservationId)) || (scope.strategy && o.strategy !== scope.strategy)) continue;
      total++;
      if (o.symbol === symbol) market++;
    }
    if (maxOpenOrdersPerMarket !== undefined && market + 1 > maxOpenOrdersPerMarket) {
      return `${scope.label} has ${market} open orders on ${symbol}; the limit is ${maxOpenOrdersPerMarket}`;
    }
    if (maxOpenOrders !== undefined && total + 1 > maxOpenOrders) return `${scope.label} has ${total} open orders; the limit is ${maxOpenOrders}`;
    return undefined;
  }

  private positionValue(s: CheckState, scope: Scope): string | undefined {
    const caps = scope.limits.maxPositionValue;
    if (!caps) return undefined;
    const m = s.market;
    if (!m) return undefined;
    const marketCap = caps.market?.[m.symbol];
    const assetCap = caps.asset?.[m.base];
    const totalCap = caps.total?.[m.quote];
    if (!marketCap && !assetCap && !totalCap) return undefined;
    let inMarket = ZERO;
    let assetQty = ZERO;
    let inQuote = ZERO;
    for (const p of this.ports.positions?.() ?? []) {
      if ((scope.strategy && p.strategy !== scope.strategy) || p.quantity.isZero()) continue;
      const pm = p.symbol === m.symbol ? m : this.ports.market(p.symbol);
      if (!pm) continue;
      if (pm.base === m.base) assetQty = assetQty.plus(p.quantity);
      if (pm.quote !== m.quote) continue;
      const mark = this.ports.book(p.symbol)?.mid() ?? this.ports.markPrice?.(p.symbol);
      if (!mark) return `cannot value the ${p.quantity.toFixed()} ${pm.base} held on ${p.symbol}: no mark price`;
      const v = p.quantity.mul(mark);
      inQuote = inQuote.plus(v);
      if (p.symbol === m.symbol) inMarket = inMarket.plus(v);
    }
    for (const r of this.reservations.active()) {
      if (r.side !== 'BUY' || !r.symbol || (scope.strategy && r.strategy !== scope.strategy)) continue;
      const rm = r.symbol === m.symbol ? m : this.ports.market(r.symbol);
      if (!rm) continue;
      if (rm.base === m.base && r.quantity) assetQty = assetQty.plus(r.quantity.minus(r.filled));
      if (rm.quote !== m.quote || r.asset !== m.quote) continue;
      inQuote = inQuote.plus(r.remaining);
      if (r.symbol === m.symbol) inMarket = inMarket.plus(r.remaining);
    }
    if (!scope.strategy) {
      for (const p of this.ports.marginPositions?.() ?? []) {
        if (p.state !== 'open') continue;
        const pm = p.market === m.symbol ? m : this.ports.market(p.market);
        if (!pm || pm.quote !== m.quote) continue;
        const v = p.collateral.value.mul(p.riskCoef);
        inQuote = inQuote.plus(v);
        if (p.market === m.symbol) inMarket = inMarket.plus(v);
      }
    }
    const add = s.addsValue ?? ZERO;
    const what = s.intent.kind === 'marginOpen' ? 'margin position' : 'buy';
    if (marketCap && dgt(inMarket.plus(add), marketCap)) {
      return `${scope.label} position value on ${m.symbol} would be ${inMarket.plus(add).toFixed()} ${m.quote} (${inMarket.toFixed()} now + ${add.toFixed()} for this ${what}), above the limit ${marketCap.toFixed()}`;
    }
    if (assetCap && s.quantity) {
      const after = assetQty.plus(s.quantity);
      if (dgt(after, assetCap))
        return `${scope.label} would hold ${after.toFixed()} ${m.base} (${assetQty.toFixed()} now + ${s.quantity.toFixed()}), above the limit ${assetCap.toFixed()}`;
    }
    if (totalCap && dgt(inQuote.plus(add), totalCap)) {
      return `${scope.label} total position value in ${m.quote} would be ${inQuote.plus(add).toFixed()} (${inQuote.toFixed()} now + ${add.toFixed()}), above the limit ${totalCap.toFixed()}`;
    }
    return undefined;
  }

  private capital(s: CheckState): string | undefined {
    const spend = s.spend;
    const cap = spend && s.own.capital?.[spend.asset];
    if (!spend || !cap) return undefined;
    const used = capitalInUse(this.ports, this.reservations, s.strategy, spend.asset);
    const after = used.plus(spend.amount);
    if (dgt(after, cap)) {
      return `strategy ${s.strategy} would commit ${after.toFixed()} ${spend.asset} (${used.toFixed()} in use + ${spend.amount.toFixed()} for this intent), above its capital ${cap.toFixed()}`;
    }
    return undefined;
  }
}
