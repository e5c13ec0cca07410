/**
 * Percent limits as Decimal factors, cached: a limit of 2 (%) becomes 0.02 once, not on every check
 * (building a Decimal from a number parses a string, which dominates a check's cost otherwise).
 */
import { Decimal } from '../core/decimal.js';

const cache = new Map<number, Decimal>();

/** `pct` percent as a fraction: 2 -> 0.02. */
export function pctFactor(pct: number): Decimal {
  let f = cache.get(pct);
  if (!f) {
    f = new Decimal(pct).div(100);
    if (cache.size < 1024) cache.set(pct, f);
  }
  return f;
}

export const HUNDRED = new Decimal(100);
