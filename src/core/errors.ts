/**
 * Errors split by whether a retry can help (ccxt's split).
 * - Final (`retryable: false`): the request itself is wrong or not allowed; sending it again gives
 *   the same answer. Bad request, auth, permission, insufficient balance, not found, duplicate
 *   client order id, validation (with per-field messages), parameter errors caught before sending.
 * - Retryable (`retryable: true`): the exchange or the network could not answer now. Rate limited,
 *   timeout, network, exchange unavailable.
 * Messages never contain the API key: they are built from status, path and the exchange's body only.
 */

export type FieldErrors = Record<string, string[]>;

export interface ErrorContext {
  /** HTTP method and path (no query values that could carry secrets). */
  method?: string;
  path?: string;
  status?: number;
  /** The exchange's `code` field, when the body had one. */
  code?: number | string;
  /** The exchange's human message (Persian or English, no contract). */
  exchangeMessage?: string;
}

export abstract class MizanError extends Error {
  abstract readonly retryable: boolean;
  readonly context: ErrorContext;
  constructor(message: string, context: ErrorContext = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.context = context;
  }
  get status(): number | undefined {
    return this.context.status;
  }
}

// ---------------------------------------------------------------------------------------- final

export abstract class FinalError extends MizanError {
  readonly retryable = false;
}

/** A parameter rejected on our side before anything was sent. Names the parameter and the value. */
export class ParameterError extends FinalError {
  constructor(
    readonly parameter: string,
    readonly value: unknown,
    readonly expected: string,
  ) {
    super(`invalid ${parameter}: ${safeValue(value)} (${expected})`);
  }
}

/** A response that could not be understood (malformed JSON, HTML page, missing required field). */
export class ResponseParseError extends FinalError {}

/** 400 */
export class BadRequestError extends FinalError {}
/** 401: missing, invalid or expired API key. */
export class AuthenticationError extends FinalError {}
/** 403: the key lacks the permission or the caller's IP is not permitted. */
export class PermissionDeniedError extends FinalError {}
/** 402 */
export class InsufficientBalanceError extends FinalError {}
/** 404 */
export class NotFoundError extends FinalError {}
/** 405 */
export class MethodNotAllowedError extends FinalError {}
/** 409: the client order id was used before. The order exists. */
export class DuplicateOrderError extends FinalError {}
/** 422: invalid values, with the exchange's per-field messages. */
export class ValidationError extends FinalError {
  constructor(
    message: string,
    readonly fields: FieldErrors,
    context: ErrorContext = {},
  ) {
    super(message, context);
  }
}
/** `success: false` with an unexpected status, or any other refusal. */
export class ExchangeRejectedError extends FinalError {}
/** A call the client refuses to make (e.g. withdrawals not enabled for this client). */
export class ForbiddenOperationError extends FinalError {}

// ------------------------------------------------------------------------------------ retryable

export abstract class RetryableError extends MizanError {
  readonly retryable = true;
}

/** 429. `retryAfterMs` from Retry-After when the exchange sent it. */
export class RateLimitError extends RetryableError {
  constructor(
    message: string,
    context: ErrorContext = {},
    readonly retryAfterMs?: number,
  ) {
    super(message, context);
  }
}
/** No answer in time. For an order create: the order may or may not exist; look it up. */
export class RequestTimeoutError extends RetryableError {}
/** Connection refused, reset, DNS failure. */
export class NetworkError extends RetryableError {}
/** 500, 502, 503, 504. */
export class ExchangeUnavailableError extends RetryableError {}

export function isRetryable(err: unknown): boolean {
  return err instanceof MizanError && err.retryable;
}

function safeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? value.slice(0, 60) + '…' : value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The typed error for an exchange status (the HTTP status, or the `code` of an HTTP 200 answer with
 * `success: false`). One table for the REST client and the in-process simulator venue, so a refusal
 * is the same error whichever venue gave it.
 */
export function errorForStatus(status: number, message: string, context: ErrorContext = {}, fields: FieldErrors = {}, retryAfterMs?: number): MizanError {
  switch (status) {
    case 400:
      return new BadRequestError(message, context);
    case 401:
      return new AuthenticationError(message, context);
    case 402:
      return new InsufficientBalanceError(message, context);
    case 403:
      return new PermissionDeniedError(message, context);
    case 404:
      return new NotFoundError(message, context);
    case 405:
      return new MethodNotAllowedError(message, context);
    case 408:
      return new RequestTimeoutError(message, context);
    case 409:
      return new DuplicateOrderError(message, context);
    case 422:
      return new ValidationError(message, fields, context);
    case 429:
      return new RateLimitError(message, context, retryAfterMs);
    default:
      return status >= 500 ? new ExchangeUnavailableError(message, context) : new ExchangeRejectedError(message, context);
  }
}
