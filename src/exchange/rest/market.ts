/** Public market data (spec 4.1): seven calls, no key, all retried. */
import type { ActiveMarket, Candle, CurrencyStats, DepthSnapshot, MarketInfo, PublicTrade, Resolution } from '../../core/types/index.js';
import { parseActiveMarkets, parseAllDepth, parseCandles, parseCurrencyStats, parseDepth, parseMarkets, parseTrades } from '../parse/market.js';
import type { HttpCore } from './http.js';
import * as v from './validate.js';

export interface CandleQuery {
  symbol: string;
  resolution: Resolution;
  /** Unix seconds, inclusive. */
  from: number;
  /** Unix seconds; must be after `from`. */
  to: number;
}

const get = (http: HttpCore, path: string, query?: Record<string, string | number>, envelope: 'required' | 'optional' = 'required') =>
  http.request({ method: 'GET', path, query, auth: false, retry: true, envelope });

/** GET /v1/markets */
export async function getMarkets(http: HttpCore): Promise<MarketInfo[]> {
  return parseMarkets((await get(http, '/v1/markets')).payload);
}

/** GET /v1/currencies/stats */
export async function getCurrencyStats(http: HttpCore): Promise<CurrencyStats[]> {
  return parseCurrencyStats((await get(http, '/v1/currencies/stats')).payload);
}

/** GET /v1/depth?symbol= */
export async function getDepth(http: HttpCore, symbol: string): Promise<DepthSnapshot> {
  const s = v.symbol(symbol);
  return parseDepth((await get(http, '/v1/depth', { symbol: s })).payload, s);
}

/** GET /v2/depth/all */
export async function getAllDepth(http: HttpCore): Promise<Record<string, DepthSnapshot>> {
  return parseAllDepth((await get(http, '/v2/depth/all')).payload);
}

/**
 * GET /v1/trades?symbol= (rate limited when polled; the `@trade` stream is the alternative). The
 * symbol is optional in the documentation: without it, the latest trades of every market (each
 * trade carries its symbol).
 */
export async function getTrades(http: HttpCore, symbol?: string): Promise<PublicTrade[]> {
  if (symbol === undefined) return parseTrades((await get(http, '/v1/trades')).payload);
  const s = v.symbol(symbol);
  return parseTrades((await get(http, '/v1/trades', { symbol: s })).payload, s);
}

/** GET /v1/udf/history (no envelope). */
export async function getCandles(http: HttpCore, q: CandleQuery): Promise<Candle[]> {
  const symbol = v.symbol(q.symbol);
  const resolution = v.resolution(q.resolution);
  const { from, to } = v.timeRange(q.from, q.to);
  const res = await get(http, '/v1/udf/history', { symbol, resolution, from, to }, 'optional');
  return parseCandles(res.payload);
}

/** GET /hector/web/v1/markets */
export async function getActiveMarkets(http: HttpCore): Promise<ActiveMarket[]> {
  // Documented with success/message inside result and no top-level envelope: both accepted.
  return parseActiveMarkets((await get(http, '/hector/web/v1/markets', undefined, 'optional')).payload);
}
