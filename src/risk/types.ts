/** Verdicts and options of a check. */
import type { Decimal } from '../core/decimal.js';
import type { Intent, Verdict } from '../core/intents.js';
import type { Denial } from '../core/views.js';

/** A verdict; a passed order, instant order or margin open carries the id of the funds it reserved. */
export type RiskVerdict<I extends Intent = Intent> = Verdict<I> & { reservationId?: string };

/** A margin open's preview from the exchange's dry run (taken by the caller before the check). */
interface MarginPreview {
  callPrice: Decimal;
  liquidityPrice?: Decimal;
  /** The open price the preview was taken at: a margin open without one defaults to it. */
  openPrice?: Decimal;
}

export interface CheckOptions {
  /** The dry-run preview of a margin open; without it the injected fallback formula is used. */
  marginPreview?: MarginPreview;
  /** Why the dry-run preview could not be taken (exchange error, timeout): a minimum call distance then denies with it. */
  marginPreviewError?: string;
  /** An instant order's price as the exchange quoted it (`GET /v1/account/otc/price`): it is sized and valued at it. */
  instantPrice?: Decimal;
  /** Why the instant price could not be read: the instant order is denied with it. */
  instantPriceError?: string;
}

/** The denial a refused verdict makes (the risk engine's event and the strategy's onDenied alike). */
export function denialOf(v: { intent: Intent; rule: string; reason: string; retryAfterMs?: number }): Denial {
  return { intent: v.intent, rule: v.rule, reason: v.reason, ...(v.retryAfterMs !== undefined ? { retryAfterMs: v.retryAfterMs } : {}) };
}
