/**
 * Walking the local book as a market order would: by base quantity or by quote amount. Pure
 * functions over the levels the book gives (asks low to high for a buy, bids high to low for a sell).
 */
import { Decimal, productIsExact, dgte, dlt, dlte } from '../core/decimal.js';
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
  /** True when the whole quantity came from the first level (walkBase). */
  oneLevel?: boolean;
}

/**
 * The average price of a walk (cost / filled). When the whole quantity came from one level and
 * quantity × price was exact (at most the precision's significant digits), the quotient is exactly
 * that level's price, so the 40-digit division is skipped (same value).
 */
export function averagePrice(w: Walk): Decimal {
  if (w.oneLevel && w.worst && productIsExact(w.filled, w.worst)) return w.worst;
  return w.cost.div(w.filled);
}

export function walkBase(levels: readonly BookLevel[], quantity: Decimal): Walk {
  // One level deep enough for the whole quantity (a backtest's close book): the loop below would
  // take the quantity from it and stop, so the same values come without the running sums.
  const first = levels[0];
  if (first && quantity.gt(0) && dgte(first.quantity, quantity)) {
    return { filled: quantity, cost: quantity.mul(first.price), exhausted: false, worst: first.price, oneLevel: true };
  }
  let left = quantity;
  let cost = ZERO;
  let worst: Decimal | undefined;
  for (const l of levels) {
    if (left.lte(0)) break;
    const take = dlt(l.quantity, left) ? l.quantity : left;
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
    const take = dlte(levelCost, left) ? l.quantity : left.div(l.price);
    filled = filled.plus(take);
    left = dlte(levelCost, left) ? left.minus(levelCost) : ZERO;
    worst = l.price;
  }
  const out: Walk = { filled, cost: amount.minus(left), exhausted: left.gt(0) };
  if (worst) out.worst = worst;
  return out;
}
