/**
 * The margin calls beyond opening, topping up and closing (developers.wallex.ir margin pages):
 * public market settings and long/short ratio, one position, moving its stop loss and take profit
 * (`sltp`, a write: never retried), its profit, the margin order list, the user's levels and profit.
 */
import { toPlain, type Decimal } from '../../core/decimal.js';
import type { MarginLevel, MarginMarket, MarginOrder, MarginPnl, MarginPosition, MarginProfit, MarginRatio, Paged } from '../../core/types/index.js';
import { parseMarginPosition } from '../parse/margin.js';
import {
  parseMarginLevel,
  parseMarginLevels,
  parseMarginMarkets,
  parseMarginOrders,
  parseMarginPnl,
  parseMarginProfit,
  parseMarginRatio,
} from '../parse/margin-extra.js';
import type { HttpCore } from './http.js';
import { guardWrite } from './write.js';
import * as v from './validate.js';

type Amount = Decimal | string | number;

/** GET /margin-trade/v1/public/markets: risk-coefficient bounds and max age of every margin market. */
export async function getMarginMarkets(http: HttpCore): Promise<MarginMarket[]> {
  const res = await http.request({ method: 'GET', path: '/margin-trade/v1/public/markets', auth: 'optional', retry: true, envelope: 'optional' });
  return parseMarginMarkets(res.payload);
}

/** GET /margin-trade/v1/public/ratio/{market} */
export async function getMarginRatio(http: HttpCore, market: string): Promise<MarginRatio> {
  const m = v.symbol(market, 'market');
  const res = await http.request({ method: 'GET', path: `/margin-trade/v1/public/ratio/${m}`, auth: 'optional', retry: true, envelope: 'optional' });
  return parseMarginRatio(res.payload);
}

/** GET /margin-trade/v1/positions/{id} */
export async function getMarginPosition(http: HttpCore, id: number): Promise<MarginPosition> {
  const pid = v.positiveInt(id, 'id');
  const res = await http.request({ method: 'GET', path: `/margin-trade/v1/positions/${pid}`, auth: true, retry: true, envelope: 'optional' });
  return parseMarginPosition(res.payload, 'result');
}

export interface MarginBrackets {
  stopLoss?: Amount;
  takeProfit?: Amount;
}

/**
 * PATCH /margin-trade/v1/positions/{id}/sltp with `{stop_loss, take_profit}`: replaces both; one
 * left out is removed (the simulator's reading of the call).
 */
export async function setMarginBrackets(http: HttpCore, id: number, b: MarginBrackets): Promise<MarginPosition> {
  const pid = v.positiveInt(id, 'id');
  const sl = v.positiveOpt(b.stopLoss, 'stopLoss');
  const tp = v.positiveOpt(b.takeProfit, 'takeProfit');
  const body: Record<string, string> = {};
  if (sl) body.stop_loss = toPlain(sl);
  if (tp) body.take_profit = toPlain(tp);
  return guardWrite('setMarginBrackets', undefined, async () => {
    const res = await http.request({
      method: 'PATCH',
      path: `/margin-trade/v1/positions/${pid}/sltp`,
      body,
      auth: true,
      retry: false,
      envelope: 'optional',
      orderCall: true,
    });
    return parseMarginPosition(res.payload, 'result');
  });
}

/** POST /margin-trade/v1/positions/{id}/profit: the position's profit (not retried: a POST). */
export async function getMarginProfit(http: HttpCore, id: number): Promise<MarginProfit> {
  const pid = v.positiveInt(id, 'id');
  const res = await http.request({
    method: 'POST',
    path: `/margin-trade/v1/positions/${pid}/profit`,
    body: {},
    auth: true,
    retry: false,
    envelope: 'optional',
  });
  return parseMarginProfit(res.payload);
}

export interface MarginOrdersQuery {
  market?: string;
  positionId?: number;
  page?: number;
  perPage?: number;
}

/** GET /margin-trade/v1/orders: the orders that opened and closed the account's positions. */
export async function getMarginOrders(http: HttpCore, q: MarginOrdersQuery = {}): Promise<Paged<MarginOrder>> {
  const query = {
    market: q.market === undefined ? undefined : v.symbol(q.market, 'market'),
    position_id: q.positionId === undefined ? undefined : v.positiveInt(q.positionId, 'positionId'),
    page: v.positiveIntOpt(q.page, 'page'),
    per_page: v.positiveIntOpt(q.perPage, 'perPage'),
  };
  const res = await http.request({ method: 'GET', path: '/margin-trade/v1/orders', query, auth: true, retry: true, envelope: 'optional' });
  const items = parseMarginOrders(res.payload);
  return res.envelope?.resultInfo ? { items, pageInfo: res.envelope.resultInfo } : { items };
}

/** GET /margin-trade/v1/user/levels */
export async function getMarginLevels(http: HttpCore): Promise<MarginLevel[]> {
  const res = await http.request({ method: 'GET', path: '/margin-trade/v1/user/levels', auth: true, retry: true, envelope: 'optional' });
  return parseMarginLevels(res.payload);
}

/** GET /margin-trade/v1/user/levels/{market} */
export async function getMarginLevel(http: HttpCore, market: string): Promise<MarginLevel> {
  const m = v.symbol(market, 'market');
  const res = await http.request({ method: 'GET', path: `/margin-trade/v1/user/levels/${m}`, auth: true, retry: true, envelope: 'optional' });
  return parseMarginLevel(res.payload);
}

/** GET /margin-trade/v1/user/pnl */
export async function getMarginPnl(http: HttpCore): Promise<MarginPnl[]> {
  const res = await http.request({ method: 'GET', path: '/margin-trade/v1/user/pnl', auth: true, retry: true, envelope: 'optional' });
  return parseMarginPnl(res.payload);
}
