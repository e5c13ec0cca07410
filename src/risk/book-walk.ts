/**
 * Walking the local book as a market order would: by base quantity or by quote amount. Pure
 * functions over the levels the book gives (asks low to high for a buy, bids high to low for a sell).
 */
import { Decimal } from '../core/decimal.js';
import type { BookLevel } from '../core/types/market.js';

const ZERO = new Decimal(0);

export interface Walk {
  /** Base quantity the book can fill. */
  filled: Decimal;
  /** Quote amount paid (buy) or received (sell). */
  cost: Decimal;
  /** Price of the last level touched. */
  worst?: Decimal;
  /** True when the book ran out first. */
  exhausted: boolean;
}

export function walkBase(levels: readonly BookLevel[], quantity: Decimal): Walk {
  let left = quantity;
  let cost = ZERO;
  let worst: Decimal | undefined;
  for (const l of levels) {
    if (left.lte(0)) break;
    const take = l.quantity.lt(left) ? l.quantity : left;
    if (take.lte(0)) continue;
    cost = cost.plus(take.mul(l.price));
    left = left.minus(take);
    worst = l.price;
  }
  const out: Walk = { filled: quantity.minus(left), cost, exhausted: left.gt(0) };
  if (worst) out.worst = worst;
  return out;
}

export function walkQuote(levels: readonly BookLevel[], amount: Decimal): Walk {
  let left = amount;
  let filled = ZERO;
  let worst: Decimal | undefined;
  for (const l of levels) {
    if (left.lte(0)) break;
    if (l.quantity.lte(0) || l.price.lte(0)) continue;
    const levelCost = l.quantity.mul(l.price);
    const take = levelCost.lte(left) ? l.quantity : left.div(l.price);
    filled = filled.plus(take);
    left = levelCost.lte(left) ? left.minus(levelCost) : ZERO;
    worst = l.price;
  }
  const out: Walk = { filled, cost: amount.minus(left), exhausted: left.gt(0) };
  if (worst) out.worst = worst;
  return out;
}
