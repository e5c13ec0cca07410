/**
 * The exchange's envelope: `{success, message, result, result_info?, ...}`. Error bodies are
 * `{success: false, message, code, result: {field: [messages]}}`. These helpers only read; turning a
 * refusal into a typed error is the HTTP layer's job (it knows the status and the request).
 */
import type { FieldErrors } from '../../core/errors.js';
import type { PageInfo } from '../../core/types/index.js';
import { int, isObject, obj, type Json } from './fields.js';

export interface Envelope {
  success: boolean;
  message?: string;
  code?: number | string;
  result: unknown;
  resultInfo?: PageInfo;
  /** Other top-level keys (e.g. `provider` of the wallet call). */
  extras: Json;
}

/** True when the body carries a `success` flag (boolean, or the strings "true"/"false"). */
export function hasEnvelope(body: unknown): body is Json {
  if (!isObject(body)) return false;
  const s = body.success;
  return typeof s === 'boolean' || s === 'true' || s === 'false';
}

export function readEnvelope(body: unknown): Envelope {
  const o = obj(body, 'response');
  const success = o.success === true || o.success === 'true';
  const extras: Json = {};
  for (const [k, v] of Object.entries(o)) {
    if (!['success', 'message', 'code', 'result', 'result_info'].includes(k)) extras[k] = v;
  }
  const env: Envelope = { success, result: o.result, extras };
  if (typeof o.message === 'string') env.message = o.message;
  if (typeof o.code === 'number' || typeof o.code === 'string') env.code = o.code;
  const info = parsePageInfo(o.result_info, 'result_info');
  if (info) env.resultInfo = info;
  return env;
}

function parsePageInfo(value: unknown, field: string): PageInfo | undefined {
  if (value === undefined || value === null) return undefined;
  const o = obj(value, field);
  return {
    page: int(o.page, `${field}.page`),
    perPage: int(o.per_page, `${field}.per_page`),
    count: int(o.count, `${field}.count`),
    totalCount: int(o.total_count, `${field}.total_count`),
  };
}

/**
 * Per-field messages of an error body: `result` as `{field: [msg, ...]}` (a single string per field
 * is accepted too). Anything else gives an empty map.
 */
export function readFieldErrors(result: unknown): FieldErrors {
  const fields: FieldErrors = {};
  if (!isObject(result)) return fields;
  for (const [k, v] of Object.entries(result)) {
    if (Array.isArray(v)) {
      const msgs = v.filter((m): m is string => typeof m === 'string');
      if (msgs.length) fields[k] = msgs;
    } else if (typeof v === 'string') {
      fields[k] = [v];
    }
  }
  return fields;
}

/**
 * A payload documented both bare and wrapped (margin responses, the hector market list with
 * `success` inside `result`): unwrap `{result: X}` when X is an object and the wrapper has no other
 * payload keys than envelope ones.
 */
export function unwrapResult(value: unknown): unknown {
  let v = value;
  for (let i = 0; i < 2 && isObject(v) && 'result' in v; i++) {
    const extra = Object.keys(v).filter((k) => !['result', 'success', 'message', 'code', 'result_info'].includes(k));
    if (extra.length) break;
    v = v.result;
  }
  return v;
}
