/** Maximum drawdown from the equity peak: a breach is a fall of the limit or more below the highest equity seen. */
import { Decimal } from '../../core/decimal.js';
import type { ProtectionsMemo } from '../ports.js';

export function checkDrawdown(memo: ProtectionsMemo, equity: Decimal, limitPct: number): string | undefined {
  const peak = memo.peak === undefined ? undefined : new Decimal(memo.peak);
  if (!peak || equity.gt(peak)) {
    memo.peak = equity.toFixed();
    return undefined;
  }
  if (!peak.gt(0)) return undefined;
  const dd = peak.minus(equity).div(peak).mul(100);
  if (dd.gte(limitPct))
    return `max drawdown: equity ${equity.toFixed()} is ${dd.toDecimalPlaces(4).toFixed()}% below its peak ${peak.toFixed()}, limit ${limitPct}%`;
  return undefined;
}
