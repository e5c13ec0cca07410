/**
 * Exact conversions between decimal strings and integer counts of grid units (ticks, steps), so
 * synthetic prices and quantities are built with integer arithmetic and printed exactly.
 */
import { Decimal } from '../../core/decimal.js';

/** Integer count of 10^-decimals units, rounded half-up. Throws past 2^53. */
export function toUnits(value: Decimal, decimals: number, mode: 'down' | 'up' | 'nearest' = 'nearest'): number {
  const rounding = mode === 'down' ? Decimal.ROUND_FLOOR : mode === 'up' ? Decimal.ROUND_CEIL : Decimal.ROUND_HALF_UP;
  const u = value.mul(new Decimal(10).pow(decimals)).toDecimalPlaces(0, rounding);
  if (u.abs().gt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`${value.toFixed()} at ${decimals} decimals is too large for exact integer units`);
  }
  return u.toNumber();
}

/** Print an integer count of 10^-decimals units as a plain decimal string (`12345, 2` -> `123.45`). */
export function unitsToString(units: number, decimals: number): string {
  if (!Number.isSafeInteger(units)) throw new RangeError(`units must be a safe integer, got ${units}`);
  const neg = units < 0;
  let s = String(Math.abs(units));
  if (decimals > 0) {
    s = s.padStart(decimals + 1, '0');
    s = `${s.slice(0, -decimals)}.${s.slice(-decimals)}`.replace(/\.?0+$/, '');
  }
  return neg ? `-${s}` : s;
}
