/**
 * Spot order routes: create (HTTP 201), look up, cancel (by path, or the documented
 * `DELETE /v1/account/orders?clientOrderId=`, also spelt `clientOrderID`), and the order list.
 * Request fields arrive as strings
 * (numbers are accepted too) and are parsed exactly; a bad one is a 422 naming the field.
 */
import { toDecimal, type Decimal } from '../../../core/decimal.js';
import type { OrderType, Side } from '../../../core/types/index.js';
import { SimError, type SimFieldErrors } from '../../errors.js';
import type { SimulatedExchange } from '../../exchange.js';
import { wireOrder } from '../format.js';
import { ok, type Route, type WireRequest } from '../route.js';
import { paginate, param, requireParam, tradingAccountOf, type SubAccountResolver } from './common.js';

function decimalField(req: WireRequest, name: string, fields: SimFieldErrors): Decimal | undefined {
  const raw = req.body[name] ?? req.query[name];
  if (raw === undefined || raw === null || raw === '') return undefined;
  try {
    return toDecimal(raw, name);
  } catch {
    (fields[name] ??= []).push(`${name} must be a number, got ${JSON.stringify(raw)}`);
    return undefined;
  }
}

export function spotRoutes(sim: SimulatedExchange, resolve?: SubAccountResolver): Route[] {
  const acct = (req: WireRequest): string => tradingAccountOf(req, resolve);
  const cancel = (req: WireRequest, id: string) => ok(wireOrder(sim.cancelOrder(acct(req), id)));
  return [
    {
      method: 'POST',
      path: '/v1/account/orders',
      auth: 'trade',
      orderCall: true,
      handler: (req) => {
        const fields: SimFieldErrors = {};
        const symbol = param(req, 'symbol');
        const side = param(req, 'side');
        const type = param(req, 'type');
        if (!symbol) fields.symbol = ['symbol is required'];
        if (!side) fields.side = ['side is required'];
        if (!type) fields.type = ['type is required'];
        const quantity = decimalField(req, 'quantity', fields);
        if (!quantity && !fields.quantity) fields.quantity = ['quantity is required'];
        const price = decimalField(req, 'price', fields);
        const stopPrice = decimalField(req, 'stop_Price', fields) ?? decimalField(req, 'stopPrice', fields);
        const clientId = param(req, 'client_id');
        if (Object.keys(fields).length > 0) throw new SimError(422, 'The given data was invalid.', fields);
        const order = sim.placeOrder(acct(req), {
          symbol: symbol!.toUpperCase(),
          side: side!.toUpperCase() as Side,
          type: type!.toUpperCase() as OrderType,
          quantity: quantity!,
          ...(price ? { price } : {}),
          ...(stopPrice ? { stopPrice } : {}),
          ...(clientId !== undefined ? { clientId } : {}),
        });
        return ok(wireOrder(order), 201);
      },
    },
    {
      method: 'GET',
      path: '/v1/account/orders/:client_id',
      auth: 'read',
      handler: (req) => ok(wireOrder(sim.getOrder(acct(req), req.params.client_id!))),
    },
    {
      method: 'DELETE',
      path: '/v1/account/orders/:client_id',
      auth: 'trade',
      orderCall: true,
      handler: (req) => cancel(req, req.params.client_id!),
    },
    {
      method: 'DELETE',
      path: '/v1/account/orders',
      auth: 'trade',
      orderCall: true,
      // The documentation writes `clientOrderId`; the exchange's own JS client (wallex-js, as issue
      // #35 reports) sends `clientOrderID`: both are accepted, as is `client_id`.
      handler: (req) =>
        cancel(req, param(req, 'clientOrderId') ?? param(req, 'clientOrderID') ?? param(req, 'client_id') ?? requireParam(req, 'clientOrderId')),
    },
    {
      method: 'GET',
      path: '/v1/account/orders',
      auth: 'read',
      handler: (req) => {
        const market = param(req, 'market')?.toUpperCase() ?? param(req, 'symbol')?.toUpperCase();
        const side = param(req, 'side')?.toUpperCase();
        const type = param(req, 'type')?.toUpperCase();
        const from = param(req, 'from');
        const to = param(req, 'to');
        const fromMs = from ? Date.parse(from) : undefined;
        const toMs = to ? Date.parse(to) + (to.length <= 10 ? 86_400_000 : 0) : undefined;
        const list = sim
          .orders(acct(req))
          .filter((o) => (!market || o.symbol === market) && (!side || o.side === side) && (!type || o.type === type))
          .filter((o) => (fromMs === undefined || o.createdAt >= fromMs) && (toMs === undefined || o.createdAt < toMs))
          .reverse();
        const page = paginate(req, list);
        return ok({ orders: page.items.map(wireOrder) }, 200, { result_info: page.info });
      },
    },
  ];
}
