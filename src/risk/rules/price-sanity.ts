/**
 * Rule 3, price sanity.
 * - Any order, instant order or margin open on a book flagged unhealthy (stale, crossed, stream
 *   down...) is denied, with the book's reasons.
 * - A LIMIT price (and a margin open price) further from the mid than `maxPriceDeviationPct` is
 *   denied; exactly at the limit passes. A STOP_LIMIT's limit price is judged against its stop price
 *   (the market is there when it triggers: a buy limit 50 % above its stop is that far from the
 *   market then); its stop price is not judged by its distance from the mid (a stop loss well under
 *   the market is what stops are for).
 * - A MARKET order is walked through the local book: denied when the book cannot fill it, or when the
 *   worst level it would reach is further than `maxSlippagePct` (default 2, like the exchange, which
 *   cancels a market order that would move the price more than 2 %) from the best price.
 */
import { DEFAULT_MAX_SLIPPAGE_PCT } from '../limits.js';
import { HUNDRED, pctFactor } from '../pct.js';
import type { CheckState, RiskRule } from '../rule.js';
import { dgt } from '../../core/decimal.js';

const NAME = 'priceSanity';

export class PriceSanityRule implements RiskRule {
  readonly name = NAME;

  check(s: CheckState): string | undefined {
    const it = s.intent;
    if (it.kind !== 'order' && it.kind !== 'instant' && it.kind !== 'marginOpen') return undefined;
    const symbol = it.kind === 'marginOpen' ? it.market : it.symbol;
    const book = s.book;
    if (book) {
      const h = book.health();
      if (!h.healthy) return `the local book of ${symbol} is not healthy (${h.reasons.join(', ') || 'no reason given'}): no new orders on it`;
    }
    const type = it.kind === 'order' ? it.type : it.kind === 'instant' ? 'INSTANT' : 'MARGIN';
    const dev = s.limits.maxPriceDeviationPct;
    if (dev !== undefined && (type === 'LIMIT' || type === 'MARGIN') && s.price) {
      const mid = book?.mid();
      if (!mid) return `no mid in the local book of ${symbol} to check the price ${s.price.toFixed()} against`;
      const diff = s.price.minus(mid).abs();
      // Compare without dividing: |price − mid| > mid × dev%.
      if (dgt(diff, mid.mul(pctFactor(dev)))) {
        const pct = diff.div(mid).mul(HUNDRED);
        return `price ${s.price.toFixed()} is ${pct.toDecimalPlaces(4).toFixed()}% from the mid ${mid.toFixed()} of ${symbol}, more than the ${dev}% allowed`;
      }
    }
    if (dev !== undefined && type === 'STOP_LIMIT' && it.kind === 'order' && it.stopPrice && s.price) {
      const stop = it.stopPrice;
      const diff = s.price.minus(stop).abs();
      if (dgt(diff, stop.mul(pctFactor(dev)))) {
        const pct = diff.div(stop).mul(HUNDRED);
        return `limit price ${s.price.toFixed()} of a STOP_LIMIT ${it.side} is ${pct.toDecimalPlaces(4).toFixed()}% from its stop price ${stop.toFixed()} (where the market is when it triggers), more than the ${dev}% allowed`;
      }
    }
    if (type === 'MARKET' && it.kind === 'order') {
      if (!book) return `no local book of ${symbol} to walk a market order through`;
      if (s.exhausted)
        return `the local book of ${symbol} cannot fill ${s.quantity?.toFixed()}: the order is larger than the book (the exchange would cancel it)`;
      const buy = it.side === 'BUY';
      const best = buy ? book.bestAsk() : book.bestBid();
      const worst = s.worstLevel;
      if (best && worst) {
        const max = s.limits.maxSlippagePct ?? DEFAULT_MAX_SLIPPAGE_PCT;
        const diff = worst.minus(best).abs();
        if (dgt(diff, best.mul(pctFactor(max)))) {
          const pct = diff.div(best).mul(HUNDRED);
          return `a market ${it.side} of ${s.quantity?.toFixed()} on ${symbol} would reach ${worst.toFixed()}, ${pct.toDecimalPlaces(4).toFixed()}% from the best price ${best.toFixed()}, more than the ${max}% allowed`;
        }
      }
    }
    return undefined;
  }
}
