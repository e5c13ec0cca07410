/**
 * The rule contract. A check runs the rules in a fixed order over one CheckState; each rule either
 * passes (returns undefined), possibly after adjusting the working intent and recording an
 * Adjustment, or denies (returns a reason a person can read). Rules are synchronous: the whole
 * check, reservation included, runs without yielding, which is what makes check-and-reserve atomic.
 */
import type { Decimal } from '../core/decimal.js';
import type { Adjustment, Intent } from '../core/intents.js';
import type { RiskLimits, StrategyLimits } from './limits.js';
import type { RiskBook, RiskMarket } from './ports.js';
import type { CheckOptions } from './types.js';

export interface CheckState {
  /** The intent as the strategy sent it. */
  readonly original: Intent;
  /** The working copy: rules replace it when they adjust a field. */
  intent: Intent;
  readonly strategy: string;
  readonly account: string;
  /** Global limits merged with the strategy's (tighten only). */
  readonly limits: StrategyLimits;
  /** The bot-wide limits alone (exposure counts everything the bot holds against them). */
  readonly global: RiskLimits;
  /** The strategy's own limits alone (exposure counts what the strategy holds against them). */
  readonly own: StrategyLimits;
  readonly now: number;
  readonly options: CheckOptions;
  readonly adjustments: Adjustment[];
  market?: RiskMarket;
  book?: RiskBook;
  /** Resolved base quantity of an order or instant order. */
  quantity?: Decimal;
  /** Price that values the order: its limit price, or the expected average fill of a market order. */
  price?: Decimal;
  /** Worst price the order may fill at: its limit, or the best price moved by the slippage limit. */
  boundPrice?: Decimal;
  /** Worst book level a market order would touch, from walking the local book. */
  worstLevel?: Decimal;
  /** True when the local book cannot fill the whole quantity. */
  exhausted?: boolean;
  /** What the intent spends (reserved by the balance rule). */
  spend?: { asset: string; amount: Decimal };
  /** Quote value the intent adds to exposure (buys and margin opens). */
  addsValue?: Decimal;
  reservationId?: string;
  /** Set by a rule whose denial is another rule's concern (a fraction-sized sell of coins other strategies hold: `ownership`). */
  deniedBy?: string;
  /** Set by a rule that denies for a while only (the order rate): ms until the same intent may pass. */
  retryAfterMs?: number;
  /** Run when every rule passed (e.g. counting the order in the rate window). */
  readonly onPass: (() => void)[];
  /** Run when a later rule denied (e.g. releasing a reservation already made). */
  readonly onDeny: (() => void)[];
}

export interface RiskRule {
  /** Name shown in denials and adjustments. */
  readonly name: string;
  check(s: CheckState): string | undefined;
}

/** Record an adjustment of a field of the working intent. */
export function adjust(s: CheckState, rule: string, field: string, from: string, to: string, why: string): void {
  s.adjustments.push({ rule, field, from, to, why });
}
