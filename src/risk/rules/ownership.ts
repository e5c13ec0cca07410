/**
 * Rule 5, ownership (spot and instant sells). A strategy may sell the account's free base balance less
 * what the other strategies on the account hold of it (ownership.ts): a sell of another strategy's
 * coins would leave that strategy's position counting coins the account no longer has. Coins no
 * strategy holds (starting balances) stay usable by any. Denied with the strategy, the asset, the
 * quantity asked and what it may sell:
 *   `sellr may sell 0 BTC, asked 0.1 (account free 0.293; buyer holds 0.293)`.
 * When no other strategy holds any of the asset, or a strategy with coins of its own asks more than
 * the account has free at all, the rule passes and the balance rule checks (and explains) the sell.
 */
import { dgt, dlte } from '../../core/decimal.js';
import { sellable, sellableText } from '../ownership.js';
import type { RiskPorts } from '../ports.js';
import type { Reservations } from '../reservations.js';
import type { CheckState, RiskRule } from '../rule.js';

export const OWNERSHIP = 'ownership';

export class OwnershipRule implements RiskRule {
  readonly name = OWNERSHIP;

  constructor(
    private readonly ports: RiskPorts,
    private readonly reservations: Reservations,
  ) {}

  check(s: CheckState): string | undefined {
    const it = s.intent;
    if ((it.kind !== 'order' && it.kind !== 'instant') || it.side !== 'SELL' || !s.quantity || !s.market) return undefined;
    const asset = s.market.base;
    const x = sellable(this.ports, this.reservations, s.account, s.strategy, asset);
    if (x.others.length === 0 || dlte(s.quantity, x.may)) return undefined;
    // More than the account has free at all, by a strategy holding coins of its own: the balance rule
    // denies it and says why (those coins locked by its own bracket's resting leg, say).
    if (dgt(s.quantity, x.free) && this.holds(s.strategy, asset)) return undefined;
    return `${s.strategy} may sell ${x.may.toFixed()} ${asset}, asked ${s.quantity.toFixed()} (${sellableText(x)})`;
  }

  /** Whether `strategy` holds a position in a market of `asset`. */
  private holds(strategy: string, asset: string): boolean {
    return (this.ports.positions?.() ?? []).some((p) => p.strategy === strategy && p.quantity.gt(0) && this.ports.market(p.symbol)?.base === asset);
  }
}
