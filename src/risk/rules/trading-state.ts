/**
 * Rule 1, trading state. Cancels always pass. HALTED: nothing else passes. REDUCING: only intents
 * that reduce exposure pass: margin close, margin collateral top-up, and sells (spot or instant) of
 * a held base asset; that a sell stays within what is held is enforced by the balance rule (a sell
 * reserves its base quantity out of the free balance). A strategy in cooldown (a protection's
 * per-strategy pause) is treated as REDUCING for its own intents until the pause ends.
 */
import type { Intent } from '../../core/intents.js';
import type { CheckState, RiskRule } from '../rule.js';
import type { TradingState } from '../trading-state.js';

export type StrategyLock = (strategy: string, now: number) => string | undefined;

function reduces(intent: Intent): boolean {
  switch (intent.kind) {
    case 'cancel':
    case 'cancelAll':
    case 'marginClose':
    case 'marginAddCollateral':
    case 'exit':
    case 'marginBrackets':
      return true;
    case 'order':
    case 'instant':
      return intent.side === 'SELL';
    case 'marginOpen':
      return false;
  }
}

export class TradingStateRule implements RiskRule {
  readonly name = 'tradingState';

  constructor(
    private readonly state: TradingState,
    private readonly lock?: StrategyLock,
  ) {}

  check(s: CheckState): string | undefined {
    const k = s.intent.kind;
    if (k === 'cancel' || k === 'cancelAll') return undefined;
    const rec = this.state.record;
    if (rec.state === 'halted') return `trading is halted since ${iso(rec.since)} (${rec.reason ?? 'no reason given'}): only cancels pass`;
    if (reduces(s.intent)) return undefined;
    if (rec.state === 'reducing') {
      return `trading is reducing since ${iso(rec.since)} (${rec.reason ?? 'no reason given'}): only intents that reduce exposure pass, a ${describe(s.intent)} adds exposure`;
    }
    const locked = this.lock?.(s.strategy, s.now);
    if (locked) return `strategy ${s.strategy} is paused: ${locked}; only intents that reduce exposure pass`;
    return undefined;
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function describe(intent: Intent): string {
  if (intent.kind === 'order') return `${intent.side} ${intent.type} order on ${intent.symbol}`;
  if (intent.kind === 'instant') return `${intent.side} instant order on ${intent.symbol}`;
  if (intent.kind === 'marginOpen') return `margin open (${intent.side}) on ${intent.market}`;
  return intent.kind;
}
