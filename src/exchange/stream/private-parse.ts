/**
 * Parsing of the private stream (account activity, channel `<stream_key>` and
 * `<stream_key>@tradeDetails`). The exchange frames each message as `[channel, {event, timestamp,
 * data}]` (plain WebSocket); over socket.io `Broadcaster` carries `(channel, {event, timestamp,
 * data})`. A bare `data` object is accepted too: its kind then comes from the channel
 * (`@tradeDetails`) or from its shape (an order has `clientOrderId` and `origQty`, else a map of
 * balances).
 *
 * - orderSaved: `{symbol, side, clientOrderId, price, origQty, executedQty, status, active}`;
 * - tradeDetails: `{clientOrderID, feeAmount, feeCurrency, isMaker, price, quantity, side, sum, symbol}`;
 * - balanceUpdated: `{<ASSET>: {asset, faName, value, locked}}`.
 * Both `clientOrderId` and `clientOrderID` are accepted. Amounts are numbers or numeric strings
 * (exponents included) and go through `toDecimal`, never a float. Every failure is a
 * StreamPayloadError naming the field and the value; it never contains the channel (the stream key).
 */
import { DecimalParseError, type Decimal, toDecimal } from '../../core/decimal.js';
import { ResponseParseError } from '../../core/errors.js';
import type { Balance } from '../../core/types/account.js';
import type { Side } from '../../core/types/market.js';
import { StreamPayloadError, parseTimestamp } from './parse.js';

export type PrivateEventKind = 'orderSaved' | 'tradeDetails' | 'balanceUpdated';
const PRIVATE_EVENT_KINDS: readonly PrivateEventKind[] = ['orderSaved', 'tradeDetails', 'balanceUpdated'];

/** An order's state as the private stream reports it (no fee, no fills: see `PrivateTrade`). */
export interface PrivateOrderUpdate {
  clientOrderId: string;
  symbol: string;
  side: Side;
  price: Decimal;
  origQty: Decimal;
  executedQty: Decimal;
  status: string;
  /** The reliable open/closed flag. */
  active: boolean;
  /** The message's time (ms), or the receive time when absent. */
  timestamp: number;
  type?: string;
  executedSum?: Decimal;
}

/** One fill of one of the account's orders, with its fee in the asset it was taken in. */
export interface PrivateTrade {
  clientOrderId: string;
  symbol: string;
  side: Side;
  price: Decimal;
  quantity: Decimal;
  /** Quote amount of the fill. */
  sum: Decimal;
  fee: Decimal;
  feeAsset: string;
  isMaker: boolean;
  timestamp: number;
}

export type PrivateMessage =
  | { kind: 'orderSaved'; order: PrivateOrderUpdate }
  | { kind: 'tradeDetails'; trade: PrivateTrade }
  | { kind: 'balanceUpdated'; balances: Balance[]; timestamp: number };

/** Thrown with the kind the message claimed (or seemed) to be, for per-kind malformed counting. */
export class PrivatePayloadError extends ResponseParseError {
  readonly field: string;
  readonly value: unknown;
  constructor(
    readonly kind: PrivateEventKind | 'privateEnvelope',
    cause: StreamPayloadError,
  ) {
    super(cause.message);
    this.field = cause.field;
    this.value = cause.value;
  }
}

type Rec = Record<string, unknown>;

function record(value: unknown, field: string): Rec {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new StreamPayloadError(field, value, 'expected an object');
  return value as Rec;
}

function dec(value: unknown, field: string): Decimal {
  try {
    return toDecimal(value, field);
  } catch (err) {
    if (err instanceof DecimalParseError) throw new StreamPayloadError(field, value, 'expected a number or numeric string');
    throw err;
  }
}

function nonNegative(value: unknown, field: string): Decimal {
  const d = dec(value, field);
  if (d.isNegative()) throw new StreamPayloadError(field, value, 'expected an amount >= 0');
  return d;
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new StreamPayloadError(field, value, 'expected a non-empty string');
  return value;
}

function side(value: unknown, field: string): Side {
  const s = typeof value === 'string' ? value.toUpperCase() : value;
  if (s === 'BUY' || s === 'SELL') return s;
  throw new StreamPayloadError(field, value, 'expected BUY or SELL');
}

function bool(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 'true' || value === '1') return true;
  if (value === 0 || value === 'false' || value === '0') return false;
  throw new StreamPayloadError(field, value, 'expected a boolean');
}

function clientId(d: Rec, field: string): string {
  return text(d.clientOrderId ?? d.clientOrderID ?? d.client_id, `${field}.clientOrderId`);
}

function parseOrderSaved(data: unknown, timestamp: number): PrivateOrderUpdate {
  const d = record(data, 'orderSaved');
  const out: PrivateOrderUpdate = {
    clientOrderId: clientId(d, 'orderSaved'),
    symbol: text(d.symbol, 'orderSaved.symbol').toUpperCase(),
    side: side(d.side, 'orderSaved.side'),
    price: nonNegative(d.price, 'orderSaved.price'),
    origQty: nonNegative(d.origQty, 'orderSaved.origQty'),
    executedQty: nonNegative(d.executedQty, 'orderSaved.executedQty'),
    status: text(d.status, 'orderSaved.status').toUpperCase(),
    active: bool(d.active, 'orderSaved.active'),
    timestamp,
  };
  if (typeof d.type === 'string' && d.type.length > 0) out.type = d.type;
  if (d.executedSum !== undefined && d.executedSum !== null && d.executedSum !== '') out.executedSum = nonNegative(d.executedSum, 'orderSaved.executedSum');
  if (out.executedQty.gt(out.origQty) && out.origQty.gt(0)) {
    throw new StreamPayloadError('orderSaved.executedQty', d.executedQty, `expected at most origQty ${out.origQty.toFixed()}`);
  }
  return out;
}

function parseTradeDetails(data: unknown, timestamp: number): PrivateTrade {
  const d = record(data, 'tradeDetails');
  const price = nonNegative(d.price, 'tradeDetails.price');
  const quantity = nonNegative(d.quantity, 'tradeDetails.quantity');
  if (price.isZero()) throw new StreamPayloadError('tradeDetails.price', d.price, 'expected a positive price');
  if (quantity.isZero()) throw new StreamPayloadError('tradeDetails.quantity', d.quantity, 'expected a positive quantity');
  const sum = d.sum === undefined || d.sum === null || d.sum === '' ? price.mul(quantity) : nonNegative(d.sum, 'tradeDetails.sum');
  return {
    clientOrderId: clientId(d, 'tradeDetails'),
    symbol: text(d.symbol, 'tradeDetails.symbol').toUpperCase(),
    side: side(d.side, 'tradeDetails.side'),
    price,
    quantity,
    sum,
    fee: nonNegative(d.feeAmount ?? d.fee, 'tradeDetails.feeAmount'),
    feeAsset: text(d.feeCurrency ?? d.feeAsset, 'tradeDetails.feeCurrency').toUpperCase(),
    isMaker: d.isMaker === undefined ? false : bool(d.isMaker, 'tradeDetails.isMaker'),
    timestamp,
  };
}

function parseBalanceUpdated(data: unknown): Balance[] {
  const d = record(data, 'balanceUpdated');
  const out: Balance[] = [];
  for (const [key, entry] of Object.entries(d)) {
    const e = record(entry, `balanceUpdated.${key}`);
    const asset = (typeof e.asset === 'string' && e.asset.length > 0 ? e.asset : key).toUpperCase();
    const value = nonNegative(e.value, `balanceUpdated.${key}.value`);
    const locked = nonNegative(e.locked ?? 0, `balanceUpdated.${key}.locked`);
    const b: Balance = { asset, fiat: asset === 'TMN', value, locked };
    if (typeof e.faName === 'string') b.faName = e.faName;
    out.push(b);
  }
  return out;
}

function kindOf(event: unknown, tradeChannel: boolean, data: Rec): PrivateEventKind | undefined {
  if (event === 'orderSaved' || event === 'tradeDetails' || event === 'balanceUpdated') return event;
  if (event !== undefined) return undefined;
  if (tradeChannel) return 'tradeDetails';
  if ('origQty' in data || 'clientOrderId' in data || 'clientOrderID' in data) return 'orderSaved';
  return 'balanceUpdated';
}

/**
 * One private message. `tradeChannel`: it came on `<stream_key>@tradeDetails`. `now`: the receive
 * time, used when the message carries no timestamp. Throws PrivatePayloadError (its `kind` says
 * which counter it belongs to).
 */
export function parsePrivateMessage(payload: unknown, tradeChannel: boolean, now: number): PrivateMessage {
  let kind: PrivateEventKind | 'privateEnvelope' = 'privateEnvelope';
  try {
    // `[channel, {event, …}]` as the plain WebSocket frames it.
    const body = Array.isArray(payload) && payload.length === 2 && typeof payload[0] === 'string' ? payload[1] : payload;
    const env = record(body, 'private');
    const enveloped = typeof env.event === 'string' && 'data' in env;
    const data = enveloped ? env.data : env;
    const dataRec = record(data, enveloped ? `${String(env.event)}.data` : 'private');
    const k = kindOf(enveloped ? env.event : undefined, tradeChannel, dataRec);
    if (k === undefined) throw new StreamPayloadError('private.event', env.event, `expected one of ${PRIVATE_EVENT_KINDS.join(', ')}`);
    kind = k;
    const ts = enveloped && env.timestamp !== undefined && env.timestamp !== null ? parseTimestamp(env.timestamp, `${k}.timestamp`) : now;
    switch (k) {
      case 'orderSaved':
        return { kind: k, order: parseOrderSaved(dataRec, ts) };
      case 'tradeDetails':
        return { kind: k, trade: parseTradeDetails(dataRec, ts) };
      case 'balanceUpdated':
        return { kind: k, balances: parseBalanceUpdated(dataRec), timestamp: ts };
    }
  } catch (err) {
    if (err instanceof StreamPayloadError) throw new PrivatePayloadError(kind, err);
    throw err;
  }
}
