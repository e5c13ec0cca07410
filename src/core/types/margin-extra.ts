/** The margin calls beyond positions: market settings, long/short ratio, orders, levels, profit (docs/EXCHANGE-COVERAGE.md). */
import type { Decimal } from '../decimal.js';
import type { Money } from './margin.js';

/** A market of `GET /margin-trade/v1/public/markets`: the risk-coefficient bounds a position must keep. */
export interface MarginMarket {
  symbol: string;
  base: string;
  quote: string;
  minRiskCoef: Decimal;
  maxRiskCoef: Decimal;
  riskCoefStep?: Decimal;
  liquidityMargin?: Decimal;
  /** Longest life of a position, seconds. */
  maxAgeSec?: number;
}

/** `GET public/ratio/{market}`: share of open exposure long and short, percent. */
export interface MarginRatio {
  market: string;
  long: Decimal;
  short: Decimal;
}

export interface MarginOrder {
  id: string;
  positionId: number;
  market: string;
  side: 'buy' | 'sell';
  purpose: string;
  price?: Decimal;
  filledPrice?: Decimal;
  quantity?: Decimal;
  state: string;
  createdAt?: string;
  /**
   * The order's fee, when the answer gives one (the documentation lists no fields; the simulator's
   * reading has it: the opening order the opening fee, the closing order the closing fee).
   */
  fee?: Money;
}

/** The risk-coefficient range open to the user on a market. */
export interface MarginLevel {
  market: string;
  level: number;
  minRiskCoef: Decimal;
  maxRiskCoef: Decimal;
  riskCoefStep?: Decimal;
}

export interface MarginPnl {
  currency: string;
  realizedProfit: Decimal;
  unrealizedProfit: Decimal;
  closedPositions?: number;
  openPositions?: number;
}

export interface MarginProfit {
  id: number;
  market: string;
  state?: string;
  profit: Money;
  profitPercentage?: Decimal;
}
