/**
 * Instant (OTC) orders (spec 4.4) and their price quote. The order answer is documented bare and
 * seen in an envelope: both are accepted. The order carries no client id of ours, so a lost answer
 * gives OrderOutcomeUnknownError without one: check balances before sending again.
 */
import type { Clock } from '../../core/clock.js';
import { toPlain } from '../../core/decimal.js';
import type { InstantOrder, InstantQuote, NewInstantOrder, Side } from '../../core/types/index.js';
import { parseInstantOrder, parseInstantQuote } from '../parse/order.js';
import { parseOtcMarkets, type OtcMarket } from '../parse/otc.js';
import type { HttpCore } from './http.js';
import { guardWrite } from './write.js';
import * as v from './validate.js';

/** POST /v1/account/easy-trade/orders with `{symbol, side, quantity, from: "otc"}`. */
export async function createInstantOrder(http: HttpCore, o: NewInstantOrder): Promise<InstantOrder> {
  const symbol = v.symbol(o.symbol);
  const side = v.side(o.side);
  const quantity = v.positive(o.quantity, 'quantity');
  // The spec types quantity as a JSON number: sent as one when the number prints back exactly
  // (always for exchange step sizes), else as the exact decimal string.
  const asNumber = quantity.toNumber();
  const exact = String(asNumber) === toPlain(quantity);
  const body = { symbol, side, quantity: exact ? asNumber : toPlain(quantity), from: 'otc' };
  return guardWrite('createInstantOrder', undefined, async () => {
    const res = await http.request({
      method: 'POST',
      path: '/v1/account/easy-trade/orders',
      body,
      auth: true,
      retry: false,
      envelope: 'optional',
      orderCall: true,
    });
    return parseInstantOrder(res.payload);
  });
}

/** GET /v1/account/otc/price?symbol=&side= */
export async function getInstantQuote(http: HttpCore, clock: Clock, symbol: string, side: Side): Promise<InstantQuote> {
  const s = v.symbol(symbol);
  const sd = v.side(side);
  const res = await http.request({
    method: 'GET',
    path: '/v1/account/otc/price',
    query: { symbol: s, side: sd },
    auth: true,
    retry: true,
    envelope: 'required',
  });
  return parseInstantQuote(res.payload, { symbol: s, side: sd }, clock.now());
}

/**
 * GET /v1/otc/markets (public): the instant-order markets, with their bounds and whether buying and
 * selling are open. Both documented shapes are read (`result` keyed by symbol, or `result.symbols`).
 */
export async function getOtcMarkets(http: HttpCore): Promise<OtcMarket[]> {
  const res = await http.request({ method: 'GET', path: '/v1/otc/markets', auth: false, retry: true, envelope: 'required' });
  return parseOtcMarkets(res.payload);
}
