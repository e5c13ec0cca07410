/**
 * Spot order history, `GET /v1/account/orders` (developers.wallex.ir spot-order-list): every order
 * of the account, open and finished, newest first, paged. `from` / `to` are days (`2024-10-01`, the
 * documented form); a time given as a Date or epoch milliseconds is sent as its UTC day.
 */
import { ParameterError } from '../../core/errors.js';
import type { OrderType, Paged, Side, SpotOrder } from '../../core/types/index.js';
import { parseOrderList } from '../parse/order.js';
import type { HttpCore } from './http.js';
import * as v from './validate.js';

export interface OrderHistoryQuery {
  /** First day (inclusive): `YYYY-MM-DD`, a Date or epoch milliseconds (its UTC day). */
  from?: string | Date | number;
  /** Last day (inclusive), same forms. */
  to?: string | Date | number;
  page?: number;
  perPage?: number;
  type?: OrderType;
  side?: Side;
  market?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function day(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') {
    if (DAY.test(value) && !Number.isNaN(Date.parse(value))) return value;
    throw new ParameterError(name, value, 'a day as YYYY-MM-DD, a Date or epoch milliseconds');
  }
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) throw new ParameterError(name, value, 'a day as YYYY-MM-DD, a Date or epoch milliseconds');
  return new Date(ms).toISOString().slice(0, 10);
}

/** GET /v1/account/orders */
export async function getOrderHistory(http: HttpCore, q: OrderHistoryQuery = {}): Promise<Paged<SpotOrder>> {
  const query = {
    from: day(q.from, 'from'),
    to: day(q.to, 'to'),
    page: v.positiveIntOpt(q.page, 'page'),
    per_page: v.positiveIntOpt(q.perPage, 'perPage'),
    type: q.type === undefined ? undefined : v.orderType(q.type),
    side: q.side === undefined ? undefined : v.side(q.side),
    market: q.market === undefined ? undefined : v.symbol(q.market, 'market'),
  };
  const res = await http.request({ method: 'GET', path: '/v1/account/orders', query, auth: true, retry: true, envelope: 'required' });
  return parseOrderList(res.payload, res.envelope?.resultInfo);
}
