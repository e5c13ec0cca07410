/**
 * Rule 7, order rate. One budget for the whole bot inside the exchange's 20 order requests per 10
 * seconds, plus a stricter budget per strategy when its limits set one. New orders (spot, instant,
 * margin open) may use `limit − reserveForCancels` slots of the window; cancels may use all of it, so a
 * burst of new orders never blocks a cancel. A cancel-all cancels the asking strategy's live orders
 * of the market: it counts one slot per such order, none when there is nothing to cancel (it sends no
 * request), and passes as long as one slot is left. Slots are taken only when every rule has passed.
 */
import type { Clock } from '../../core/clock.js';
import { OrderRateBudget, type RateKind } from '../order-rate.js';
import type { RiskPorts } from '../ports.js';
import type { CheckState, RiskRule } from '../rule.js';

const NAME = 'orderRate';

export class OrderRateRule implements RiskRule {
  readonly name = NAME;
  private readonly perStrategy = new Map<string, OrderRateBudget>();

  constructor(
    readonly bot: OrderRateBudget,
    private readonly clock: Clock,
    private readonly ports: RiskPorts,
  ) {}

  check(s: CheckState): string | undefined {
    const it = s.intent;
    let kind: RateKind;
    let n = 1;
    if (it.kind === 'order' || it.kind === 'instant' || it.kind === 'marginOpen') kind = 'new';
    else if (it.kind === 'cancel') kind = 'cancel';
    else if (it.kind === 'cancelAll') {
      kind = 'cancel';
      n = (this.ports.openOrders?.() ?? []).filter((o) => o.symbol === it.symbol && o.strategy === it.strategy).length;
      if (n === 0) return undefined;
    } else return undefined;
    const budgets = [this.bot];
    const own = this.strategyBudget(s);
    if (own) budgets.push(own);
    let take = n;
    for (const b of budgets) {
      const free = b.available(kind);
      if (free < 1) {
        const who = b === this.bot ? 'the bot' : `strategy ${s.strategy}`;
        s.retryAfterMs = b.msUntilSlot();
        const cap =
          kind === 'new' ? `${b.limit - b.reserveForCancels} new orders (${b.reserveForCancels} of ${b.limit} slots kept for cancels)` : `${b.limit} requests`;
        return `${who} sent ${b.used()} order requests in the last ${b.windowMs} ms; ${kind === 'new' ? 'new orders' : 'cancels'} may use ${cap}; next slot in ${b.msUntilSlot()} ms`;
      }
      take = Math.min(take, free);
    }
    s.onPass.push(() => {
      for (const b of budgets) b.take(take);
    });
    return undefined;
  }

  private strategyBudget(s: CheckState): OrderRateBudget | undefined {
    const lim = s.own.orderRate;
    if (!lim) return undefined;
    let b = this.perStrategy.get(s.strategy);
    if (!b || b.limit !== lim.limit || b.windowMs !== lim.windowMs) {
      b = new OrderRateBudget({ limit: lim.limit, windowMs: lim.windowMs, reserveForCancels: Math.min(lim.reserveForCancels ?? 0, lim.limit - 1) }, this.clock);
      this.perStrategy.set(s.strategy, b);
    }
    return b;
  }
}
