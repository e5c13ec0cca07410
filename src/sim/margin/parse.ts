/** Reading the parameters of the margin, instant, trading-credit and withdrawal routes (422 names the field). */
import type { Decimal } from '../../core/decimal.js';
import { toDecimal } from '../../core/decimal.js';
import { SimError, simErrors } from '../errors.js';
import type { WireRequest } from '../wire/route.js';

/** A parameter from the query or the body, as a string; undefined when absent or empty. */
export function textParam(req: WireRequest, name: string): string | undefined {
  const v = req.query[name] ?? req.body[name];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw simErrors.invalid({ [name]: [`${name} must be a string or a number`] });
}

export function requireText(req: WireRequest, name: string): string {
  const v = textParam(req, name);
  if (v === undefined) throw simErrors.invalid({ [name]: [`${name} is required`] });
  return v;
}

export function decimalParam(req: WireRequest, name: string): Decimal | undefined {
  const v = textParam(req, name);
  if (v === undefined) return undefined;
  try {
    return toDecimal(v, name);
  } catch {
    throw simErrors.invalid({ [name]: [`${name} must be a number, got ${JSON.stringify(v.slice(0, 40))}`] });
  }
}

export function requireDecimal(req: WireRequest, name: string): Decimal {
  const v = decimalParam(req, name);
  if (v === undefined) throw simErrors.invalid({ [name]: [`${name} is required`] });
  return v;
}

export function intParam(req: WireRequest, name: string, source: 'path' | 'body' = 'body'): number {
  const raw = source === 'path' ? req.params[name] : textParam(req, name);
  if (raw === undefined) throw simErrors.invalid({ [name]: [`${name} is required`] });
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) {
    if (source === 'path') throw simErrors.notFound(`${name} ${JSON.stringify(raw)} not found`);
    throw simErrors.invalid({ [name]: [`${name} must be a positive integer, got ${JSON.stringify(raw)}`] });
  }
  return n;
}

export function boolParam(req: WireRequest, name: string): boolean | undefined {
  const v = textParam(req, name)?.toLowerCase();
  if (v === undefined) return undefined;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw simErrors.invalid({ [name]: [`${name} must be true or false, got ${JSON.stringify(v)}`] });
}

/** The authenticated account; 401 when the server did not set one. */
export function accountOf(req: WireRequest): string {
  if (!req.accountId) throw new SimError(401, 'API key is missing: send it in the x-api-key header');
  return req.accountId;
}

export type SubAccountResolver = (accountId: string, clientId: string) => string;

/** The ledger account to trade on: the trading-credit sub-account when the header names one. */
export function tradingAccount(req: WireRequest, resolve?: SubAccountResolver): string {
  const account = accountOf(req);
  const sub = req.subAccountId ?? req.headers['sub-account-client-id'];
  if (!sub) return account;
  if (!resolve) throw simErrors.invalid({ 'sub-account-client-id': ['trading-credit accounts are not enabled on this simulator'] });
  return resolve(account, sub);
}
