/**
 * A bracket's quantities and prices as its market allows them: what is left to close, whether a
 * child of that size can be placed, what an entry fill adds, a trigger price on the tick. Pure
 * functions of the bracket's record and its market (src/execution/brackets.ts passes both).
 */
import { Decimal, roundToIncrement } from '../core/decimal.js';
import type { FillEvent, MarketView } from '../core/views.js';
import type { BracketRecord } from './bracket-state.js';

/** What the bracket manager reads of a market. */
export type BracketMarket = Pick<MarketView, 'base' | 'qtyStep' | 'priceTick' | 'minQty' | 'minNotional'>;

const ZERO = new Decimal(0);

/** What is left to close, rounded down to the market's quantity step. */
export function remainingOf(r: BracketRecord, m: BracketMarket | undefined): Decimal {
  const rem = new Decimal(r.held).minus(r.exited);
  if (rem.lte(0)) return ZERO;
  return m?.qtyStep ? roundToIncrement(rem, m.qtyStep, 'down') : rem;
}

/** Whether a child of `q` meets the market's minimum quantity and (at its trigger price) notional. */
export function placeable(r: BracketRecord, q: Decimal, m: BracketMarket | undefined): boolean {
  if (q.lte(0)) return false;
  if (!m) return true;
  if (q.lt(m.minQty)) return false;
  const px = r.stopLoss ?? r.takeProfit;
  return !px || q.mul(px).gte(m.minNotional);
}

/** Quantity an entry fill adds: a buy's fee taken in the base asset is not there to sell. */
export function netOf(f: FillEvent, m: BracketMarket | undefined): Decimal {
  const base = m?.base;
  return f.side === 'BUY' && base !== undefined && f.feeAsset === base ? Decimal.max(f.quantity.minus(f.fee), 0) : f.quantity;
}

export function roundTo(p: Decimal, tick: Decimal | undefined, mode: 'up' | 'down'): Decimal {
  return tick ? roundToIncrement(p, tick, mode) : p;
}
