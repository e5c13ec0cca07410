/** The margin desk's inputs and answers in the exchange's wire form (the margin REST routes serve them). */
import type { Decimal } from '../../core/decimal.js';
import type { PositionSide } from '../../core/types/margin.js';
import type { WireMoney } from './ports.js';

export interface LoanBoundsInput {
  market: string;
  side: PositionSide;
  riskCoef: Decimal;
  collateral?: Decimal;
  openPrice?: Decimal;
}

export interface WireLoanBounds {
  collateral: { min: string; max: string };
  loan: WireMoney;
}

export interface WireDryRun {
  market: string;
  side: PositionSide;
  open_price: string;
  risk_coef: string;
  call_price: string;
  liquidity_price: string;
  stop_loss: string | null;
  take_profit: string | null;
  extend_time: number;
  max_age: number;
  collateral: WireMoney;
  loan: WireMoney;
  extend_fee: WireMoney;
  open_fee: WireMoney;
  trade_fee: WireMoney;
}

export interface PositionFilter {
  active?: boolean;
  positionSide?: PositionSide;
  market?: string;
}
