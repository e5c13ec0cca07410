/**
 * Instant (OTC) routes (spec 4.4). The quote answers in the usual envelope; the order answers HTTP
 * 201 with the bare order object, as the specification documents it (the REST client accepts both).
 * Set `envelopeOrders` to wrap it in `{success, message, result}` like the crawled sample instead.
 */
import type { Side } from '../../../core/types/market.js';
import type { InstantDesk } from '../../instant.js';
import { requireDecimal, requireText, tradingAccount, type SubAccountResolver } from '../../margin/parse.js';
import { ok, type Route, type WireRequest } from '../route.js';

export interface InstantRoutesOptions {
  resolveSubAccount?: SubAccountResolver;
  envelopeOrders?: boolean;
}

const side = (req: WireRequest): Side => requireText(req, 'side').toUpperCase() as Side;

export function instantRoutes(desk: InstantDesk, opts: InstantRoutesOptions = {}): Route[] {
  const account = (req: WireRequest) => tradingAccount(req, opts.resolveSubAccount);
  return [
    { method: 'GET', path: '/v1/otc/markets', handler: () => ok(desk.otcMarkets()) },
    {
      method: 'GET',
      path: '/v1/account/otc/price',
      auth: 'read',
      handler: (req) => ok(desk.quote(account(req), requireText(req, 'symbol').toUpperCase(), side(req))),
    },
    {
      method: 'POST',
      path: '/v1/account/easy-trade/orders',
      auth: 'trade',
      orderCall: true,
      handler: (req) => {
        requireText(req, 'from');
        const order = desk.place(account(req), {
          symbol: requireText(req, 'symbol').toUpperCase(),
          side: side(req),
          quantity: requireDecimal(req, 'quantity'),
        });
        return opts.envelopeOrders ? ok(order, 201) : { status: 201, body: order };
      },
    },
  ];
}
