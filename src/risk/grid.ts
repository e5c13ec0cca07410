/**
 * Rounding to a market's grid (tick or step) without a division when the grid is a power of ten
 * (10^-k, the exchange's usual precision): then floor/ceil to k decimals is the same number and
 * several times cheaper than value / step rounded × step. Other grids take the division. Facts
 * about a grid (its decimals, its text, 1 + fee factors) are cached per Decimal instance, which the
 * market catalog keeps for the life of the market.
 */
import { Decimal, deq } from '../core/decimal.js';

const decimalsOf = new WeakMap<Decimal, number>();
const texts = new WeakMap<Decimal, string>();
const onePlus = new WeakMap<Decimal, Decimal>();
const oneMinus = new WeakMap<Decimal, Decimal>();
const ONE = new Decimal(1);

/** k when `step` is exactly 10^-k (k ≥ 0), else -1. */
export function powerOfTenDecimals(step: Decimal): number {
  let k = decimalsOf.get(step);
  if (k === undefined) {
    const dp = step.decimalPlaces();
    k = deq(step, new Decimal(10).pow(-dp)) ? dp : -1;
    decimalsOf.set(step, k);
  }
  return k;
}

/** `value` rounded to a multiple of `step`: down, or up. */
export function roundToStep(value: Decimal, step: Decimal, up: boolean): Decimal {
  const mode = up ? Decimal.ROUND_UP : Decimal.ROUND_DOWN;
  const k = powerOfTenDecimals(step);
  if (k >= 0) return value.toDecimalPlaces(k, mode);
  return value.div(step).toDecimalPlaces(0, mode).mul(step);
}

/** `step.toFixed()`, cached (grid values appear in adjustment texts). */
export function gridText(step: Decimal): string {
  let t = texts.get(step);
  if (t === undefined) {
    t = step.toFixed();
    texts.set(step, t);
  }
  return t;
}

/** 1 + `rate`, cached (fee factors). */
export function onePlusOf(rate: Decimal): Decimal {
  let f = onePlus.get(rate);
  if (!f) {
    f = ONE.plus(rate);
    onePlus.set(rate, f);
  }
  return f;
}

/** 1 − `rate`, cached (slippage factors). */
export function oneMinusOf(rate: Decimal): Decimal {
  let f = oneMinus.get(rate);
  if (!f) {
    f = ONE.minus(rate);
    oneMinus.set(rate, f);
  }
  return f;
}
