/**
 * The exchange's order rules, checked before anything is reserved: known symbol, side and type,
 * quantity within minQty / maxQty and on the step grid, price and stop price on the tick grid, the
 * total at least minNotional, stop price only for stop orders, client id of letters, digits and
 * underscore. All problems are collected into one 422 with per-field messages.
 */
import type { Decimal } from '../core/decimal.js';
import { ORDER_TYPES } from '../core/types/index.js';
import { SimError, type SimFieldErrors } from './errors.js';
import type { MarketSpec } from './markets.js';
import type { PlaceOrderRequest } from './order-types.js';
import { dgt, dlt } from '../core/decimal.js';

const CLIENT_ID_PATTERN = /^[A-Za-z0-9_]{1,64}$/;

function add(fields: SimFieldErrors, field: string, message: string): void {
  (fields[field] ??= []).push(message);
}

/**
 * Throws a 422 SimError naming every bad field. `referencePrice` (last trade or best opposite
 * price) values the total of a MARKET order.
 */
export function validateOrder(req: PlaceOrderRequest, market: MarketSpec | undefined, referencePrice: Decimal | undefined): void {
  const fields: SimFieldErrors = {};
  if (!market) add(fields, 'symbol', `symbol ${JSON.stringify(req.symbol)} is not a market of this exchange`);
  if (req.side !== 'BUY' && req.side !== 'SELL') add(fields, 'side', `side must be BUY or SELL, got ${JSON.stringify(req.side)}`);
  const typeOk = (ORDER_TYPES as readonly string[]).includes(req.type);
  if (!typeOk) add(fields, 'type', `type must be one of ${ORDER_TYPES.join(', ')}, got ${JSON.stringify(req.type)}`);
  if (req.clientId !== undefined && !CLIENT_ID_PATTERN.test(req.clientId)) {
    add(fields, 'client_id', `client_id may hold only letters, digits and underscore (1 to 64), got ${JSON.stringify(req.clientId)}`);
  }
  const needsPrice = req.type === 'LIMIT' || req.type === 'STOP_LIMIT';
  const isStop = req.type === 'STOP_LIMIT' || req.type === 'STOP_MARKET';
  if (needsPrice && !req.price) add(fields, 'price', `price is required for a ${req.type} order`);
  if (isStop && !req.stopPrice) add(fields, 'stop_Price', `stop_Price is required for a ${req.type} order`);
  if (!isStop && typeOk && req.stopPrice) add(fields, 'stop_Price', `stop_Price must not be sent for a ${req.type} order`);
  if (market) {
    const q = req.quantity;
    if (q.lte(0)) add(fields, 'quantity', `quantity must be positive, got ${q.toFixed()}`);
    else {
      if (q.decimalPlaces() > market.stepSize) add(fields, 'quantity', `quantity ${q.toFixed()} has more than ${market.stepSize} decimal places`);
      if (dlt(q, market.minQty)) add(fields, 'quantity', `quantity ${q.toFixed()} is below the minimum ${market.minQty.toFixed()} ${market.baseAsset}`);
      if (dgt(q, market.maxQty)) add(fields, 'quantity', `quantity ${q.toFixed()} is above the maximum ${market.maxQty.toFixed()} ${market.baseAsset}`);
    }
    for (const [field, v] of [
      ['price', needsPrice ? req.price : undefined],
      ['stop_Price', isStop ? req.stopPrice : undefined],
    ] as const) {
      if (!v) continue;
      if (v.lte(0)) add(fields, field, `${field} must be positive, got ${v.toFixed()}`);
      else if (v.decimalPlaces() > market.tickSize) add(fields, field, `${field} ${v.toFixed()} has more than ${market.tickSize} decimal places`);
    }
    const unit = needsPrice ? req.price : isStop ? req.stopPrice : referencePrice;
    if (unit && unit.gt(0) && q.gt(0)) {
      const total = unit.mul(q);
      if (dlt(total, market.minNotional)) {
        add(
          fields,
          'quantity',
          `order total ${total.toFixed()} ${market.quoteAsset} is below the minimum ${market.minNotional.toFixed()} ${market.quoteAsset}`,
        );
      }
    }
    if (req.type === 'MARKET' && !referencePrice) add(fields, 'symbol', `market ${market.symbol} has no price yet: a MARKET order cannot be valued`);
  }
  if (Object.keys(fields).length > 0) throw new SimError(422, 'The given data was invalid.', fields);
}
