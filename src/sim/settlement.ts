/**
 * Moving money for one fill, only through the Ledger: the buyer pays the quote sum out of its
 * reservation and receives the base quantity less the fee; the seller pays the base quantity out of
 * its reservation and receives the quote sum less the fee. Fees are taken in the received asset,
 * at the account's maker or taker rate for the market, exactly (no rounding).
 */
import { Decimal, dlte, dmax, isPositive, ZERO } from '../core/decimal.js';
import type { Ledger } from './ledger.js';
import type { MarketSpec } from './markets.js';
import type { SimFill, SimOrder } from './order-types.js';
import { remaining } from './order-types.js';

export interface FeeRates {
  makerFee: Decimal;
  takerFee: Decimal;
}

/** Quote reserved per unit for a buy, when the order has a fixed price (limit and stop-limit). */
function reservesPerUnit(o: SimOrder): boolean {
  return o.type === 'LIMIT' || o.type === 'STOP_LIMIT';
}

export function settleFill(
  ledger: Ledger,
  market: MarketSpec,
  order: SimOrder,
  price: Decimal,
  quantity: Decimal,
  isMaker: boolean,
  rates: FeeRates,
  time: number,
): SimFill {
  // Never before the order existed, whatever time the caller has (a wall clock stepped back).
  const now = Math.max(time, order.createdAt);
  const acct = order.accountId;
  const sum = price.mul(quantity);
  const rate = isMaker ? rates.makerFee : rates.takerFee;
  let fee: Decimal;
  let feeAsset: string;
  if (order.side === 'BUY') {
    ledger.debitLocked(acct, market.quoteAsset, sum);
    const reserved = reservesPerUnit(order) ? order.price.mul(quantity) : sum;
    const release = reserved.minus(sum);
    if (isPositive(release)) ledger.unlock(acct, market.quoteAsset, release);
    order.locked = dmax(order.locked.minus(reserved), ZERO);
    fee = quantity.mul(rate);
    feeAsset = market.baseAsset;
    ledger.credit(acct, market.baseAsset, quantity.minus(fee));
  } else {
    ledger.debitLocked(acct, market.baseAsset, quantity);
    order.locked = dmax(order.locked.minus(quantity), ZERO);
    fee = sum.mul(rate);
    feeAsset = market.quoteAsset;
    ledger.credit(acct, market.quoteAsset, sum.minus(fee));
  }
  const fill: SimFill = {
    accountId: acct,
    clientOrderId: order.clientOrderId,
    symbol: market.symbol,
    price,
    quantity,
    sum,
    fee,
    feeAsset,
    feeCoefficient: rate,
    makerFeeCoefficient: rates.makerFee,
    takerFeeCoefficient: rates.takerFee,
    isBuyer: order.side === 'BUY',
    isMaker,
    timestamp: now,
  };
  order.executedQty = order.executedQty.plus(quantity);
  order.executedSum = order.executedSum.plus(sum);
  order.fee = order.fee.plus(fee);
  order.fills.push(fill);
  order.updatedAt = now;
  if (dlte(remaining(order), ZERO)) closeOrder(ledger, order, 'FILLED', now);
  return fill;
}

/** Finish an order: status, inactive, and the rest of its reservation released. */
export function closeOrder(ledger: Ledger, order: SimOrder, status: 'FILLED' | 'CANCELED', now: number): void {
  order.status = status;
  order.active = false;
  order.updatedAt = now;
  if (order.locked.gt(0)) {
    ledger.unlock(order.accountId, order.lockAsset, order.locked);
    order.locked = new Decimal(0);
  }
}
