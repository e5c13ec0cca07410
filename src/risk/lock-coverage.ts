/**
 * Feeds the executor's order updates into Reservations so a resting order's funds stop counting
 * twice (see reservations.ts): the first time an order is seen open or partially filled on the
 * exchange, its reservation is marked accepted at that time. The balance sync then calls
 * `reservations.balancesSynced(account, requestStartedAt)`.
 */
import type { Clock } from '../core/clock.js';
import type { OrderUpdate } from '../core/views.js';
import type { Reservations } from './reservations.js';

/** What acceptance is read from: the execution engine's order updates and its orders' reservations. */
export interface OrderUpdateSource {
  on(event: 'order', fn: (u: OrderUpdate) => void): unknown;
  off(event: 'order', fn: (u: OrderUpdate) => void): unknown;
  readonly orders: { get(clientOrderId: string): { reservationId?: string } | undefined };
}

/** Start following; returns the function that stops. */
export function followAcceptance(engine: OrderUpdateSource, reservations: Reservations, clock: Clock): () => void {
  const onOrder = (u: OrderUpdate) => {
    const s = u.order.state;
    if (s !== 'open' && s !== 'partially_filled') return;
    const id = engine.orders.get(u.order.clientOrderId)?.reservationId;
    if (id) reservations.accepted(id, clock.now());
  };
  engine.on('order', onOrder);
  return () => void engine.off('order', onOrder);
}
