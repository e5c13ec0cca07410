/**
 * The market-order guard: a market order is cancelled, unfilled, when the worst book level it would
 * fill at lies more than `maxMarketMove` (a fraction, 0.02 by default) beyond the reference price.
 * One rule for the simulator's spot engine (src/sim/spot-engine.ts) and the backtest's book fill
 * model (src/backtest/book/fill-engine.ts).
 */
import { Decimal, dgt, dlt } from '../core/decimal.js';
import type { Side } from '../core/types/market.js';

/** The default `maxMarketMove`: 2 %. */
export const DEFAULT_MAX_MARKET_MOVE = '0.02';

export class MarketMoveGuard {
  /** 1 + maxMove and 1 − maxMove, made once (the same values as computing them per order). */
  private readonly up: Decimal;
  private readonly down: Decimal;

  constructor(readonly maxMove: Decimal) {
    this.up = maxMove.plus(1);
    this.down = new Decimal(1).minus(maxMove);
  }

  /** The worst price a market order of `side` may fill at, from the reference price (or an amount valued at it). */
  bound(side: Side, ref: Decimal): Decimal {
    return side === 'BUY' ? ref.mul(this.up) : ref.mul(this.down);
  }

  /** True when filling down to `worst` would move the price beyond the bound. */
  exceeds(side: Side, ref: Decimal, worst: Decimal): boolean {
    const b = this.bound(side, ref);
    return side === 'BUY' ? dgt(worst, b) : dlt(worst, b);
  }

  /** Why such an order was cancelled. */
  describe(): string {
    return `would move the price more than ${this.maxMove.mul(100).toFixed()} %`;
  }
}
