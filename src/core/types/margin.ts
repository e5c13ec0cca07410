/** Margin positions (spec 2.14) and trading credit (spec 2.15). */
import type { Decimal } from '../decimal.js';

export type PositionSide = 'long' | 'short';

export interface Money {
  currency?: string;
  value: Decimal;
}

/**
 * Position states. The spec does not show them; mizan and its simulator use these:
 * `open` (first order filled, running), `closed` (closed by the user or by stop loss / take profit /
 * expiry), `liquidated` (closed by the exchange at the liquidation price). Others are kept as sent.
 */
export type PositionState = 'open' | 'closed' | 'liquidated' | (string & {});

export type CloseReason = 'user' | 'stop_loss' | 'take_profit' | 'liquidation' | 'expired' | (string & {});

export interface MarginPosition {
  id: number;
  market: string;
  side: PositionSide;
  state: PositionState;
  callPrice: Decimal;
  liquidityPrice: Decimal;
  isCalled: boolean;
  openPrice: Decimal;
  openFilledPrice?: Decimal;
  openedAt?: string;
  closePrice?: Decimal;
  closeFilledPrice?: Decimal;
  closeReason?: CloseReason | null;
  closedAt?: string | null;
  createdAt?: string;
  updatedAt?: string;
  expiresAt?: string;
  extendTime?: string;
  maxAge?: string | number;
  firstOrderFilled?: boolean;
  collateral: Money;
  interest: Money;
  loan: Money;
  profit: Money;
  profitPercentage?: Decimal;
  riskCoef: Decimal;
  stopLoss?: Decimal;
  takeProfit?: Decimal;
}

export interface MarginRequest {
  market: string;
  side: PositionSide;
  collateral: Decimal;
  riskCoef: Decimal;
  openPrice: Decimal;
  stopLoss?: Decimal;
  takeProfit?: Decimal;
}

export interface MarginDryRun {
  market: string;
  side: PositionSide;
  callPrice: Decimal;
  liquidityPrice: Decimal;
  openPrice: Decimal;
  riskCoef: Decimal;
  stopLoss?: Decimal;
  takeProfit?: Decimal;
  extendTime?: string;
  maxAge?: string | number;
  collateral: Money;
  loan: Money;
  extendFee: Money;
  openFee: Money;
  tradeFee: Money;
}

export interface LoanBounds {
  collateralMin: Decimal;
  collateralMax: Decimal;
  loan: Money;
}

export interface MarginPositionFilter {
  active?: boolean;
  positionSide?: PositionSide;
  market?: string;
}

export interface PropPackageDetail {
  id: number;
  title: string;
  currency: string;
  destinationCurrency?: string;
  assurance: Decimal;
  loan: Decimal;
  warningLimit: Decimal;
  liquidityLimit: Decimal;
  status: string;
  expireDays: number;
  darkImageUrl?: string;
  lightImageUrl?: string;
  dailyFee?: Decimal;
  dailyFeeDiscount?: Decimal;
  dailyFeeAfterDiscount?: Decimal;
  finalFee?: Decimal;
  finalFeeDiscount?: Decimal;
  finalFeeAfterDiscount?: Decimal;
  usageCountStep?: number;
}

export interface PropPackage {
  detail: PropPackageDetail;
  unavailableMarkets: string[];
}

export interface PropHistoryEntry {
  userId?: number;
  clientId: string;
  packageTitle?: string;
  darkImageUrl?: string;
  lightImageUrl?: string;
  currency: string;
  destinationCurrency?: string;
  assurance?: Decimal;
  loan?: Decimal;
  finalBalance?: Decimal | null;
  finalBalanceWithoutTransfers?: Decimal | null;
  startBalance?: Decimal;
  warningLimit?: Decimal;
  liquidityLimit?: Decimal;
  createdAt?: string;
  finishedAt?: string | null;
  expireAt?: string;
  closeReason?: string | null;
  status: string;
  expireDays?: number;
  dailyFee?: Decimal;
  dailyFeeDiscount?: Decimal;
  dailyFeeAfterDiscount?: Decimal;
  finalFee?: Decimal;
  finalFeeDiscount?: Decimal;
  finalFeeAfterDiscount?: Decimal;
  openDays?: number;
  totalDays?: number;
  applicableDailyFee?: Decimal;
  applicableDailyFeeDiscount?: Decimal;
  applicableDailyFeeAfterDiscount?: Decimal;
  profit?: Decimal | null;
  profitPercentage?: Decimal | null;
  finalAssurance?: Decimal | null;
  finalPayBack?: Decimal | null;
}

export interface ClosedPropAccount {
  clientId: string;
  currency: string;
  finalBalance: Decimal;
  finalBalanceWithoutTransfers?: Decimal;
  propPackageId: number;
  startBalance: Decimal;
  userId?: number;
}
