/**
 * Daily loss limit. The UTC day starts with the first equity seen in it; a breach is an equity at or
 * below dayStart × (1 − limit/100), i.e. a loss of the limit or more.
 */
import { Decimal } from '../../core/decimal.js';
import type { ProtectionsMemo } from '../ports.js';

function utcDay(ts: number): string {
  return new Date(ts).toISOString().slice(0, 10);
}

/** Update the day's start and return the breach reason, if any. */
export function checkDailyLoss(memo: ProtectionsMemo, ts: number, equity: Decimal, limitPct: number): string | undefined {
  const day = utcDay(ts);
  if (memo.day !== day || memo.dayStart === undefined) {
    memo.day = day;
    memo.dayStart = equity.toFixed();
  }
  const start = new Decimal(memo.dayStart);
  if (!start.gt(0)) return undefined;
  const lossPct = start.minus(equity).div(start).mul(100);
  if (lossPct.gte(limitPct)) {
    return `daily loss limit: equity ${equity.toFixed()} is ${lossPct.toDecimalPlaces(4).toFixed()}% below the day's start ${start.toFixed()} (${day} UTC), limit ${limitPct}%`;
  }
  return undefined;
}
