/**
 * How a simulated margin position moves through its life: the opening fill, interest every
 * extension period, the call flag, and settlement (user close, stop loss, take profit, liquidation,
 * expiry). Money moves only through the Ledger: the collateral is locked in the account's quote
 * balance while the position lives; at settlement it is spent and the payout credited.
 *
 * Settlement: closing fee F = |b|·P_close·takerFee; payout = max(0, E(P_close) − F). The account's
 * net result is payout − collateral (the opening fee was paid at opening). A price that gaps past
 * the liquidation price can make E negative: the simulated exchange absorbs that loss, the account
 * never loses more than its collateral.
 */
import { Decimal } from '../../core/decimal.js';
import type { CloseReason } from '../../core/types/margin.js';
import type { Ledger } from '../ledger.js';
import { EXTEND_TIME_MS, MAX_AGE_MS, type MarginMarketConfig } from './config.js';
import { crossedAgainst, crossedFor, equity, openAmounts, triggerPrice } from './math.js';
import type { MarketSpec } from './ports.js';
import type { SimPosition } from './position.js';

const ZERO = new Decimal(0);

export function refreshLevels(p: SimPosition, cfg: MarginMarketConfig, spec: MarketSpec): void {
  p.callPrice = triggerPrice(p.baseQty, p.quoteNet, p.interest, cfg.callMargin, spec.pricePrecision);
  p.liquidityPrice = triggerPrice(p.baseQty, p.quoteNet, p.interest, cfg.liquidityMargin, spec.pricePrecision);
}

export function fillOpen(p: SimPosition, price: Decimal, nowMs: number, cfg: MarginMarketConfig, spec: MarketSpec): void {
  const a = openAmounts(p.side, p.collateral, p.riskCoef, price, spec.quantityPrecision, cfg.interestRate);
  p.baseQty = a.baseQty;
  // Top-ups made while pending stay in the position as cash.
  p.quoteNet = a.quoteNet.plus(p.quoteNet);
  p.loan = a.loan;
  p.interestPerPeriod = a.interestPerPeriod;
  p.openFilledPrice = price;
  p.openedAtMs = nowMs;
  p.expiresAtMs = nowMs + MAX_AGE_MS;
  p.state = 'open';
  p.updatedAtMs = nowMs;
  refreshLevels(p, cfg, spec);
}

/** Charges the interest of every extension period completed by `nowMs` (and not after expiry). */
export function chargeInterest(p: SimPosition, nowMs: number): boolean {
  if (p.state !== 'open' || p.openedAtMs === undefined) return false;
  const until = Math.min(nowMs, p.expiresAtMs ?? nowMs);
  const due = Math.floor((until - p.openedAtMs) / EXTEND_TIME_MS);
  if (due <= p.periodsCharged) return false;
  p.interest = p.interest.plus(p.interestPerPeriod.mul(due - p.periodsCharged));
  p.periodsCharged = due;
  return true;
}

/**
 * Closes an open position at `price`: every way a position closes (the user's close, stop loss, take
 * profit, liquidation, expiry) comes here, so each is charged the interest due at `nowMs` the same way
 * (a close exactly at a 4-hour boundary pays that period, whichever path closed it).
 */
export function settle(p: SimPosition, ledger: Ledger, price: Decimal, reason: CloseReason, nowMs: number, spec: MarketSpec): void {
  chargeInterest(p, nowMs);
  const fee = p.baseQty.abs().mul(price).mul(spec.takerFee);
  const e = equity(p.baseQty, p.quoteNet, p.interest, price);
  const payout = Decimal.max(ZERO, e.minus(fee));
  ledger.debitLocked(p.account, p.quote, p.collateral);
  ledger.credit(p.account, p.quote, payout);
  p.closeFee = fee;
  p.payout = payout;
  p.closeFilledPrice = price;
  p.closeReason = reason;
  p.closedAtMs = nowMs;
  p.updatedAtMs = nowMs;
  p.state = reason === 'liquidation' ? 'liquidated' : 'closed';
  p.isCalled = reason === 'liquidation' || p.isCalled;
}

/** A pending position closed before its opening order filled: collateral and opening fee come back. */
export function cancelPending(p: SimPosition, ledger: Ledger, nowMs: number): void {
  ledger.unlock(p.account, p.quote, p.collateral);
  ledger.credit(p.account, p.quote, p.openFee);
  p.state = 'canceled';
  p.closeReason = 'user';
  p.closedAtMs = nowMs;
  p.updatedAtMs = nowMs;
}

export type Outcome = 'none' | 'filled' | CloseReason;

/**
 * Applies one replayed price to an active position: fills a pending opening order that the price
 * reached (at the open price), then liquidation, stop loss (both at the replayed price: market
 * orders), take profit and a requested close price (at their own price: limit orders), then the call
 * flag (true while the price is at or beyond the call price).
 */
export function applyPrice(p: SimPosition, price: Decimal, nowMs: number, ledger: Ledger, cfg: MarginMarketConfig, spec: MarketSpec): Outcome {
  let outcome: Outcome = 'none';
  if (p.state === 'pending') {
    if (!crossedAgainst(p.side, price, p.openPrice)) return 'none';
    fillOpen(p, p.openPrice, nowMs, cfg, spec);
    outcome = 'filled';
  }
  if (p.state !== 'open') return outcome;
  if (crossedAgainst(p.side, price, p.liquidityPrice)) {
    settle(p, ledger, price, 'liquidation', nowMs, spec);
    return 'liquidation';
  }
  if (p.stopLoss && crossedAgainst(p.side, price, p.stopLoss)) {
    settle(p, ledger, price, 'stop_loss', nowMs, spec);
    return 'stop_loss';
  }
  if (p.takeProfit && crossedFor(p.side, price, p.takeProfit)) {
    settle(p, ledger, p.takeProfit, 'take_profit', nowMs, spec);
    return 'take_profit';
  }
  if (p.closePrice && crossedFor(p.side, price, p.closePrice)) {
    settle(p, ledger, p.closePrice, 'user', nowMs, spec);
    return 'user';
  }
  const called = crossedAgainst(p.side, price, p.callPrice);
  if (called !== p.isCalled) {
    p.isCalled = called;
    p.updatedAtMs = nowMs;
  }
  return outcome;
}
