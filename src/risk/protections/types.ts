/** Protections configuration and inputs (the `risk.protections` section of the YAML, plus per-rule actions). */
import type { Decimal } from '../../core/decimal.js';

type BreachAction = 'reducing' | 'halted';
export type BotProtection = 'dailyLoss' | 'maxDrawdown' | 'stoplossGuard';

export interface ProtectionsConfig {
  /** Breach when the UTC day's equity has fallen this % below the day's first equity. */
  dailyLossLimitPct?: number;
  /** Breach when equity has fallen this % below its peak. */
  maxDrawdownPct?: number;
  /** Pause a strategy for `minutes` after `losingTrades` losing trades in a row. */
  cooldown?: { losingTrades: number; minutes: number };
  /** Breach after `trades` stop-loss exits within `windowMinutes`. */
  stoplossGuard?: { trades: number; windowMinutes: number };
  /** State after a breach (default reducing). */
  onBreach?: BreachAction;
  /** Per protection override of onBreach, e.g. `{ maxDrawdown: 'halted' }`. */
  actions?: Partial<Record<BotProtection, BreachAction>>;
  /** Ask the executor to cancel every open order when the bot halts (default true). */
  cancelOpenOrdersOnHalt?: boolean;
}

export interface ClosedTrade {
  strategy: string;
  symbol: string;
  /** Realised PnL of the round trip, fees included; below zero is a losing trade. */
  pnl: Decimal;
  /** The closing fill's tag: a strategy's own `stop_loss` (`stoploss`, `stop-loss`, `stopLoss`) counts for the stoploss guard. */
  reason?: string;
  /** The exit its trade record names (portfolio/trade-book.ts): `stop loss` (a bracket's stop leg) counts for the stoploss guard. */
  exit?: string;
  ts: number;
}
