/**
 * Stoploss guard: N stop-loss exits (of any strategy) within a window is a breach. A stop-loss exit
 * is a trade its record says a stop loss closed (a bracket's stop leg, a margin position's own stop:
 * the trade book's `exit`, the word the results' exit reasons show) or a liquidation ended, or one a
 * strategy's own sell tagged `stop_loss`.
 */
import { LIQUIDATION_EXIT, STOP_LOSS_EXIT } from '../../portfolio/trade-record.js';
import type { ClosedTrade } from './types.js';
import type { ProtectionsMemo } from '../ports.js';

const STOP_REASONS = new Set(['stop_loss', 'stoploss', 'stop-loss', 'stopLoss']);

export function onTradeStoploss(memo: ProtectionsMemo, t: ClosedTrade, trades: number, windowMinutes: number): string | undefined {
  if (t.exit !== STOP_LOSS_EXIT && t.exit !== LIQUIDATION_EXIT && !(t.reason && STOP_REASONS.has(t.reason))) return undefined;
  const edge = t.ts - windowMinutes * 60_000;
  memo.stoplossExits = memo.stoplossExits.filter((x) => x > edge);
  memo.stoplossExits.push(t.ts);
  if (memo.stoplossExits.length < trades) return undefined;
  return `stoploss guard: ${memo.stoplossExits.length} stop-loss exits within ${windowMinutes} minutes (limit ${trades})`;
}
