/**
 * A simulated margin position and its wire form (spec 2.14). States, since the spec shows none:
 * - `pending`: created, the opening order has not filled yet (the open price was not marketable);
 *   collateral is locked, `first_order_filled` is false.
 * - `open`: the opening order filled; interest runs, triggers are watched.
 * - `closed`: closed by the user, a stop loss, a take profit or expiry (`close_reason` says which).
 * - `liquidated`: closed by the exchange at the liquidation price (`close_reason: liquidation`).
 * - `canceled`: a pending position closed before its opening order filled; everything refunded.
 */
import type { Decimal } from '../../core/decimal.js';
import type { CloseReason, PositionSide } from '../../core/types/margin.js';
import { EXTEND_TIME_MS, MAX_AGE_MS } from './config.js';
import { isoSeconds, money, type WireMoney } from './ports.js';

type SimPositionState = 'pending' | 'open' | 'closed' | 'liquidated' | 'canceled';

export interface SimPosition {
  id: number;
  account: string;
  market: string;
  base: string;
  quote: string;
  side: PositionSide;
  state: SimPositionState;
  riskCoef: Decimal;
  /** Total collateral locked (opening amount plus top-ups), quote. */
  collateral: Decimal;
  openPrice: Decimal;
  stopLoss?: Decimal;
  takeProfit?: Decimal;
  /** Loan: quote for a long, base for a short (estimated at the open price while pending). */
  loan: Decimal;
  baseQty: Decimal;
  quoteNet: Decimal;
  interest: Decimal;
  interestPerPeriod: Decimal;
  periodsCharged: number;
  openFee: Decimal;
  callPrice: Decimal;
  liquidityPrice: Decimal;
  isCalled: boolean;
  openFilledPrice?: Decimal;
  openedAtMs?: number;
  expiresAtMs?: number;
  /** Limit price of a requested close that was not marketable yet. */
  closePrice?: Decimal;
  closeFilledPrice?: Decimal;
  closeReason?: CloseReason;
  closedAtMs?: number;
  /** What the account got back at closing (quote), after the closing fee. */
  payout?: Decimal;
  closeFee?: Decimal;
  createdAtMs: number;
  updatedAtMs: number;
}

export function isActive(p: SimPosition): boolean {
  return p.state === 'pending' || p.state === 'open';
}

export interface WirePosition {
  id: number;
  market: string;
  side: PositionSide;
  state: SimPositionState;
  call_price: string;
  liquidity_price: string;
  is_called: boolean;
  close_price: string | null;
  close_filled_price: string | null;
  close_reason: string | null;
  closed_at: string | null;
  open_price: string;
  open_filled_price: string | null;
  opened_at: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  /** Extension period in seconds (14400: every 4 hours). */
  extend_time: number;
  /** Maximum age in seconds (1814400: 21 days). */
  max_age: number;
  first_order_filled: boolean;
  collateral: WireMoney;
  interest: WireMoney;
  loan: WireMoney;
  profit: WireMoney;
  profit_percentage: string;
  risk_coef: string;
  stop_loss: string | null;
  take_profit: string | null;
}

const str = (v: Decimal | undefined): string | null => (v === undefined ? null : v.toFixed());
const time = (ms: number | undefined): string | null => (ms === undefined ? null : isoSeconds(ms));

/** Profit (quote) and its percentage of the collateral, 2 decimals. */
function profitOf(p: SimPosition, equityNow: Decimal | undefined): { profit: Decimal; percent: Decimal } {
  const basis = p.payout ?? equityNow ?? p.collateral;
  const profit = p.state === 'canceled' ? p.collateral.mul(0) : basis.minus(p.collateral);
  const percent = p.collateral.isZero() ? profit : profit.div(p.collateral).mul(100).toDecimalPlaces(2);
  return { profit, percent };
}

export function toWire(p: SimPosition, equityNow: Decimal | undefined): WirePosition {
  const { profit, percent } = profitOf(p, equityNow);
  return {
    id: p.id,
    market: p.market,
    side: p.side,
    state: p.state,
    call_price: p.callPrice.toFixed(),
    liquidity_price: p.liquidityPrice.toFixed(),
    is_called: p.isCalled,
    close_price: str(p.closePrice),
    close_filled_price: str(p.closeFilledPrice),
    close_reason: p.closeReason ?? null,
    closed_at: time(p.closedAtMs),
    open_price: p.openPrice.toFixed(),
    open_filled_price: str(p.openFilledPrice),
    opened_at: time(p.openedAtMs),
    created_at: isoSeconds(p.createdAtMs),
    updated_at: isoSeconds(p.updatedAtMs),
    expires_at: time(p.expiresAtMs),
    extend_time: EXTEND_TIME_MS / 1000,
    max_age: MAX_AGE_MS / 1000,
    first_order_filled: p.openFilledPrice !== undefined,
    collateral: money(p.quote, p.collateral),
    interest: money(p.quote, p.interest),
    loan: money(p.side === 'long' ? p.quote : p.base, p.loan),
    profit: money(p.quote, profit),
    profit_percentage: percent.toFixed(),
    risk_coef: p.riskCoef.toFixed(),
    stop_loss: str(p.stopLoss),
    take_profit: str(p.takeProfit),
  };
}
