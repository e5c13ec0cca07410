/** Checks of a margin request against the market's settings; every refusal is a 422 naming the field. */
import { Decimal } from '../../core/decimal.js';
import type { PositionSide } from '../../core/types/margin.js';
import { simErrors } from '../errors.js';
import type { MarginMarketConfig, MarginMarkets } from './config.js';
import { deviation } from './math.js';
import { referencePrice, type MarketSpec, type MarketSpecs, type PriceView } from './ports.js';

export interface MarginInput {
  market: string;
  side: PositionSide;
  collateral: Decimal;
  riskCoef: Decimal;
  openPrice: Decimal;
  stopLoss?: Decimal;
  takeProfit?: Decimal;
}

export interface MarketContext {
  spec: MarketSpec;
  cfg: MarginMarketConfig;
  /** The market's reference price now (mid, else last). */
  reference: Decimal;
}

const invalid = (field: string, message: string) => simErrors.invalid({ [field]: [message] }, message);

export function marketContext(symbol: string, specs: MarketSpecs, markets: MarginMarkets, prices: PriceView): MarketContext {
  const spec = specs(symbol);
  const cfg = spec ? markets(symbol) : undefined;
  if (!spec || !cfg) throw invalid('market', `market ${JSON.stringify(symbol)} is not open to margin trading`);
  const reference = referencePrice(prices, symbol);
  if (!reference || reference.lte(0)) throw invalid('market', `market ${symbol} has no price now`);
  return { spec, cfg, reference };
}

export function checkSide(side: string): PositionSide {
  if (side !== 'long' && side !== 'short') throw invalid('side', `side must be long or short, got ${JSON.stringify(side)}`);
  return side;
}

export function checkRiskCoef(k: Decimal, cfg: MarginMarketConfig): void {
  const { minRiskCoef: min, maxRiskCoef: max, riskCoefStep: step } = cfg;
  if (k.lt(min) || k.gt(max) || !k.minus(min).mod(step).isZero()) {
    throw invalid('risk_coef', `risk_coef ${k.toFixed()} must be from ${min.toFixed()} to ${max.toFixed()} in steps of ${step.toFixed()}`);
  }
}

/**
 * open_price (or a close price) must be positive, on the tick grid and, unless `near` is false (a
 * close that executes at once, at the market's own price), within the allowed distance of the market.
 */
export function checkPrice(field: string, price: Decimal, ctx: MarketContext, near = true): void {
  if (price.lte(0)) throw invalid(field, `${field} must be positive, got ${price.toFixed()}`);
  if (price.decimalPlaces() > ctx.spec.pricePrecision) {
    throw invalid(field, `${field} ${price.toFixed()} has more than ${ctx.spec.pricePrecision} decimals`);
  }
  if (near && deviation(price, ctx.reference).gt(ctx.cfg.maxPriceDeviation)) {
    const pct = ctx.cfg.maxPriceDeviation.mul(100).toFixed();
    throw invalid(field, `${field} ${price.toFixed()} is more than ${pct}% from the market price ${ctx.reference.toFixed()}`);
  }
}

export interface CollateralBounds {
  min: Decimal;
  max: Decimal;
}

/** Collateral bounds for a risk coefficient: exposure N = C·k within [minNotional, maxNotional]. */
export function collateralBounds(k: Decimal, ctx: MarketContext): CollateralBounds {
  const dp = ctx.spec.pricePrecision;
  return {
    min: ctx.cfg.minNotional.div(k).toDecimalPlaces(dp, Decimal.ROUND_UP),
    max: ctx.cfg.maxNotional.div(k).toDecimalPlaces(dp, Decimal.ROUND_DOWN),
  };
}

function checkCollateral(c: Decimal, k: Decimal, ctx: MarketContext): void {
  const b = collateralBounds(k, ctx);
  if (c.lt(b.min) || c.gt(b.max)) {
    throw invalid(
      'collateral',
      `collateral ${c.toFixed()} must be from ${b.min.toFixed()} to ${b.max.toFixed()} ${ctx.spec.quote} at risk_coef ${k.toFixed()}`,
    );
  }
}

/** Stop loss on the losing side of the open price, take profit on the winning side. */
export function checkBrackets(input: Pick<MarginInput, 'side' | 'openPrice' | 'stopLoss' | 'takeProfit'>, label = 'open price'): void {
  const { side, openPrice, stopLoss, takeProfit } = input;
  if (stopLoss !== undefined) {
    const okSide = side === 'long' ? stopLoss.lt(openPrice) : stopLoss.gt(openPrice);
    if (stopLoss.lte(0) || !okSide) {
      throw invalid('stop_loss', `stop_loss ${stopLoss.toFixed()} must be ${side === 'long' ? 'below' : 'above'} the ${label} ${openPrice.toFixed()}`);
    }
  }
  if (takeProfit !== undefined) {
    const okSide = side === 'long' ? takeProfit.gt(openPrice) : takeProfit.lt(openPrice);
    if (takeProfit.lte(0) || !okSide) {
      throw invalid('take_profit', `take_profit ${takeProfit.toFixed()} must be ${side === 'long' ? 'above' : 'below'} the ${label} ${openPrice.toFixed()}`);
    }
  }
}

/** Everything a dry run, a loan calculation and an open share. */
export function validateInput(input: MarginInput, specs: MarketSpecs, markets: MarginMarkets, prices: PriceView): MarketContext {
  checkSide(input.side);
  const ctx = marketContext(input.market, specs, markets, prices);
  checkRiskCoef(input.riskCoef, ctx.cfg);
  checkPrice('open_price', input.openPrice, ctx);
  checkCollateral(input.collateral, input.riskCoef, ctx);
  checkBrackets(input);
  return ctx;
}
