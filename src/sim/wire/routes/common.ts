/** Helpers shared by the simulator's route modules: required parameters and paging. */
import { SimError } from '../../errors.js';
import type { SimulatedExchange } from '../../exchange.js';
import type { MarketSpec } from '../../markets.js';
import type { WireRequest } from '../route.js';

/** A parameter from the query or, for writes, the body. */
export function param(req: WireRequest, name: string): string | undefined {
  const v = req.query[name] ?? req.body[name];
  if (v === undefined || v === null || v === '') return undefined;
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

export function invalid(field: string, message: string): SimError {
  return new SimError(422, 'The given data was invalid.', { [field]: [message] });
}

export function requireParam(req: WireRequest, name: string): string {
  const v = param(req, name);
  if (v === undefined) throw invalid(name, `${name} is required`);
  return v;
}

export function requireMarketParam(sim: SimulatedExchange, req: WireRequest, name = 'symbol'): MarketSpec {
  const symbol = requireParam(req, name).toUpperCase();
  const m = sim.market(symbol);
  if (!m) throw invalid(name, `${name} ${JSON.stringify(symbol)} is not a market of this exchange`);
  return m;
}

export interface Page<T> {
  items: T[];
  info: { page: number; per_page: number; count: number; total_count: number };
}

/** `page` (from 1) and `per_page` (1 to 100, default 50) over a list. */
export function paginate<T>(req: WireRequest, list: T[], defaultPerPage = 50): Page<T> {
  const page = intParam(req, 'page', 1, 1, 1_000_000);
  const perPage = intParam(req, 'per_page', defaultPerPage, 1, 100);
  const items = list.slice((page - 1) * perPage, page * perPage);
  return { items, info: { page, per_page: perPage, count: items.length, total_count: list.length } };
}

function intParam(req: WireRequest, name: string, dflt: number, min: number, max: number): number {
  const raw = param(req, name);
  if (raw === undefined) return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw invalid(name, `${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return n;
}

/** The ledger account a request trades on: the sub-account named by `sub-account-client-id`, or the key's. */
export type SubAccountResolver = (accountId: string, subClientId: string) => string;

export function tradingAccountOf(req: WireRequest, resolve?: SubAccountResolver): string {
  const sub = req.subAccountId;
  if (!sub) return req.accountId!;
  if (!resolve)
    throw new SimError(422, 'The given data was invalid.', { 'sub-account-client-id': ['trading-credit accounts are not enabled on this simulator'] });
  return resolve(req.accountId!, sub);
}
