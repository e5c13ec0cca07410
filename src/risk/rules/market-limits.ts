/**
 * Rule 2, market limits and sizing (spot and instant orders, margin opens).
 * - Prices are rounded to the tick: a buy's down, a sell's up, so rounding never gives a worse price
 *   than the one asked for (stop prices the same way). A margin open's price defaults to the mid and
 *   is rounded the same way (long as a buy, short as a sell); its stop loss and take profit are rounded
 *   toward the open price (marginBracketOnTick: the protection never gets looser).
 * - The size is resolved into a base quantity: `base` as given; `quote` as a notional (quantity ×
 *   price) at the limit price, or by walking the local book for a market order; `fraction` of the free
 *   balance of the spent asset (quote for a buy, with the taker fee and, for a market buy, the
 *   slippage bound included so the reservation fits; of what the strategy's capital has left, when
 *   it has one in that asset and that is less, capital.ts; base for a sell: what the strategy may sell,
 *   the free coins less the other strategies' holdings, ownership.ts).
 * - The quantity is rounded down to the step, then checked against minQty, maxQty and minNotional
 *   (quantity × limit price, or × the expected average fill of a market order). Rounding that leaves
 *   an invalid order is a denial, never a silent round-up. An instant order is checked against the
 *   instant desk's bounds instead (`/v1/otc/markets`: its minQty and maxQty where given, and its
 *   order total, quantity × the instant price, from minNotional to maxNotional), which are not the
 *   spot market's; a market without them (the list not read) keeps the spot limits.
 * It also fixes what the intent spends (for the balance rule) and the exposure it adds.
 */
import { Decimal, deq, dgt, dlt } from '../../core/decimal.js';
import type { InstantOrderIntent, MarginOpenIntent, Size, SpotOrderIntent } from '../../core/intents.js';
import type { BookLevel } from '../../core/types/market.js';
import { averagePrice, walkBase, walkQuote } from '../book-walk.js';
import { gridText, oneMinusOf, onePlusOf, roundToStep } from '../grid.js';
import { DEFAULT_MAX_SLIPPAGE_PCT } from '../limits.js';
import { pctFactor } from '../pct.js';
import type { RiskPorts } from '../ports.js';
import { sellable, sellableText } from '../ownership.js';
import { capitalInUse } from '../capital.js';
import type { Reservations } from '../reservations.js';
import { adjust, type CheckState, type RiskRule } from '../rule.js';
import { OWNERSHIP } from './ownership.js';

const NAME = 'marketLimits';

export function roundPrice(price: Decimal, tick: Decimal, buy: boolean): Decimal {
  return roundToStep(price, tick, !buy);
}

/**
 * A margin position's stop loss or take profit on the tick: rounded toward the open price, so the
 * protection never gets looser (a long's stop rounds up, its take profit down; a short's stop down,
 * its take profit up): the exchange closes the position no later than the price asked for. A price
 * on the wrong side of the open price, or one that the rounding would bring to it, is a denial
 * naming the value, the tick and the open price.
 */
export function marginBracketOnTick(
  field: 'stopLoss' | 'takeProfit',
  value: Decimal,
  side: 'long' | 'short',
  openPrice: Decimal,
  tick: Decimal,
): Decimal | string {
  if (!value.gt(0)) return `${field} must be positive, got ${value.toFixed()}`;
  const below = (field === 'stopLoss') === (side === 'long');
  const where = `${below ? 'below' : 'above'} the open price ${openPrice.toFixed()} of a ${side}`;
  if (below ? !value.lt(openPrice) : !value.gt(openPrice)) return `${field} ${value.toFixed()} must be ${where}`;
  const r = roundToStep(value, tick, below);
  if (below ? !r.lt(openPrice) : !r.gt(openPrice))
    return `${field} ${value.toFixed()} rounds to ${r.toFixed()} at the tick ${tick.toFixed()}, which is not ${where}`;
  return r;
}

function sizeText(size: Size): string {
  if (size.kind === 'base') return size.quantity.toFixed();
  if (size.kind === 'quote') return `quote ${size.amount.toFixed()}`;
  return `fraction ${size.fraction}`;
}

export class MarketLimitsRule implements RiskRule {
  readonly name = NAME;

  constructor(
    private readonly ports: RiskPorts,
    private readonly reservations: Reservations,
  ) {}

  check(s: CheckState): string | undefined {
    const it = s.intent;
    if (it.kind === 'marginOpen') return this.marginOpen(s, it);
    if (it.kind !== 'order' && it.kind !== 'instant') return undefined;
    return this.order(s, it);
  }

  private order(s: CheckState, it: SpotOrderIntent | InstantOrderIntent): string | undefined {
    const m = this.ports.market(it.symbol);
    if (!m) return `unknown market ${it.symbol}: no limits to check the order against`;
    s.market = m;
    const book = this.ports.book(it.symbol);
    if (book) s.book = book;
    const buy = it.side === 'BUY';
    const type = it.kind === 'order' ? it.type : 'MARKET';
    const next = { ...it } as SpotOrderIntent | InstantOrderIntent;

    let limitPx: Decimal | undefined;
    let stopPx: Decimal | undefined;
    // An instant order fills at the price the exchange quoted (kernel/precheck.ts): sized and valued at it.
    let quotedPx: Decimal | undefined;
    if (it.kind === 'instant') {
      const o = s.options;
      if (o.instantPriceError !== undefined) return `the exchange's instant price of ${it.symbol} for a ${it.side} could not be read: ${o.instantPriceError}`;
      if (o.instantPrice && !o.instantPrice.gt(0)) return `the exchange's instant price of ${it.symbol} for a ${it.side} is ${o.instantPrice.toFixed()}`;
      quotedPx = o.instantPrice;
    }
    if (it.kind === 'order' && next.kind === 'order') {
      if (type === 'LIMIT' || type === 'STOP_LIMIT') {
        const r = this.roundField(s, 'price', it.price, m.priceTick, buy, type);
        if (typeof r === 'string') return r;
        limitPx = next.price = r;
      }
      if (type === 'STOP_LIMIT' || type === 'STOP_MARKET') {
        const r = this.roundField(s, 'stopPrice', it.stopPrice, m.priceTick, buy, type);
        if (typeof r === 'string') return r;
        stopPx = next.stopPrice = r;
      }
    }

    // The worst price a market order may fill at: the best price moved by the slippage limit.
    const slip = pctFactor(s.limits.maxSlippagePct ?? DEFAULT_MAX_SLIPPAGE_PCT);
    // The book's levels, made only for an order valued by a walk (a limit or stop order never is).
    let bookLevels: readonly BookLevel[] | undefined;
    const levels = (): readonly BookLevel[] => (bookLevels ??= book ? (buy ? book.asks() : book.bids()) : []);
    let bound = limitPx ?? quotedPx;
    let best: Decimal | undefined;
    if (!bound) {
      best = stopPx ?? (buy ? book?.bestAsk() : book?.bestBid());
      if (!best) return `no ${buy ? 'ask' : 'bid'} in the local book of ${it.symbol} to price a ${type} ${it.side}`;
      bound = buy ? best.mul(onePlusOf(slip)) : best.mul(oneMinusOf(slip));
    }
    const boundPx = bound as Decimal;
    const walkable = !limitPx && !stopPx && !quotedPx;

    // Resolve the size into a base quantity.
    let qty: Decimal;
    const size = it.size;
    if (size.kind === 'base') {
      qty = size.quantity;
    } else if (size.kind === 'quote') {
      if (!size.amount.gt(0)) return `size.amount must be positive, got ${size.amount.toFixed()}`;
      qty = walkable ? walkQuote(levels(), size.amount).filled : size.amount.div(limitPx ?? quotedPx ?? (stopPx as Decimal));
    } else {
      const f = size.fraction;
      if (!(f > 0 && f <= 1)) return `size.fraction must be greater than 0 and at most 1, got ${f}`;
      const asset = buy ? m.quote : m.base;
      let free: Decimal;
      if (buy) {
        free = this.reservations.free(s.account, asset, this.ports.balance(s.account, asset));
        // With a capital in the asset, f of what it has left when that is less (capital.ts).
        const cap = s.own.capital?.[asset];
        if (cap) {
          const left = cap.minus(capitalInUse(this.ports, this.reservations, s.strategy, asset));
          if (!left.gt(0)) {
            s.deniedBy = 'exposure';
            return `strategy ${s.strategy} has all of its capital ${cap.toFixed()} ${asset} in use, asked fraction ${f} of what is left`;
          }
          if (left.lt(free)) free = left;
        }
      } else {
        // A sell's fraction is of what the strategy may sell: the free coins less the other strategies' (ownership.ts).
        const x = sellable(this.ports, this.reservations, s.account, s.strategy, asset);
        free = x.may;
        if (x.others.length > 0 && free.lte(0)) {
          s.deniedBy = OWNERSHIP;
          return `${s.strategy} may sell 0 ${asset}, asked fraction ${f} of it (${sellableText(x)})`;
        }
      }
      if (free.lte(0)) return `size.fraction ${f} of the free ${asset} balance: nothing is free (${free.toFixed()})`;
      const budget = free.mul(f);
      // An instant buy's fee comes off the base received: the quote spent is quantity × price.
      qty = buy ? budget.div(quotedPx ?? boundPx.mul(onePlusOf(m.takerFee))) : budget;
    }
    if (!qty.gt(0)) return `quantity must be positive, got ${qty.toFixed()}`;
    const rounded = roundToStep(qty, m.qtyStep, false);
    if (size.kind !== 'base' || !deq(rounded, qty)) {
      adjust(
        s,
        NAME,
        'size',
        sizeText(size),
        rounded.toFixed(),
        size.kind === 'base'
          ? `rounded down to the step ${gridText(m.qtyStep)}`
          : `resolved to a base quantity, rounded down to the step ${gridText(m.qtyStep)}`,
      );
    }
    if (rounded.isZero()) return `quantity ${qty.toFixed()} rounds down to 0 at the step ${m.qtyStep.toFixed()} of ${it.symbol}`;
    // An instant order is the instant desk's, whose bounds (/v1/otc/markets) are its own: checked against them, not the spot market's.
    const desk = it.kind === 'instant' ? m.instant : undefined;
    if (desk) {
      if (desk.minQty && dlt(rounded, desk.minQty))
        return `quantity ${rounded.toFixed()} is below the instant desk's minimum ${desk.minQty.toFixed()} of ${it.symbol}`;
      if (desk.maxQty && dgt(rounded, desk.maxQty))
        return `quantity ${rounded.toFixed()} is above the instant desk's maximum ${desk.maxQty.toFixed()} of ${it.symbol}`;
    } else {
      if (dlt(rounded, m.minQty)) return `quantity ${rounded.toFixed()} is below the minimum ${m.minQty.toFixed()} of ${it.symbol}`;
      if (m.maxQty && dgt(rounded, m.maxQty)) return `quantity ${rounded.toFixed()} is above the maximum ${m.maxQty.toFixed()} of ${it.symbol}`;
    }

    // Value the order: its limit (or stop) price, or the expected average fill from the book.
    let px = limitPx ?? quotedPx ?? stopPx;
    if (walkable) {
      const w = walkBase(levels(), rounded);
      s.exhausted = w.exhausted;
      if (w.worst) s.worstLevel = w.worst;
      px = w.filled.gt(0) ? averagePrice(w) : best;
    }
    const price = px as Decimal;
    const notional = rounded.mul(price);
    if (desk) {
      const total = `instant order total ${notional.toFixed()} ${m.quote} (${rounded.toFixed()} × ${price.toFixed()})`;
      if (dlt(notional, desk.minNotional)) return `${total} is below the instant desk's minimum ${desk.minNotional.toFixed()} ${m.quote} of ${it.symbol}`;
      if (dgt(notional, desk.maxNotional)) return `${total} is above the instant desk's maximum ${desk.maxNotional.toFixed()} ${m.quote} of ${it.symbol}`;
    } else if (dlt(notional, m.minNotional)) {
      return `order total ${notional.toFixed()} ${m.quote} (${rounded.toFixed()} × ${price.toFixed()}) is below the minimum ${m.minNotional.toFixed()} of ${it.symbol}`;
    }

    next.size = { kind: 'base', quantity: rounded };
    s.intent = next;
    s.quantity = rounded;
    s.price = price;
    s.boundPrice = boundPx;
    const buyCost = quotedPx ? rounded.mul(quotedPx) : rounded.mul(boundPx).mul(onePlusOf(m.takerFee));
    s.spend = buy ? { asset: m.quote, amount: buyCost } : { asset: m.base, amount: rounded };
    if (buy) s.addsValue = notional;
    return undefined;
  }

  private roundField(s: CheckState, field: string, value: Decimal | undefined, tick: Decimal, buy: boolean, type: string): Decimal | string {
    if (!value) return `a ${type} order needs ${field}`;
    if (!value.gt(0)) return `${field} must be positive, got ${value.toFixed()}`;
    const r = roundPrice(value, tick, buy);
    if (r.isZero()) return `${field} ${value.toFixed()} rounds down to 0 at the tick ${tick.toFixed()}`;
    if (!deq(r, value))
      adjust(s, NAME, field, value.toFixed(), r.toFixed(), `rounded ${buy ? 'down' : 'up'} to the tick ${gridText(tick)} (never a worse price)`);
    return r;
  }

  private marginOpen(s: CheckState, it: MarginOpenIntent): string | undefined {
    const m = this.ports.market(it.market);
    if (!m) return `unknown market ${it.market}: no limits to check the margin position against`;
    s.market = m;
    const book = this.ports.book(it.market);
    if (book) s.book = book;
    if (!it.collateral.gt(0)) return `collateral must be positive, got ${it.collateral.toFixed()}`;
    if (!it.riskCoef.gte(1)) return `riskCoef must be 1 or more, got ${it.riskCoef.toFixed()}`;
    const rc = m.riskCoef;
    if (rc && (it.riskCoef.lt(rc.min) || it.riskCoef.gt(rc.max) || (rc.step && !it.riskCoef.minus(rc.min).mod(rc.step).isZero()))) {
      const steps = rc.step ? ` in steps of ${rc.step.toFixed()}` : '';
      return `riskCoef ${it.riskCoef.toFixed()} is outside the exchange's bounds for ${it.market}: ${rc.min.toFixed()} to ${rc.max.toFixed()}${steps}`;
    }
    const buy = it.side === 'long';
    let open = it.openPrice;
    if (!open) {
      // The dry-run preview (taken before the check) was taken at the then mid: the position opens at that price.
      open = s.options.marginPreview?.openPrice ?? book?.mid();
      if (!open) return `no mid in the local book of ${it.market} to default the open price to`;
      adjust(s, NAME, 'openPrice', '', open.toFixed(), 'defaulted to the current mid');
    }
    const r = this.roundField(s, 'openPrice', open, m.priceTick, buy, 'margin');
    if (typeof r === 'string') return r;
    const brackets: { stopLoss?: Decimal; takeProfit?: Decimal } = {};
    for (const field of ['stopLoss', 'takeProfit'] as const) {
      const v = it[field];
      if (v === undefined) continue;
      const b = marginBracketOnTick(field, v, it.side, r, m.priceTick);
      if (typeof b === 'string') return b;
      if (!deq(b, v))
        adjust(
          s,
          NAME,
          field,
          v.toFixed(),
          b.toFixed(),
          `rounded ${b.gt(v) ? 'up' : 'down'} to the tick ${gridText(m.priceTick)}, toward the open price (the exit comes no later)`,
        );
      brackets[field] = b;
    }
    s.intent = { ...it, openPrice: r, ...brackets };
    s.price = r;
    const exposure = it.collateral.mul(it.riskCoef);
    s.addsValue = exposure;
    s.spend = { asset: m.quote, amount: it.collateral.plus(exposure.mul(m.takerFee)) };
    return undefined;
  }
}
