/**
 * Cooldown: after N losing trades in a row a strategy is paused for M minutes (its intents that add
 * exposure are denied; exits pass). A winning or break-even trade resets the streak. The pause ends by
 * itself; it is persisted, so a restart does not shorten it.
 */
import type { ClosedTrade } from './types.js';
import type { ProtectionsMemo } from '../ports.js';

/** Count the trade; returns the pause reason when this trade starts a cooldown. */
export function onTradeCooldown(memo: ProtectionsMemo, t: ClosedTrade, losingTrades: number, minutes: number): string | undefined {
  const streak = t.pnl.isNeg() ? (memo.losingStreak[t.strategy] ?? 0) + 1 : 0;
  memo.losingStreak[t.strategy] = streak;
  if (streak < losingTrades) return undefined;
  memo.losingStreak[t.strategy] = 0;
  memo.cooldownUntil[t.strategy] = t.ts + minutes * 60_000;
  return `cooldown: ${streak} losing trades in a row, paused until ${new Date(t.ts + minutes * 60_000).toISOString()}`;
}

/** The pause reason while a strategy is cooling down. */
export function cooldownLock(memo: ProtectionsMemo, strategy: string, now: number): string | undefined {
  const until = memo.cooldownUntil[strategy];
  if (until === undefined || now >= until) return undefined;
  return `cooldown after losing trades until ${new Date(until).toISOString()}`;
}
