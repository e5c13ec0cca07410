/**
 * The protections (freqtrade's, as circuit breakers on the trading state). Fed by `onEquity` and
 * `onTradeClosed`; a breach moves the trading state to REDUCING or HALTED (per protection, default
 * `onBreach`), and only `resume()` lifts it. Their counters (peak, day start, streaks, pauses,
 * stop-loss exits) are saved through the sink on every change, so a restart keeps them.
 */
import type { Decimal } from '../../core/decimal.js';
import type { ProtectionsMemo, RiskSink } from '../ports.js';
import type { TradingState } from '../trading-state.js';
import { cooldownLock, onTradeCooldown } from './cooldown.js';
import { checkDailyLoss } from './daily-loss.js';
import { checkDrawdown } from './drawdown.js';
import { onTradeStoploss } from './stoploss-guard.js';
import type { BotProtection, ClosedTrade, ProtectionsConfig } from './types.js';

export type { BotProtection, ClosedTrade, ProtectionsConfig } from './types.js';
function emptyMemo(): ProtectionsMemo {
  return { losingStreak: {}, cooldownUntil: {}, stoplossExits: [] };
}

export class Protections {
  readonly memo: ProtectionsMemo;
  private lastSaved = '';

  constructor(
    private readonly config: ProtectionsConfig,
    private readonly state: TradingState,
    private readonly sink?: Pick<RiskSink, 'saveProtections' | 'loadProtections'>,
  ) {
    const saved = sink?.loadProtections();
    this.memo = { ...emptyMemo(), ...saved };
  }

  /** Record the bot's equity (in its reference asset). Returns the breach reasons, if any. */
  onEquity(ts: number, equity: Decimal): string[] {
    const out: string[] = [];
    const c = this.config;
    if (c.dailyLossLimitPct !== undefined) this.breach('dailyLoss', checkDailyLoss(this.memo, ts, equity, c.dailyLossLimitPct), out);
    if (c.maxDrawdownPct !== undefined) this.breach('maxDrawdown', checkDrawdown(this.memo, equity, c.maxDrawdownPct), out);
    this.save();
    return out;
  }

  /** Record a closed trade. Returns the breach and pause reasons, if any. */
  onTradeClosed(t: ClosedTrade): string[] {
    const out: string[] = [];
    const c = this.config;
    if (c.cooldown) {
      const r = onTradeCooldown(this.memo, t, c.cooldown.losingTrades, c.cooldown.minutes);
      if (r) out.push(`${t.strategy}: ${r}`);
    }
    if (c.stoplossGuard) this.breach('stoplossGuard', onTradeStoploss(this.memo, t, c.stoplossGuard.trades, c.stoplossGuard.windowMinutes), out);
    this.save();
    return out;
  }

  /** The pause reason of a strategy in cooldown, or undefined. */
  lock(strategy: string, now: number): string | undefined {
    return cooldownLock(this.memo, strategy, now);
  }

  private breach(which: BotProtection, reason: string | undefined, out: string[]): void {
    if (!reason) return;
    out.push(reason);
    const action = this.config.actions?.[which] ?? this.config.onBreach ?? 'reducing';
    this.state.escalate(action, reason);
  }

  /** Save when something changed (equity updates that move nothing are not written). */
  private save(): void {
    if (!this.sink) return;
    const now = JSON.stringify(this.memo);
    if (now === this.lastSaved) return;
    this.lastSaved = now;
    this.sink.saveProtections(this.memo);
  }
}
