/**
 * Feeds the executor's order updates into Reservations so a resting order's funds stop counting
 * twice (see reservations.ts): the first time an order is seen open or partially filled on the
 * exchange, its reservation is marked accepted at that time. The balance sync then calls
 * `reservations.balancesSynced(account, requestStartedAt)`.
 *
 * A fill of an order whose lock the last balance read holds (its reservation is covered) frees that
 * part of the lock on the exchange at once: a sell's filled quantity of the base; a limit or
 * stop-limit buy's filled quantity at its limit price of the quote (what the exchange locked for it).
 * The balances' `locked` goes down by as much (`unlocked`), so the freed funds are not counted spent
 * and still locked until the next read. A market or stop-market buy's lock is not moved per fill (the
 * exchange re-locks it at the trigger): it stays until the read after the order ends.
 */
import type { Clock } from '../core/clock.js';
import type { Decimal } from '../core/decimal.js';
import type { Side } from '../core/types/market.js';
import type { FillEvent, OrderUpdate } from '../core/views.js';
import type { Reservations } from './reservations.js';

/** What acceptance is read from: the execution engine's order updates and fills, and its orders. */
export interface OrderUpdateSource {
  on(event: 'order', fn: (u: OrderUpdate) => void): unknown;
  off(event: 'order', fn: (u: OrderUpdate) => void): unknown;
  on(event: 'fill', fn: (f: FillEvent) => void): unknown;
  off(event: 'fill', fn: (f: FillEvent) => void): unknown;
  readonly orders: {
    get(clientOrderId: string): { reservationId?: string; account: string; type: string; price?: Decimal } | undefined;
  };
}

/** Where a freed lock is booked: the balances last read (the portfolio's `releaseLocked`). */
export type UnlockedPort = (account: string, symbol: string, side: Side, amount: Decimal) => void;

/** Start following; returns the function that stops. */
export function followAcceptance(engine: OrderUpdateSource, reservations: Reservations, clock: Clock, unlocked?: UnlockedPort): () => void {
  const onOrder = (u: OrderUpdate) => {
    const s = u.order.state;
    if (s !== 'open' && s !== 'partially_filled') return;
    const id = engine.orders.get(u.order.clientOrderId)?.reservationId;
    if (id) reservations.accepted(id, clock.now());
  };
  engine.on('order', onOrder);
  if (!unlocked) return () => void engine.off('order', onOrder);
  const onFill = (f: FillEvent) => {
    const o = engine.orders.get(f.clientOrderId);
    if (!o?.reservationId || !reservations.get(o.reservationId)?.covered) return;
    if (f.side === 'SELL') unlocked(o.account, f.symbol, f.side, f.quantity);
    else if ((o.type === 'LIMIT' || o.type === 'STOP_LIMIT') && o.price) unlocked(o.account, f.symbol, f.side, o.price.mul(f.quantity));
  };
  engine.on('fill', onFill);
  return () => {
    engine.off('order', onOrder);
    engine.off('fill', onFill);
  };
}
