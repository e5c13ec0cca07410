/**
 * How much collateral moves a margin position's call price to a target: the simulator's formula
 * (src/sim/margin/math.ts, README there) solved for the top-up.
 *
 * The simulator keeps a position as a signed base amount b, a net quote amount q and the interest
 * charged so far I; its call price is the price where equity q + b·P − I falls to w·|b|·P:
 *   P_w = (I − q) / (b − w·|b|)
 * Adding collateral ΔC raises q by ΔC, so the collateral that puts the call price at P_t is
 *   ΔC = q' − q   with   q' = I − P_t·(b − w·|b|)
 *   long  (b = +Q):   ΔC = I − P_t·Q·(1 − w) − q
 *   short (b = −Lb):  ΔC = I + P_t·Lb·(1 + w) − q
 *
 * b and q are not on the wire; they follow from what a position reports (collateral C, which
 * includes earlier top-ups, loan, risk_coef k, open fill price P_f, interest I):
 *   long:  opening collateral C0 = L / (k − 1); Q = C0·k / P_f rounded down to the quantity step;
 *          q = cash − L + top-ups = C − Q·P_f
 *   short: Lb = the loan (base); q = C + Lb·P_f
 * A long with k ≤ 1 has no loan and cannot be called: it needs nothing. The result is rounded up to
 * `collateralPrecision` decimals (more collateral moves the call price further away, never less).
 */
import { Decimal } from '../core/decimal.js';
import type { MarginPosition } from '../core/types/margin.js';
import type { MarginFormulas } from './margin-monitor.js';

const ZERO = new Decimal(0);
const ONE = new Decimal(1);

export interface MarginMarketParams {
  /** w: the call margin (the simulator's `callMargin`, 0.1 by default). */
  callMargin: Decimal;
  /** Decimals of the market's quantity step (a long's base amount is rounded down to it). */
  quantityPrecision: number;
  /** Decimals the top-up is rounded up to (default 8). */
  collateralPrecision?: number;
}

/** The position's signed base amount b and net quote amount q, as the simulator holds them. */
export function positionAmounts(p: MarginPosition, quantityPrecision: number): { b: Decimal; q: Decimal } | undefined {
  const fill = p.openFilledPrice ?? p.openPrice;
  if (!fill.gt(0)) return undefined;
  const c = p.collateral.value;
  if (p.side === 'long') {
    const k1 = p.riskCoef.minus(ONE);
    if (!k1.gt(0)) return undefined;
    const qty = p.loan.value.mul(p.riskCoef).div(k1.mul(fill)).toDecimalPlaces(quantityPrecision, Decimal.ROUND_DOWN);
    return { b: qty, q: c.minus(qty.mul(fill)) };
  }
  const lb = p.loan.value;
  return { b: lb.neg(), q: c.plus(lb.mul(fill)) };
}

/** Collateral to add so the call price becomes `targetCallPrice` (0 when it is already there or beyond). */
export function collateralForCallPrice(p: MarginPosition, targetCallPrice: Decimal, params: MarginMarketParams): Decimal {
  const amounts = positionAmounts(p, params.quantityPrecision);
  if (!amounts || amounts.b.isZero()) return ZERO;
  const { b, q } = amounts;
  const w = params.callMargin;
  const target = p.interest.value.minus(targetCallPrice.mul(b.minus(w.mul(b.abs()))));
  const need = target.minus(q);
  if (!need.gt(0)) return ZERO;
  return need.toDecimalPlaces(params.collateralPrecision ?? 8, Decimal.ROUND_UP);
}

/** The simulator's call price of a position (for checks and tests): (I − q) / (b − w·|b|), unrounded. */
export function callPriceOf(p: MarginPosition, params: MarginMarketParams): Decimal | undefined {
  const amounts = positionAmounts(p, params.quantityPrecision);
  if (!amounts || amounts.b.isZero()) return undefined;
  const { b, q } = amounts;
  const price = p.interest.value.minus(q).div(b.minus(params.callMargin.mul(b.abs())));
  return price.gt(0) ? price : ZERO;
}

/** MarginFormulas for the MarginMonitor from per-market parameters (undefined market: no top-up). */
export function simMarginFormulas(params: (market: string) => MarginMarketParams | undefined): MarginFormulas {
  return {
    collateralForCallPrice(position, targetCallPrice) {
      const pm = params(position.market);
      return pm ? collateralForCallPrice(position, targetCallPrice, pm) : ZERO;
    },
  };
}

/**
 * The call margin w a position was opened with, read off the call price the exchange reports for it:
 * from P_c = (I − q) / (b − w·|b|),  w = (b − (I − q) / P_c) / |b|. Undefined when the position
 * reports no call price or its amounts are unknown.
 */
export function callMarginOf(p: MarginPosition, quantityPrecision: number): Decimal | undefined {
  const amounts = positionAmounts(p, quantityPrecision);
  if (!amounts || amounts.b.isZero() || !p.callPrice.gt(0)) return undefined;
  const { b, q } = amounts;
  const w = b.minus(p.interest.value.minus(q).div(p.callPrice)).div(b.abs());
  return w.gt(0) && w.lt(ONE) ? w : undefined;
}

/**
 * MarginFormulas from what the exchange reports: each position's call margin is read off its own
 * call price (callMarginOf), the quantity step from the market. A position whose call margin cannot
 * be read gets no top-up (the monitor warns instead).
 */
export function exchangeMarginFormulas(quantityPrecision: (market: string) => number | undefined): MarginFormulas {
  return {
    collateralForCallPrice(position, targetCallPrice) {
      const qp = quantityPrecision(position.market);
      const w = qp === undefined ? undefined : callMarginOf(position, qp);
      return w && qp !== undefined ? collateralForCallPrice(position, targetCallPrice, { callMargin: w, quantityPrecision: qp }) : ZERO;
    },
  };
}
