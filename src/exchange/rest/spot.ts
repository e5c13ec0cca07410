/**
 * Spot orders (spec 4.3) and the two account lists a bot needs (open orders, account trades).
 * Create is an order call (limited), never retried, and a lost answer gives OrderOutcomeUnknownError
 * with the client id; cancel is idempotent, limited and retried; lookups are retried.
 */
import { toPlain } from '../../core/decimal.js';
import { ParameterError } from '../../core/errors.js';
import type { AccountTrade, NewSpotOrder, Paged, Side, SpotOrder } from '../../core/types/index.js';
import { parseAccountTrades, parseOrderList, parseSpotOrder } from '../parse/order.js';
import type { HttpCore } from './http.js';
import { guardWrite } from './write.js';
import * as v from './validate.js';

/** The body POST /v1/account/orders gets: every value a string, `stop_Price` only for stop types. */
function orderBody(o: NewSpotOrder): Record<string, string> {
  const symbol = v.symbol(o.symbol);
  const side = v.side(o.side);
  const type = v.orderType(o.type);
  const quantity = v.positive(o.quantity, 'quantity');
  const clientId = v.clientId(o.clientId, 'clientId');
  const price = v.positiveOpt(o.price, 'price');
  const stopPrice = v.positiveOpt(o.stopPrice, 'stopPrice');
  if ((type === 'LIMIT' || type === 'STOP_LIMIT') && !price) throw new ParameterError('price', o.price, `required for a ${type} order`);
  const isStop = type === 'STOP_LIMIT' || type === 'STOP_MARKET';
  if (isStop && !stopPrice) throw new ParameterError('stopPrice', o.stopPrice, `required for a ${type} order`);
  if (!isStop && stopPrice) throw new ParameterError('stopPrice', toPlain(stopPrice), `only for STOP_LIMIT and STOP_MARKET orders, not ${type}`);
  const body: Record<string, string> = { symbol, type, side, quantity: toPlain(quantity), client_id: clientId };
  if (price) body.price = toPlain(price);
  if (stopPrice) body.stop_Price = toPlain(stopPrice);
  return body;
}

/** POST /v1/account/orders (answers 201). */
export async function createOrder(http: HttpCore, o: NewSpotOrder): Promise<SpotOrder> {
  const body = orderBody(o);
  return guardWrite('createOrder', body.client_id, async () => {
    const res = await http.request({ method: 'POST', path: '/v1/account/orders', body, auth: true, retry: false, envelope: 'required', orderCall: true });
    return parseSpotOrder(res.payload, 'result');
  });
}

/** GET /v1/account/orders/{client_id} */
export async function getOrder(http: HttpCore, clientOrderId: string): Promise<SpotOrder> {
  const id = v.orderId(clientOrderId);
  const res = await http.request({ method: 'GET', path: `/v1/account/orders/${encodeURIComponent(id)}`, auth: true, retry: true, envelope: 'required' });
  return parseSpotOrder(res.payload, 'result');
}

/** DELETE /v1/account/orders/{client_id} (the path form; the query form `?clientOrderId=` is equivalent). */
export async function cancelOrder(http: HttpCore, clientOrderId: string): Promise<SpotOrder> {
  const id = v.orderId(clientOrderId);
  const res = await http.request({
    method: 'DELETE',
    path: `/v1/account/orders/${encodeURIComponent(id)}`,
    auth: true,
    retry: true,
    envelope: 'required',
    orderCall: true,
  });
  return parseSpotOrder(res.payload, 'result');
}

export interface OpenOrdersQuery {
  symbol?: string;
  page?: number;
  perPage?: number;
}

/** GET /v1/account/openOrders */
export async function getOpenOrders(http: HttpCore, q: OpenOrdersQuery = {}): Promise<Paged<SpotOrder>> {
  const query = {
    symbol: q.symbol === undefined ? undefined : v.symbol(q.symbol),
    page: v.positiveIntOpt(q.page, 'page'),
    per_page: v.positiveIntOpt(q.perPage, 'perPage'),
  };
  const res = await http.request({ method: 'GET', path: '/v1/account/openOrders', query, auth: true, retry: true, envelope: 'required' });
  return parseOrderList(res.payload, res.envelope?.resultInfo);
}

export interface AccountTradesQuery {
  symbol?: string;
  side?: Side;
  page?: number;
  perPage?: number;
}

/** GET /v1/account/trades */
export async function getAccountTrades(http: HttpCore, q: AccountTradesQuery = {}): Promise<Paged<AccountTrade>> {
  const query = {
    symbol: q.symbol === undefined ? undefined : v.symbol(q.symbol),
    side: q.side === undefined ? undefined : v.side(q.side),
    page: v.positiveIntOpt(q.page, 'page'),
    per_page: v.positiveIntOpt(q.perPage, 'perPage'),
  };
  const res = await http.request({ method: 'GET', path: '/v1/account/trades', query, auth: true, retry: true, envelope: 'required' });
  return parseAccountTrades(res.payload, res.envelope?.resultInfo);
}
