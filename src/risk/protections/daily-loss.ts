/**
 * Daily loss limit. The UTC day starts with the first equity seen in it; a breach is an equity at or
 * below dayStart × (1 − limit/100), i.e. a loss of the limit or more.
 *
 * A sample taken at exactly 00:00 UTC belongs to both days: it is the close of the day that ends
 * there (a candle closing at midnight is that day's last; at resolution 1D a backtest's only sample
 * of the day) and the first equity of the next. It is judged against the ending day's start first,
 * then opens the next day. Before, it only opened the next day, so the last candle's loss was never
 * counted and a 1D backtest could never breach, where a live bot sampling every minute breaches
 * before midnight. A live sample a moment after midnight simply opens the new day, as before.
 */
import { Decimal } from '../../core/decimal.js';
import type { ProtectionsMemo } from '../ports.js';

const DAY_MS = 86_400_000;

function utcDay(ts: number): string {
  return new Date(ts).toISOString().slice(0, 10);
}

/** The breach reason of `equity` against the start of `day`, if it lost the limit or more. */
function judge(day: string, dayStart: string, equity: Decimal, limitPct: number): string | undefined {
  const start = new Decimal(dayStart);
  if (!start.gt(0)) return undefined;
  const lossPct = start.minus(equity).div(start).mul(100);
  if (lossPct.gte(limitPct)) {
    return `daily loss limit: equity ${equity.toFixed()} is ${lossPct.toDecimalPlaces(4).toFixed()}% below the day's start ${start.toFixed()} (${day} UTC), limit ${limitPct}%`;
  }
  return undefined;
}

/** Update the day's start and return the breach reason, if any. */
export function checkDailyLoss(memo: ProtectionsMemo, ts: number, equity: Decimal, limitPct: number): string | undefined {
  const day = utcDay(ts);
  if (memo.day !== day || memo.dayStart === undefined) {
    // At 00:00 UTC, the day that ends here (when it had a sample) is judged before the next opens.
    const ending =
      ts % DAY_MS === 0 && memo.dayStart !== undefined && memo.day === utcDay(ts - 1) ? judge(memo.day, memo.dayStart, equity, limitPct) : undefined;
    memo.day = day;
    memo.dayStart = equity.toFixed();
    if (ending) return ending;
  }
  return judge(day, memo.dayStart, equity, limitPct);
}
