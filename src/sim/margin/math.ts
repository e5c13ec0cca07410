/**
 * Margin position arithmetic of the simulator. Pure functions on Decimal; every formula is also in
 * src/sim/margin/README.md.
 *
 * Symbols: C collateral (quote), k risk coefficient (`risk_coef`), P price (quote per base),
 * m liquidity margin (`liquidity_margin`), w call margin (w > m), r interest rate per 4-hour period.
 *
 * risk_coef is the credit ratio: the position's exposure is k times the collateral, N = C·k (quote),
 * on both sides.
 * - Long: the collateral pays for part of the purchase, so the loan is the rest, L = C·(k − 1) in
 *   quote; the position holds Q = N / P_fill base (rounded down to the step, the change stays as cash).
 * - Short: the collateral stays in cash and the whole exposure is borrowed in base,
 *   Lb = N / P_fill (rounded down to the step), sold at P_fill; the position holds C + Lb·P_fill quote.
 *
 * A position is kept as a signed base amount b (+Q long, −Lb short), a net quote amount q
 * (long: cash − L; short: C + Lb·P_fill + top-ups) and the interest charged so far I. Then:
 *   equity          E(P) = q + b·P − I
 *   position value  V(P) = |b|·P
 *   trigger price at margin x (E(P) = x·V(P)):  P_x = (I − q) / (b − x·|b|)
 *     long:  P_x = (L + I − cash) / (Q·(1 − x))     short:  P_x = (q − I) / (Lb·(1 + x))
 *   call price = P_w, liquidation price = P_m. A long's prices are rounded up to the tick and a
 *   short's down, so the exchange acts at or before the exact level. A long with no debt left
 *   (I − q ≤ 0) cannot be liquidated: its prices are 0.
 *   interest per period: long L·r (quote), short Lb·P_fill·r (quote, the loan's value at opening).
 *   Adding collateral ΔC raises q by ΔC: a long's prices move down, a short's up (away from the market).
 */
import { Decimal } from '../../core/decimal.js';
import type { PositionSide } from '../../core/types/margin.js';

const ZERO = new Decimal(0);

export interface OpenedAmounts {
  /** Signed base amount: +Q for a long, −Lb for a short. */
  baseQty: Decimal;
  /** Net quote amount (see the file comment). */
  quoteNet: Decimal;
  /** Loan: quote for a long, base for a short. */
  loan: Decimal;
  /** Interest charged every extension period, in quote. */
  interestPerPeriod: Decimal;
  /** Exposure actually taken: |b|·P_fill. */
  notional: Decimal;
}

function notional(collateral: Decimal, riskCoef: Decimal): Decimal {
  return collateral.mul(riskCoef);
}

/** Loan in its own currency for a collateral at a price (before the step rounding of a short's loan). */
export function loanFor(side: PositionSide, collateral: Decimal, riskCoef: Decimal, price: Decimal, quantityPrecision: number): Decimal {
  if (side === 'long') return collateral.mul(riskCoef.minus(1));
  return notional(collateral, riskCoef).div(price).toDecimalPlaces(quantityPrecision, Decimal.ROUND_DOWN);
}

/** What a position holds and owes once its opening order fills at `fillPrice`. */
export function openAmounts(
  side: PositionSide,
  collateral: Decimal,
  riskCoef: Decimal,
  fillPrice: Decimal,
  quantityPrecision: number,
  interestRate: Decimal,
): OpenedAmounts {
  const n = notional(collateral, riskCoef);
  if (side === 'long') {
    const loan = collateral.mul(riskCoef.minus(1));
    const q = n.div(fillPrice).toDecimalPlaces(quantityPrecision, Decimal.ROUND_DOWN);
    const spent = q.mul(fillPrice);
    const cash = collateral.plus(loan).minus(spent);
    return { baseQty: q, quoteNet: cash.minus(loan), loan, interestPerPeriod: loan.mul(interestRate), notional: spent };
  }
  const lb = n.div(fillPrice).toDecimalPlaces(quantityPrecision, Decimal.ROUND_DOWN);
  const proceeds = lb.mul(fillPrice);
  return { baseQty: lb.neg(), quoteNet: collateral.plus(proceeds), loan: lb, interestPerPeriod: proceeds.mul(interestRate), notional: proceeds };
}

export function equity(baseQty: Decimal, quoteNet: Decimal, interest: Decimal, price: Decimal): Decimal {
  return quoteNet.plus(baseQty.mul(price)).minus(interest);
}

/**
 * The price at which equity falls to `margin` times the position value, rounded to `pricePrecision`
 * decimals toward the market (up for a long, down for a short). 0 when a long has no debt left.
 */
export function triggerPrice(baseQty: Decimal, quoteNet: Decimal, interest: Decimal, margin: Decimal, pricePrecision: number): Decimal {
  if (baseQty.isZero()) return ZERO;
  const denom = baseQty.minus(margin.mul(baseQty.abs()));
  const p = interest.minus(quoteNet).div(denom);
  if (p.lte(0)) return ZERO;
  const long = baseQty.gt(0);
  return p.toDecimalPlaces(pricePrecision, long ? Decimal.ROUND_UP : Decimal.ROUND_DOWN);
}

/** True when `price` has reached `level` from the position's risky side (long: at or below). */
export function crossedAgainst(side: PositionSide, price: Decimal, level: Decimal): boolean {
  if (level.lte(0)) return false;
  return side === 'long' ? price.lte(level) : price.gte(level);
}

/** True when `price` has reached `level` from the position's favourable side (long: at or above). */
export function crossedFor(side: PositionSide, price: Decimal, level: Decimal): boolean {
  if (level.lte(0)) return false;
  return side === 'long' ? price.gte(level) : price.lte(level);
}

/** Relative distance |a − b| / b. */
export function deviation(a: Decimal, b: Decimal): Decimal {
  return a.minus(b).abs().div(b);
}
