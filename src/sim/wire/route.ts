/**
 * The contract between the wire server and the modules that serve its routes. Each area of the
 * simulator (public market data, account, spot, margin, instant, trading credit, withdrawals)
 * exports a `Route[]`; the server parses the request, authenticates when `auth` is set, applies the
 * order-call rate limit when `orderCall` is set, and turns a returned `WireResponse` or a thrown
 * `SimError` into the exchange's envelope.
 */
import type { SimFieldErrors } from '../errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface WireRequest {
  method: HttpMethod;
  /** Path without the query, e.g. `/v1/account/orders/abc`. */
  path: string;
  /** Path parameters from the route pattern (`/v1/account/orders/:client_id`). */
  params: Record<string, string>;
  query: Record<string, string>;
  /** JSON or form body; `{}` when there was none. */
  body: Record<string, unknown>;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  /** Remote address as the server saw it (127.0.0.1 in tests, overridable with `x-sim-client-ip`). */
  ip: string;
  /** The authenticated account, when the route needs auth (set by the server). */
  accountId?: string;
  /** The trading-credit sub-account from `sub-account-client-id`, when sent and valid. */
  subAccountId?: string;
}

export interface WireResponse {
  status?: number;
  /** Sent as JSON exactly as given (no envelope added): use `ok()` for the usual envelope. */
  body: unknown;
  headers?: Record<string, string>;
}

export type Permission = 'read' | 'trade' | 'withdraw';

export interface Route {
  method: HttpMethod;
  /** Pattern with `:name` segments. */
  path: string;
  /** Needs an API key with this permission (read for account data, trade for orders). */
  auth?: Permission;
  /** Counts against the 20-order-calls-per-10-seconds limit. */
  orderCall?: boolean;
  handler: (req: WireRequest) => WireResponse | Promise<WireResponse>;
}

/** The exchange's success envelope. */
export function ok(result: unknown, status = 200, extra: Record<string, unknown> = {}): WireResponse {
  return { status, body: { success: true, message: 'The operation was successful', result, ...extra } };
}

/** The exchange's error envelope. */
export function fail(status: number, message: string, fields: SimFieldErrors = {}): WireResponse {
  return { status, body: { success: false, code: status, message, result: fields } };
}
