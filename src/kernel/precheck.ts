/**
 * What the exchange is asked before an intent is risk checked, the same in every mode: a margin
 * open's dry-run preview (when a minimum call distance applies: the RiskPort says), and an instant
 * order's price (`GET /v1/account/otc/price`: the order placed while that price holds fills at it,
 * so it is sized and valued at it, never at the book the instant price is a spread away from). A
 * failed request does not throw: the check denies with why.
 */
import type { Intent } from '../core/intents.js';
import type { Venue } from '../execution/venue.js';
import type { CheckOptions } from '../risk/types.js';
import type { RiskPort } from './trading-core-ports.js';

const why = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The check's options to ask the venue for first, or undefined when the intent needs none. */
export function precheck(intent: Intent, risk: RiskPort, venue: () => Venue): Promise<CheckOptions> | undefined {
  const req = risk.marginPreviewRequest?.(intent);
  if (req) {
    // A venue that throws instead of rejecting is caught the same way.
    return Promise.resolve()
      .then(() => venue().previewPosition(req))
      .then(
        (p): CheckOptions => ({ marginPreview: { callPrice: p.callPrice, liquidityPrice: p.liquidityPrice, openPrice: req.openPrice } }),
        (err: unknown): CheckOptions => ({ marginPreviewError: why(err) }),
      );
  }
  if (intent.kind !== 'instant' || risk.precheckWanted?.(intent) === false) return undefined;
  const v = venue();
  if (!v.instantQuote) return undefined;
  return Promise.resolve()
    .then(() => v.instantQuote!(intent.symbol, intent.side))
    .then(
      (price): CheckOptions => ({ instantPrice: price }),
      (err: unknown): CheckOptions => ({ instantPriceError: why(err) }),
    );
}
