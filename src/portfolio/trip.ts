/**
 * A spot round trip while it is open: the sums its trade record is made of when it closes. It lives
 * on its strategy's position record (positions.ts), which is the one holding of a strategy in a
 * market: the position book books a fill into both at once, and the trade book (trade-book.ts)
 * turns a closed trip into a TradeRecord. Exact Decimal sums, so a trade's pnl is exact.
 */
import { Decimal } from '../core/decimal.js';

const ZERO = new Decimal(0);

export interface Trip {
  entryTime: number;
  entryTag?: string;
  /** Base quantity bought (before a base-asset fee) and what it cost (price × quantity, no fee). */
  boughtQty: Decimal;
  cost: Decimal;
  /** Base quantity sold and what it brought (price × quantity, no fee). */
  soldQty: Decimal;
  proceeds: Decimal;
  /** Every fee, valued in the quote (a base-asset fee at its fill's price): the trade's `fees`. */
  fees: Decimal;
  /** The fees paid in the quote asset: the ones pnl subtracts (a base-asset fee is already out of the holding). */
  quoteFees: Decimal;
  /** Dust the position held when the trip opened, and its value then (quote): part of the trip's cost. */
  carried: Decimal;
  carriedQty: Decimal;
  /** Price of the buys and of the sells while there was exactly one of each (else undefined). */
  buyPrice?: Decimal;
  sellPrice?: Decimal;
  buys: number;
  sells: number;
}

/** A trip opened by a buy at `time`, starting with the dust its position holds (valued when it was left). */
export function openTrip(time: number, tag: string | undefined, dustQty: Decimal, dustValue: Decimal): Trip {
  const t: Trip = {
    entryTime: time,
    boughtQty: ZERO,
    cost: ZERO,
    soldQty: ZERO,
    proceeds: ZERO,
    fees: ZERO,
    quoteFees: ZERO,
    carried: dustValue,
    carriedQty: dustQty,
    buys: 0,
    sells: 0,
  };
  if (tag) t.entryTag = tag;
  return t;
}

/** A trip as it closed: what its position still held (dust, valued at `mark`, the closing price). */
export interface ClosedTrip {
  strategy: string;
  symbol: string;
  trip: Trip;
  time: number;
  /** The closing fill's tag (a bracket's exit, the strategy's own). */
  tag?: string;
  /** Base quantity the position still holds (unsellable dust) and the price it is valued at. */
  held: Decimal;
  mark?: Decimal;
}
