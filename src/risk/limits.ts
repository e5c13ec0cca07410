/**
 * Limits, global and per strategy. The shape is the `risk.limits` section of the YAML config
 * (src/config/schema-risk.ts): percentages are plain numbers (2 means 2 %), amounts are Decimal.
 * A strategy's limits can only tighten the global ones: every number is the smaller of the two, and
 * every map is merged key by key with the smaller value winning.
 */
import type { Decimal } from '../core/decimal.js';

export interface OrderRateLimits {
  /** Orders allowed per window (the exchange allows 20 per 10 s). */
  limit: number;
  windowMs: number;
  /** Slots of the window kept for cancels: new orders may use `limit − reserveForCancels`. */
  reserveForCancels?: number;
}

interface PositionValueLimits {
  /** Per market: the most position value, in the market's quote asset. */
  market?: Record<string, Decimal>;
  /** Per asset: the most quantity held. */
  asset?: Record<string, Decimal>;
  /** Per quote asset: the most value over all markets quoted in it. */
  total?: Record<string, Decimal>;
}

export interface RiskLimits {
  /** Largest distance of a limit price (or margin open price) from the mid, in %. */
  maxPriceDeviationPct?: number;
  /** Largest move of a market order through the local book from the best price, in % (default 2). */
  maxSlippagePct?: number;
  maxOpenOrders?: number;
  maxOpenOrdersPerMarket?: number;
  maxPositionValue?: PositionValueLimits;
  maxRiskCoef?: Decimal;
  /** Per asset: the most margin loan outstanding. */
  maxTotalLoan?: Record<string, Decimal>;
  /** Smallest distance of the current price from a new margin position's call price, in %. */
  minCallDistancePct?: number;
  orderRate?: OrderRateLimits;
}

/** A strategy's limits plus its capital cap (the strategy's `capital` in the YAML). */
export interface StrategyLimits extends RiskLimits {
  /** Per asset: the most this strategy may commit (open orders plus the cost of what it holds). */
  capital?: Record<string, Decimal>;
}

export const DEFAULT_MAX_SLIPPAGE_PCT = 2;

function minNum(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

function minDec(a: Decimal | undefined, b: Decimal | undefined): Decimal | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a.lte(b) ? a : b;
}

function minMap(a: Record<string, Decimal> | undefined, b: Record<string, Decimal> | undefined): Record<string, Decimal> | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const out: Record<string, Decimal> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = minDec(out[k], v) ?? v;
  return out;
}

/** Merge a strategy's limits into the global ones; the strategy can only tighten. */
export function mergeLimits(global: RiskLimits, strategy: StrategyLimits = {}): StrategyLimits {
  const out: StrategyLimits = {};
  const set = <K extends keyof StrategyLimits>(k: K, v: StrategyLimits[K] | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  set('maxPriceDeviationPct', minNum(global.maxPriceDeviationPct, strategy.maxPriceDeviationPct));
  set('maxSlippagePct', minNum(global.maxSlippagePct ?? DEFAULT_MAX_SLIPPAGE_PCT, strategy.maxSlippagePct));
  set('maxOpenOrders', minNum(global.maxOpenOrders, strategy.maxOpenOrders));
  set('maxOpenOrdersPerMarket', minNum(global.maxOpenOrdersPerMarket, strategy.maxOpenOrdersPerMarket));
  set('maxRiskCoef', minDec(global.maxRiskCoef, strategy.maxRiskCoef));
  set('maxTotalLoan', minMap(global.maxTotalLoan, strategy.maxTotalLoan));
  set('minCallDistancePct', maxNum(global.minCallDistancePct, strategy.minCallDistancePct));
  const gp = global.maxPositionValue;
  const sp = strategy.maxPositionValue;
  if (gp || sp) {
    const pv: PositionValueLimits = {};
    const m = minMap(gp?.market, sp?.market);
    const a = minMap(gp?.asset, sp?.asset);
    const t = minMap(gp?.total, sp?.total);
    if (m) pv.market = m;
    if (a) pv.asset = a;
    if (t) pv.total = t;
    out.maxPositionValue = pv;
  }
  set('capital', strategy.capital);
  // The bot-wide order rate is enforced by one shared budget; a strategy's own orderRate is an
  // extra, stricter budget of its own (see OrderRateBudget).
  set('orderRate', strategy.orderRate);
  return out;
}

/** For "at least" limits (a minimum distance) tightening means the larger value. */
function maxNum(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}
