/**
 * Parsers for spot orders, fills, instant orders and quotes, and account trades (spec 2.12, 2.13).
 * Strict where a guess would be dangerous: an order without a price, quantity, executed quantity,
 * status or `active` flag is an error, never a zero.
 */
import type { AccountTrade, Fill, InstantOrder, InstantQuote, OrderType, Paged, Side, SpotOrder } from '../../core/types/index.js';
import type { PageInfo } from '../../core/types/index.js';
import { arr, bool, compact, dec, decOpt, isObject, num, numOpt, obj, parseFail, str, strOpt, timeMs, timeMsOpt } from './fields.js';
import { parseSide } from './market.js';

const ORDER_TYPES = ['LIMIT', 'MARKET', 'STOP_LIMIT', 'STOP_MARKET', 'OTC'] as const;

function parseOrderType(value: unknown, field: string): OrderType | 'OTC' {
  const s = typeof value === 'string' ? value.toUpperCase() : value;
  const found = ORDER_TYPES.find((t) => t === s);
  if (!found) throw parseFail(field, ORDER_TYPES.join(', '), value);
  return found;
}

/**
 * The asset a fee was taken in. A string as sent; an object (the instant-order documentation shows
 * `feeAsset: {}`) is read through its `asset`/`key`/`symbol`/`name` field. Absent, null or an object
 * naming none: undefined, never guessed from the symbol (the order's market, which the execution
 * engine knows from the market catalog, says which asset it received).
 */
function feeAsset(value: unknown, field: string): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (value === undefined || value === null) return undefined;
  if (isObject(value)) {
    for (const k of ['asset', 'key', 'symbol', 'name', 'currency']) {
      const v = value[k];
      if (typeof v === 'string' && v !== '') return v;
    }
    return undefined;
  }
  throw parseFail(field, 'an asset code', value);
}

function parseFill(json: unknown, field: string, fallbackSymbol?: string): Fill {
  const o = obj(json, field);
  const symbol = o.symbol == null && fallbackSymbol ? fallbackSymbol : str(o.symbol, `${field}.symbol`);
  const isBuyer = bool(o.isBuyer, `${field}.isBuyer`);
  const price = dec(o.price, `${field}.price`);
  const quantity = dec(o.quantity, `${field}.quantity`);
  return compact<Fill>({
    symbol,
    price,
    quantity,
    sum: o.sum == null ? price.mul(quantity) : dec(o.sum, `${field}.sum`),
    fee: dec(o.fee, `${field}.fee`),
    feeAsset: feeAsset(o.feeAsset, `${field}.feeAsset`),
    feeCoefficient: decOpt(o.feeCoefficient, `${field}.feeCoefficient`),
    makerFeeCoefficient: decOpt(o.makerFeeCoefficient, `${field}.makerFeeCoefficient`),
    takerFeeCoefficient: decOpt(o.takerFeeCoefficient, `${field}.takerFeeCoefficient`),
    isBuyer,
    timestamp: timeMs(o.timestamp, `${field}.timestamp`),
  });
}

/** One spot order (`result` of create, lookup and cancel; items of the open-order list). */
export function parseSpotOrder(json: unknown, field = 'order'): SpotOrder {
  const o = obj(json, field);
  const symbol = str(o.symbol, `${field}.symbol`);
  const fills = o.fills == null ? [] : arr(o.fills, `${field}.fills`).map((f, i) => parseFill(f, `${field}.fills[${i}]`, symbol));
  const transactTime = numOpt(o.transactTime, `${field}.transactTime`);
  return compact<SpotOrder>({
    symbol,
    type: parseOrderType(o.type, `${field}.type`),
    side: parseSide(o.side, `${field}.side`),
    clientOrderId: str(o.clientOrderId ?? o.client_id, `${field}.clientOrderId`),
    price: dec(o.price, `${field}.price`),
    origQty: dec(o.origQty, `${field}.origQty`),
    origSum: decOpt(o.origSum, `${field}.origSum`),
    executedQty: dec(o.executedQty, `${field}.executedQty`),
    executedSum: decOpt(o.executedSum, `${field}.executedSum`),
    executedPrice: decOpt(o.executedPrice, `${field}.executedPrice`),
    executedPercent: numOpt(o.executedPercent, `${field}.executedPercent`),
    fee: decOpt(o.fee, `${field}.fee`),
    stopPrice: decOpt(o.stopPrice, `${field}.stopPrice`),
    stopPriceCondition: strOpt(o.stopPriceCondition, `${field}.stopPriceCondition`),
    sum: decOpt(o.sum, `${field}.sum`),
    status: str(o.status, `${field}.status`),
    active: bool(o.active, `${field}.active`),
    fills,
    transactTime: transactTime === undefined ? undefined : Math.trunc(transactTime),
    createdAt: strOpt(o.created_at ?? o.createdAt, `${field}.created_at`),
    updatedAt: strOpt(o.updated_at ?? o.updatedAt, `${field}.updated_at`),
  });
}

/**
 * `result` of /v1/account/openOrders: `{orders: [...]}`; also a bare array, or an object of arrays
 * keyed by market (as the current documentation shows), flattened in key order.
 */
export function parseOrderList(json: unknown, pageInfo?: PageInfo): Paged<SpotOrder> {
  let list: unknown[];
  let base = 'result';
  if (Array.isArray(json)) list = json;
  else {
    const o = obj(json, 'result');
    if (o.orders !== undefined) {
      list = arr(o.orders, 'result.orders');
      base = 'result.orders';
    } else {
      list = [];
      for (const [k, v] of Object.entries(o)) list.push(...arr(v, `result.${k}`));
    }
  }
  const items = list.map((item, i) => parseSpotOrder(item, `${base}[${i}]`));
  return pageInfo ? { items, pageInfo } : { items };
}

/** `result` of /v1/account/trades: `{AccountLatestTrades: [...]}` (a bare array is accepted). */
export function parseAccountTrades(json: unknown, pageInfo?: PageInfo): Paged<AccountTrade> {
  let list: unknown[];
  if (Array.isArray(json)) list = json;
  else {
    const o = obj(json, 'result');
    list = arr(o.AccountLatestTrades ?? o.accountLatestTrades ?? o.trades, 'result.AccountLatestTrades');
  }
  const items = list.map((t, i) => parseFill(t, `result.AccountLatestTrades[${i}]`));
  return pageInfo ? { items, pageInfo } : { items };
}

/** Instant (OTC) order, bare as documented or the `result` of an envelope as the crawl shows. */
export function parseInstantOrder(json: unknown): InstantOrder {
  const order = parseSpotOrder(json, 'instantOrder');
  const o = obj(json, 'instantOrder');
  return compact<InstantOrder>({
    ...order,
    sourceMarket: strOpt(o.sourceMarket, 'instantOrder.sourceMarket'),
    destinationMarket: strOpt(o.destinationMarket, 'instantOrder.destinationMarket'),
  });
}

/**
 * `result` of /v1/account/otc/price: `{price, price_expires_at, ttl?, current_time?}`. The symbol and
 * side are the request's; `nowMs` stands in for `current_time` when the exchange leaves it out, and
 * the ttl is then derived from the expiry.
 */
export function parseInstantQuote(json: unknown, request: { symbol: string; side: Side }, nowMs: number): InstantQuote {
  const o = obj(json, 'result');
  const expiresAt = timeMs(o.price_expires_at, 'result.price_expires_at');
  const currentTime = timeMsOpt(o.current_time, 'result.current_time') ?? nowMs;
  const ttl = o.ttl == null || o.ttl === '' ? Math.max(0, Math.round((expiresAt - currentTime) / 1000)) : num(o.ttl, 'result.ttl');
  return {
    symbol: request.symbol,
    side: request.side,
    price: dec(o.price, 'result.price'),
    expiresAt,
    ttlSeconds: ttl,
    currentTime,
  };
}
