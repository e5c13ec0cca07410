/**
 * Instant (OTC) routes (spec 4.4). The quote answers in the usual envelope; the order answers HTTP
 * 201 with the bare order object, as the specification documents it (the REST client accepts both).
 * Set `envelopeOrders` to wrap it in `{success, message, result}` like the crawled sample instead.
 *
 * Two documented create routes are served: the current `POST /v1/account/easy-trade/orders
 * {symbol, side, quantity, from}` and the older `POST /v1/account/otc/orders {symbol, side, amount}`
 * (api-docs.wallex.ir, answered in the envelope as that page shows). `GET /v1/otc/markets` answers
 * the current page's shape (`result` keyed by symbol).
 */
import type { Side } from '../../../core/types/market.js';
import { SimError } from '../../errors.js';
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
    {
      method: 'POST',
      path: '/v1/account/otc/orders',
      auth: 'trade',
      orderCall: true,
      handler: (req) => {
        const request = { symbol: requireText(req, 'symbol').toUpperCase(), side: side(req), quantity: requireDecimal(req, 'amount') };
        try {
          return ok(desk.place(account(req), request), 201);
        } catch (err) {
          // This route calls the quantity `amount`: its refusals name the field the caller sent.
          if (err instanceof SimError && err.fields.quantity) {
            const { quantity, ...rest } = err.fields;
            throw new SimError(err.status, err.message.replace(/^quantity/, 'amount'), {
              ...rest,
              amount: quantity.map((m) => m.replace(/^quantity/, 'amount')),
            });
          }
          throw err;
        }
      },
    },
  ];
}
