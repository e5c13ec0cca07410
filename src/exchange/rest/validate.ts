/**
 * Parameter checks run before anything is sent. Each throws a ParameterError naming the parameter,
 * the bad value and what is expected.
 */
import { toDecimal, type Decimal } from '../../core/decimal.js';
import { ParameterError } from '../../core/errors.js';
import { ORDER_TYPES, RESOLUTIONS, type OrderType, type PositionSide, type Resolution, type Side } from '../../core/types/index.js';

const SYMBOL = /^[A-Z0-9]{2,20}$/;
const CLIENT_ID = /^[A-Za-z0-9_]+$/;
/** Exchange-made ids (`LIMIT-670f7c34-...`, `OTC-...`) have hyphens too; lookups and cancels accept them. */
const ORDER_ID = /^[A-Za-z0-9_-]+$/;
const HEADER_ID = /^[A-Za-z0-9_-]+$/;
const COIN = /^[A-Z0-9]{1,20}$/;
const NETWORK = /^[A-Za-z0-9_.-]{1,40}$/;

export function symbol(value: unknown, name = 'symbol'): string {
  if (typeof value !== 'string' || !SYMBOL.test(value)) {
    throw new ParameterError(name, value, 'upper-case base then quote asset, letters and digits only, e.g. "BTCTMN" or "BTCUSDT"');
  }
  return value;
}

export function side(value: unknown, name = 'side'): Side {
  if (value !== 'BUY' && value !== 'SELL') throw new ParameterError(name, value, 'one of "BUY", "SELL"');
  return value;
}

export function orderType(value: unknown, name = 'type'): OrderType {
  const t = ORDER_TYPES.find((x) => x === value);
  if (!t) throw new ParameterError(name, value, `one of ${ORDER_TYPES.map((x) => `"${x}"`).join(', ')}`);
  return t;
}

export function positionSide(value: unknown, name = 'side'): PositionSide {
  if (value !== 'long' && value !== 'short') throw new ParameterError(name, value, 'one of "long", "short"');
  return value;
}

export function resolution(value: unknown, name = 'resolution'): Resolution {
  const r = RESOLUTIONS.find((x) => x === value);
  if (!r) throw new ParameterError(name, value, `one of ${RESOLUTIONS.map((x) => `"${x}"`).join(', ')}`);
  return r;
}

/** A Unix time in seconds (non-negative integer). */
function unixSeconds(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new ParameterError(name, value, 'Unix time in whole seconds');
  }
  if (value > 1e11) throw new ParameterError(name, value, 'Unix time in seconds, not milliseconds');
  return value;
}

export function timeRange(from: unknown, to: unknown): { from: number; to: number } {
  const f = unixSeconds(from, 'from');
  const t = unixSeconds(to, 'to');
  if (f >= t) throw new ParameterError('from', from, `earlier than to (${t})`);
  return { from: f, to: t };
}

/** A finite amount greater than zero, as a Decimal (accepts Decimal, numeric string or number). */
export function positive(value: unknown, name: string): Decimal {
  let v: Decimal;
  try {
    v = toDecimal(value, name);
  } catch {
    throw new ParameterError(name, value, 'a positive number');
  }
  if (!v.isFinite() || v.lte(0)) throw new ParameterError(name, value instanceof Object ? v.toString() : value, 'a positive number');
  return v;
}

export function positiveOpt(value: unknown, name: string): Decimal | undefined {
  return value === undefined || value === null ? undefined : positive(value, name);
}

export function positiveInt(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw new ParameterError(name, value, 'a positive integer');
  return value;
}

export function positiveIntOpt(value: unknown, name: string): number | undefined {
  return value === undefined ? undefined : positiveInt(value, name);
}

/** A client id we choose: letters, digits and underscore. */
export function clientId(value: unknown, name = 'clientId'): string {
  if (typeof value !== 'string' || !CLIENT_ID.test(value)) throw new ParameterError(name, value, 'letters, digits and underscore only, not empty');
  return value;
}

/** An order id to look up or cancel: ours, or one the exchange made (hyphens allowed). */
export function orderId(value: unknown, name = 'clientOrderId'): string {
  if (typeof value !== 'string' || !ORDER_ID.test(value)) throw new ParameterError(name, value, 'letters, digits, underscore and hyphen only, not empty');
  return value;
}

/** A value sent in a header (sub-account id): no spaces or control characters. */
export function headerId(value: unknown, name: string): string {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  if (typeof value !== 'string' || !HEADER_ID.test(value)) throw new ParameterError(name, value, 'letters, digits, underscore and hyphen only, not empty');
  return value;
}

export function coin(value: unknown, name = 'coin'): string {
  if (typeof value !== 'string' || !COIN.test(value)) throw new ParameterError(name, value, 'an upper-case asset code, e.g. "USDT"');
  return value;
}

export function network(value: unknown, name = 'network'): string {
  if (typeof value !== 'string' || !NETWORK.test(value))
    throw new ParameterError(name, value, 'a network name such as "TRC20" (letters, digits, "_", "-", ".")');
  return value;
}

export function booleanOpt(value: unknown, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new ParameterError(name, value, 'true or false');
  return value;
}
