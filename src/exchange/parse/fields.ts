/**
 * Field readers shared by every response parser. Each one names the field path it reads, so a
 * ResponseParseError says exactly what was missing or wrong (`order.price: expected a number or
 * numeric string, got nothing`). Amounts go through `toDecimal` (never a float); counts and flags
 * accept the number-or-numeric-string variants the exchange sends.
 */
import { DecimalParseError, toDecimal, type Decimal } from '../../core/decimal.js';
import { ResponseParseError } from '../../core/errors.js';

export type Json = Record<string, unknown>;

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing (field missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value);
  return String(value);
}

export function parseFail(field: string, expected: string, value: unknown): ResponseParseError {
  return new ResponseParseError(`${field}: expected ${expected}, got ${describeValue(value)}`);
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function obj(value: unknown, field: string): Json {
  if (!isObject(value)) throw parseFail(field, 'an object', value);
  return value;
}

export function arr(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw parseFail(field, 'an array', value);
  return value;
}

/** An array, or an object keyed "0", "1", … (socket.io depth payloads), in key order. */
export function listOrIndexed(value: unknown, field: string): unknown[] {
  if (Array.isArray(value)) return value;
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (keys.every((k) => /^\d+$/.test(k))) {
      return keys.sort((a, b) => Number(a) - Number(b)).map((k) => value[k]);
    }
  }
  throw parseFail(field, 'an array or an object keyed "0", "1", …', value);
}

export function str(value: unknown, field: string): string {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw parseFail(field, 'a string', value);
}

export function strOpt(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return str(value, field);
}

/** A string field that the exchange may send as null (kept as null). */
export function strOrNull(value: unknown, field: string): string | null | undefined {
  if (value === null) return null;
  return strOpt(value, field);
}

export function dec(value: unknown, field: string): Decimal {
  try {
    return toDecimal(value, field);
  } catch (err) {
    if (err instanceof DecimalParseError) throw parseFail(field, 'a number or numeric string', value);
    throw err;
  }
}

export function decOpt(value: unknown, field: string): Decimal | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return dec(value, field);
}

/**
 * An optional amount where the exchange writes `"-"` for "no value" (seen on `leverage_step` and
 * `max_leverage` of the market list): `"-"` is absent, never 0; anything else must be a number.
 */
export function decOrDash(value: unknown, field: string): Decimal | undefined {
  if (typeof value === 'string' && value.trim() === '-') return undefined;
  return decOpt(value, field);
}

export function decOrNull(value: unknown, field: string): Decimal | null | undefined {
  if (value === null) return null;
  return decOpt(value, field);
}

/** A plain number (analytics fields): a JSON number or a numeric string. */
export function num(value: unknown, field: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    if (Number.isFinite(n)) return n;
  }
  throw parseFail(field, 'a number', value);
}

export function numOpt(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return num(value, field);
}

export function numOrNull(value: unknown, field: string): number | null | undefined {
  if (value === null) return null;
  return numOpt(value, field);
}

export function int(value: unknown, field: string): number {
  const n = num(value, field);
  if (!Number.isInteger(n)) throw parseFail(field, 'an integer', value);
  return n;
}

export function intOpt(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return int(value, field);
}

/** true/false, 1/0, "true"/"false", "1"/"0". */
export function bool(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === '1' || value === 'true') return true;
  if (value === 0 || value === '0' || value === 'false') return false;
  throw parseFail(field, 'a boolean', value);
}

export function boolOpt(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return bool(value, field);
}

/** An optional boolean flag that defaults to false when absent. */
export function flag(value: unknown, field: string): boolean {
  return boolOpt(value, field) ?? false;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * ISO-8601 (with or without fractional seconds, microseconds included) or Unix time to epoch
 * milliseconds. Numbers below 1e12 are read as seconds, larger ones as milliseconds. A datetime
 * without a zone is read as UTC.
 */
export function timeMs(value: unknown, field: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value < 1e12 ? Math.round(value * 1000) : value;
  if (typeof value === 'string') {
    const s = value.trim();
    if (/^\d+(\.\d+)?$/.test(s)) return timeMs(Number(s), field);
    const m = ISO.exec(s);
    if (m) {
      const frac = (m[7] ?? '').padEnd(3, '0').slice(0, 3);
      let zone = m[8] ?? 'Z';
      if (zone !== 'Z' && !zone.includes(':')) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
      const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${frac}${zone}`);
      if (Number.isFinite(ms)) return ms;
    }
  }
  throw parseFail(field, 'an ISO-8601 datetime or Unix time', value);
}

export function timeMsOpt(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return timeMs(value, field);
}

/** Keep only the defined properties (so optional fields that were absent stay absent). */
export function compact<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as T;
}
