/**
 * From an HTTP status and the exchange's body to the typed errors of src/core/errors.ts, plus the
 * one error this folder adds: OrderOutcomeUnknownError, for a write that may or may not have
 * happened. Every text that came from the wire is passed through `redact` first, so an error page
 * that echoes the request headers cannot put the API key into a message.
 */
import { RetryableError, type ErrorContext, type FieldErrors, type MizanError, errorForStatus } from '../../core/errors.js';
import { readFieldErrors } from '../parse/envelope.js';
import { isObject } from '../parse/fields.js';

export type Redact = (text: string) => string;

/** A redactor that replaces every occurrence of the secret (and its URL-encoded form). */
export function makeRedactor(secret: string | undefined): Redact {
  if (!secret || secret.length < 4) return (t) => t;
  const forms = [...new Set([secret, encodeURIComponent(secret)])];
  // Messages shorten long values with "…": a cut key must not survive as a prefix either.
  const cuts: string[] = [];
  for (let len = secret.length - 1; len >= 8; len--) cuts.push(secret.slice(0, len) + '…');
  return (text) => {
    let out = text;
    for (const f of forms) out = out.split(f).join('[redacted]');
    if (out.includes('…')) for (const c of cuts) out = out.split(c).join('[redacted]…');
    return out;
  };
}

export type WriteOperation = 'createOrder' | 'createInstantOrder' | 'openMarginPosition' | 'requestWithdrawal' | (string & {});

/**
 * A write (order create, instant order, margin position, withdrawal) got no usable answer: timeout,
 * connection lost, 5xx, 429, or a success status with a body that could not be read. The exchange
 * may or may not have acted. Never resend blind: look the order up by `clientId` first (for writes
 * without a client id, check balances or positions). `cause` is the underlying error.
 */
export class OrderOutcomeUnknownError extends RetryableError {
  constructor(
    readonly operation: WriteOperation,
    readonly clientId: string | undefined,
    readonly reason: MizanError,
  ) {
    const id = clientId ? ` (client id ${clientId})` : '';
    super(
      `${operation}${id}: outcome unknown, the exchange may or may not have acted: ${reason.message}. ` +
        (clientId ? `Look the order up by client id ${clientId} before sending it again.` : 'Check the account state before sending it again.'),
      { ...reason.context },
      { cause: reason },
    );
  }
}

/** Visible text of an HTML or plain body, shortened, for a message. */
export function snippet(text: string, max = 160): string {
  const plain = text
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > max ? plain.slice(0, max) + '…' : plain;
}

function fieldSummary(fields: FieldErrors): string {
  return Object.entries(fields)
    .map(([k, msgs]) => `${k}: ${msgs.join(' / ')}`)
    .join('; ');
}

function redactFields(fields: FieldErrors, redact: Redact): FieldErrors {
  const out: FieldErrors = {};
  for (const [k, msgs] of Object.entries(fields)) out[redact(k)] = msgs.map(redact);
  return out;
}

const HINTS: Record<number, string> = {
  400: 'bad request: the exchange rejected the request',
  401: 'authentication failed: check that the API key is set, correct and not expired',
  402: 'insufficient balance for this request',
  403: "permission denied: the API key lacks the permission for this call, or this IP is not in the key's permitted list",
  404: 'not found',
  405: 'method not allowed',
  408: 'the exchange timed out handling the request',
  409: 'duplicate client order id: an order with this id already exists; look it up instead of creating it again',
  422: 'invalid values',
  429: 'rate limited: too many requests',
};

export interface ErrorInput {
  status: number;
  /** Parsed JSON body, when it was JSON. */
  body?: unknown;
  /** Raw text, when it was not JSON. */
  text?: string;
  method: string;
  path: string;
  retryAfterMs?: number;
}

/**
 * What a `detail` member says (the shape some of the exchange's services answer errors with):
 * a string; a list of `{loc: [..., field], msg}` (or `{field, message}`) entries, one per field;
 * or a map of field -> messages.
 */
export function readDetail(detail: unknown): { message: string | undefined; fields: FieldErrors } {
  if (typeof detail === 'string') return { message: detail, fields: {} };
  const fields: FieldErrors = {};
  const loose: string[] = [];
  if (Array.isArray(detail)) {
    for (const item of detail) {
      if (typeof item === 'string') {
        loose.push(item);
        continue;
      }
      if (!isObject(item)) continue;
      const msg = typeof item.msg === 'string' ? item.msg : typeof item.message === 'string' ? item.message : undefined;
      if (msg === undefined) continue;
      const loc = Array.isArray(item.loc)
        ? item.loc.filter((p, i) => (typeof p === 'string' || typeof p === 'number') && !(i === 0 && (p === 'body' || p === 'query' || p === 'path'))).join('.')
        : typeof item.field === 'string'
          ? item.field
          : '';
      if (loc !== '') (fields[loc] ??= []).push(msg);
      else loose.push(msg);
    }
  } else if (isObject(detail)) {
    if (typeof detail.message === 'string') loose.push(detail.message);
    Object.assign(fields, readFieldErrors(detail));
  }
  const named = Object.entries(fields).map(([k, msgs]) => `${k}: ${msgs.join(' / ')}`);
  const message = loose.length > 0 ? loose.join('; ') : named.length > 0 ? named.join('; ') : undefined;
  return { message, fields };
}

/**
 * The typed error for a failed response. Bodies read: the envelope `{success: false, code, message,
 * result: {field: [messages]}}`, `{detail: …}` (string, per-field list or map, see readDetail) and a
 * bare `{message}`. With HTTP 200 and `success: false`, the body's `code` (when it is an HTTP-like
 * status) picks the class; otherwise ExchangeRejectedError.
 */
export function mapHttpError(input: ErrorInput, redact: Redact): MizanError {
  const { method, path } = input;
  const body = isObject(input.body) ? input.body : undefined;
  const detail = body !== undefined && 'detail' in body ? readDetail(body.detail) : undefined;
  const rawMessage =
    typeof body?.message === 'string' && body.message !== ''
      ? body.message
      : detail?.message !== undefined
        ? detail.message
        : input.text !== undefined
          ? snippet(input.text)
          : '';
  const exchangeMessage = redact(rawMessage);
  const code = typeof body?.code === 'number' || typeof body?.code === 'string' ? body.code : undefined;
  const fields = redactFields({ ...detail?.fields, ...readFieldErrors(body?.result) }, redact);
  let status = input.status;
  if (status >= 200 && status < 300) {
    const c = Number(code);
    status = Number.isInteger(c) && c >= 400 && c < 600 ? c : 0;
  }
  const ctx: ErrorContext = { method, path, status: input.status };
  if (code !== undefined) ctx.code = code;
  if (exchangeMessage) ctx.exchangeMessage = exchangeMessage;

  const where = `${method} ${path}`;
  const said = exchangeMessage ? ` (exchange said: ${exchangeMessage})` : '';
  const fieldText = Object.keys(fields).length ? ` [${fieldSummary(fields)}]` : '';
  const base = `${where} -> HTTP ${input.status}${status !== input.status && status ? ` (code ${status})` : ''}`;
  const msg = (hint: string) => `${base}: ${hint}${said}${fieldText}`;

  if (status === 429) {
    const wait = input.retryAfterMs !== undefined ? `; retry after ${input.retryAfterMs} ms` : '';
    return errorForStatus(429, msg(HINTS[429]! + wait), ctx, fields, input.retryAfterMs);
  }
  const hint =
    HINTS[status] ??
    (status >= 500
      ? 'the exchange is unavailable or failed; try again later'
      : input.status >= 200 && input.status < 300
        ? body !== undefined && 'success' in body
          ? 'the exchange answered success: false'
          : 'the exchange answered with an error body'
        : 'the exchange refused the request');
  return errorForStatus(status, msg(hint), ctx, fields);
}

/**
 * Remove the secret from an error in place: message, stack, string context values, 422 field
 * messages, and the cause chain. Returns the same error.
 */
export function scrubError(err: unknown, redact: Redact, depth = 0): unknown {
  if (!(err instanceof Error) || depth > 5) return err;
  const e = err as Error & { context?: Record<string, unknown>; fields?: FieldErrors; cause?: unknown };
  e.message = redact(e.message);
  if (e.stack) e.stack = redact(e.stack);
  if (isObject(e.context)) {
    for (const [k, v] of Object.entries(e.context)) if (typeof v === 'string') e.context[k] = redact(v);
  }
  if (isObject(e.fields)) {
    for (const [k, msgs] of Object.entries(e.fields)) if (Array.isArray(msgs)) e.fields[k] = msgs.map((m) => (typeof m === 'string' ? redact(m) : m));
  }
  if (e.cause !== undefined) scrubError(e.cause, redact, depth + 1);
  return err;
}
