/**
 * Per-market margin settings of the simulator (the fields of the exchange's
 * `/margin-trade/v1/public/markets`: min/max risk coefficient, step, liquidity margin, max age) plus
 * the simulator's own knobs (call margin, interest rate, notional bounds). Defaults are realistic
 * guesses, not the exchange's published numbers; pass your own per market.
 */
import { Decimal } from '../../core/decimal.js';

export interface MarginMarketConfig {
  minRiskCoef: Decimal;
  maxRiskCoef: Decimal;
  riskCoefStep: Decimal;
  /** m: liquidation when equity falls to m × position value. */
  liquidityMargin: Decimal;
  /** w (> m): the call (warning) level. */
  callMargin: Decimal;
  /** r: interest per extension period, as a fraction of the loan's value. */
  interestRate: Decimal;
  /** Commission on the exposure charged at opening, on top of the trading fee (default 0). */
  openFeeRate: Decimal;
  /** Bounds of the exposure N = collateral × risk_coef, in quote. */
  minNotional: Decimal;
  maxNotional: Decimal;
  /** Largest allowed |open_price − market| / market (0.05: "about 5%"). */
  maxPriceDeviation: Decimal;
}

export const EXTEND_TIME_MS = 4 * 3600_000;
export const MAX_AGE_MS = 21 * 24 * 3600_000;

export function defaultMarginMarket(quote: string): MarginMarketConfig {
  const tmn = quote === 'TMN';
  return {
    minRiskCoef: new Decimal(2),
    maxRiskCoef: new Decimal(10),
    riskCoefStep: new Decimal('0.5'),
    liquidityMargin: new Decimal('0.05'),
    callMargin: new Decimal('0.1'),
    interestRate: new Decimal('0.0005'),
    openFeeRate: new Decimal(0),
    minNotional: new Decimal(tmn ? 1_000_000 : 20),
    maxNotional: new Decimal(tmn ? 10_000_000_000 : 200_000),
    maxPriceDeviation: new Decimal('0.05'),
  };
}

/** A lookup of the markets open to margin trading; undefined means the market is not marginable. */
export type MarginMarkets = (symbol: string) => MarginMarketConfig | undefined;
