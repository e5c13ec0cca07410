/**
 * Parsing of stream payloads into the domain types (src/core/types/market.ts).
 *
 * - depth: an object keyed "0", "1", … (socket.io) or an array (plain WebSocket) of
 *   `{price, quantity, sum}`; price a string or number, quantity and sum numbers. Full snapshot of
 *   one side, bids high to low, asks low to high.
 * - trade: `{isBuyOrder, quantity, price, timestamp}`; quantity and price strings, timestamp ISO.
 * - marketCap: the market statistics object (numbers or numeric strings), plus `socket: null`.
 * - all@price: `{symbol, price, 24h_ch}` (an array of them is accepted too).
 *
 * Every parser throws StreamPayloadError (a final ResponseParseError naming the field and the bad
 * value) on a wrong shape; the client turns that into a counted, once-logged `malformed` event.
 */
import { type Decimal, cleanFloat, toDecimal, DecimalParseError } from '../../core/decimal.js';
import { ResponseParseError } from '../../core/errors.js';
import type { BookLevel, MarketStats, PriceTick, PublicTrade, Side } from '../../core/types/market.js';
import { DECIMAL_CACHE_ENTRIES, DecimalCache } from './decimal-cache.js';

export class StreamPayloadError extends ResponseParseError {
  constructor(
    readonly field: string,
    readonly value: unknown,
    expected: string,
  ) {
    super(`${field}: ${expected}, got ${describe(value)}`);
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing (field missing)';
  let s: string;
  try {
    s = JSON.stringify(value) ?? String(value);
  } catch {
    s = String(value);
  }
  return s.length > 80 ? s.slice(0, 80) + '…' : s;
}

/** Sums are floats computed by the exchange (`10499856.950000001`): numbers are cleaned. */
function parseSum(value: unknown, field: string): Decimal {
  return typeof value === 'number' ? cleanFloat(toDecimal(value, field)) : toDecimal(value, field);
}

/** Caches shared by the parsers of one client (see DecimalCache for why). */
export interface ParseCaches {
  values: DecimalCache;
  sums: DecimalCache;
}

export function createParseCaches(maxEntries = DECIMAL_CACHE_ENTRIES): ParseCaches {
  return { values: new DecimalCache(maxEntries), sums: new DecimalCache(maxEntries, parseSum) };
}

const defaultCaches = createParseCaches();

function asRecord(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new StreamPayloadError(field, value, 'expected an object');
  }
  return value as Record<string, unknown>;
}

/**
 * One side of a book. `withSums` also parses `sum` (an extra Decimal per level; off by default
 * because the book needs only price and quantity). Prices must be positive, quantities not negative.
 */
export function parseDepth(data: unknown, withSums = false, caches: ParseCaches = defaultCaches): BookLevel[] {
  if (typeof data !== 'object' || data === null) throw new StreamPayloadError('depth', data, 'expected an object or array of levels');
  const source = data as Record<number, unknown>;
  const levels: BookLevel[] = [];
  const values = caches.values;
  for (let i = 0; ; i++) {
    const entry = source[i];
    if (entry === undefined) break;
    if (typeof entry !== 'object' || entry === null) throw new StreamPayloadError(`depth[${i}]`, entry, 'expected a level object');
    const e = entry as Record<string, unknown>;
    let price: Decimal;
    let quantity: Decimal;
    // Constant field names on the hot path; the index is added only when something is wrong.
    try {
      price = values.get(e.price, 'price');
      quantity = values.get(e.quantity, 'quantity');
    } catch (err) {
      throw rethrow(err, `depth[${i}].`);
    }
    if (price.isZero() || price.isNegative()) throw new StreamPayloadError(`depth[${i}].price`, e.price, 'expected a positive price');
    if (quantity.isNegative()) throw new StreamPayloadError(`depth[${i}].quantity`, e.quantity, 'expected a quantity >= 0');
    if (withSums && e.sum !== undefined && e.sum !== null) {
      let sum: Decimal;
      try {
        sum = caches.sums.get(e.sum, 'sum');
      } catch (err) {
        throw rethrow(err, `depth[${i}].`);
      }
      levels.push({ price, quantity, sum });
    } else {
      levels.push({ price, quantity });
    }
  }
  // An object that is not empty but has no "0" key is not a depth payload.
  if (levels.length === 0 && !Array.isArray(data)) {
    for (const key in data) throw new StreamPayloadError('depth', data, `expected levels keyed "0", "1", … (found key ${JSON.stringify(key)})`);
  }
  return levels;
}

/** A depth level as it arrived: price and quantity still a string or a number, not parsed. */
export interface RawDepthLevel {
  readonly price: string | number;
  readonly quantity: string | number;
}

/**
 * One side of a book, checked for shape only (levels are objects whose price and quantity are
 * strings or numbers) and returned as the payload's own level objects: no Decimal is made. For a
 * consumer that validates and parses the numbers itself, as the market-data engine's book does
 * (doubles for the checks, exact Decimals lazily); this saves a Decimal-cache lookup per value.
 */
export function rawDepth(data: unknown): RawDepthLevel[] {
  if (typeof data !== 'object' || data === null) throw new StreamPayloadError('depth', data, 'expected an object or array of levels');
  const source = data as Record<number, unknown>;
  const levels: RawDepthLevel[] = [];
  for (let i = 0; ; i++) {
    const entry = source[i];
    if (entry === undefined) break;
    if (typeof entry !== 'object' || entry === null) throw new StreamPayloadError(`depth[${i}]`, entry, 'expected a level object');
    const e = entry as { price?: unknown; quantity?: unknown };
    const tp = typeof e.price;
    const tq = typeof e.quantity;
    if (tp !== 'string' && tp !== 'number') throw new StreamPayloadError(`depth[${i}].price`, e.price, 'expected a number or numeric string');
    if (tq !== 'string' && tq !== 'number') throw new StreamPayloadError(`depth[${i}].quantity`, e.quantity, 'expected a number or numeric string');
    levels.push(entry as RawDepthLevel);
  }
  if (levels.length === 0 && !Array.isArray(data)) {
    for (const key in data) throw new StreamPayloadError('depth', data, `expected levels keyed "0", "1", … (found key ${JSON.stringify(key)})`);
  }
  return levels;
}

function rethrow(err: unknown, prefix = ''): unknown {
  if (err instanceof DecimalParseError) {
    return new StreamPayloadError(prefix + err.field, err.value, 'expected a number or numeric string');
  }
  return err;
}

function num(value: unknown, field: string, caches: ParseCaches): Decimal {
  try {
    return caches.values.get(value, field);
  } catch (err) {
    throw rethrow(err);
  }
}

function optNum(value: unknown, field: string, caches: ParseCaches): Decimal | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return num(value, field, caches);
}

/** ISO 8601 string, or a number: milliseconds when above 1e12, else seconds. */
export function parseTimestamp(value: unknown, field: string): number {
  if (typeof value === 'string') {
    const ms = Date.parse(value);
    if (Number.isFinite(ms)) return ms;
  } else if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
    return value > 1e12 ? value : value * 1000;
  }
  throw new StreamPayloadError(field, value, 'expected an ISO timestamp or epoch number');
}

function parseBool(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 'true') return true;
  if (value === 0 || value === 'false') return false;
  throw new StreamPayloadError(field, value, 'expected a boolean');
}

export function parseTrade(symbol: string, data: unknown, caches: ParseCaches = defaultCaches): PublicTrade {
  const t = asRecord(data, 'trade');
  const price = num(t.price, 'trade.price', caches);
  const quantity = num(t.quantity, 'trade.quantity', caches);
  if (price.isZero() || price.isNegative()) throw new StreamPayloadError('trade.price', t.price, 'expected a positive price');
  if (quantity.isNegative()) throw new StreamPayloadError('trade.quantity', t.quantity, 'expected a quantity >= 0');
  const trade: PublicTrade = {
    symbol,
    price,
    quantity,
    isBuyOrder: parseBool(t.isBuyOrder, 'trade.isBuyOrder'),
    timestamp: parseTimestamp(t.timestamp, 'trade.timestamp'),
  };
  if (t.sum !== undefined && t.sum !== null) trade.sum = num(t.sum, 'trade.sum', caches);
  return trade;
}

function optSide(value: unknown, field: string): Side | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (value === 'BUY' || value === 'SELL') return value;
  throw new StreamPayloadError(field, value, 'expected BUY or SELL');
}

function optInt(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  // Number('  ') is 0: a blank (or "-") count is malformed, never 0.
  const n = typeof value === 'string' ? (value.trim() === '' ? NaN : Number(value)) : value;
  if (typeof n === 'number' && Number.isFinite(n)) return n;
  throw new StreamPayloadError(field, value, 'expected a number');
}

const STAT_DECIMALS: ReadonlyArray<readonly [string, keyof MarketStats]> = [
  ['bidPrice', 'bidPrice'],
  ['bidVolume', 'bidVolume'],
  ['askPrice', 'askPrice'],
  ['askVolume', 'askVolume'],
  ['24h_ch', 'change24h'],
  ['7d_ch', 'change7d'],
  ['24h_volume', 'volume24h'],
  ['7d_volume', 'volume7d'],
  ['24h_quoteVolume', 'quoteVolume24h'],
  ['24h_highPrice', 'highPrice24h'],
  ['24h_lowPrice', 'lowPrice24h'],
  ['lastPrice', 'lastPrice'],
  ['lastQty', 'lastQty'],
];

/** `@marketCap` payload. Every field is optional; a present field must be well formed. */
export function parseMarketStats(data: unknown, caches: ParseCaches = defaultCaches): MarketStats {
  const m = asRecord(data, 'marketCap');
  const stats: MarketStats = {};
  const out = stats as Record<string, unknown>;
  for (const [from, to] of STAT_DECIMALS) {
    const v = optNum(m[from], `marketCap.${from}`, caches);
    if (v !== undefined) out[to] = v;
  }
  const bidCount = optInt(m.bidCount, 'marketCap.bidCount');
  if (bidCount !== undefined) stats.bidCount = bidCount;
  const askCount = optInt(m.askCount, 'marketCap.askCount');
  if (askCount !== undefined) stats.askCount = askCount;
  const side = optSide(m.lastTradeSide, 'marketCap.lastTradeSide');
  if (side !== undefined) stats.lastTradeSide = side;
  if (m.direction !== undefined && m.direction !== null) {
    const dir = asRecord(m.direction, 'marketCap.direction');
    const buy = optInt(dir.BUY, 'marketCap.direction.BUY');
    const sell = optInt(dir.SELL, 'marketCap.direction.SELL');
    if (buy !== undefined) stats.directionBuy = buy;
    if (sell !== undefined) stats.directionSell = sell;
  }
  if (typeof m.createdAt === 'string') stats.createdAt = m.createdAt;
  return stats;
}

function parseTick(data: unknown, field: string, caches: ParseCaches): PriceTick {
  const p = asRecord(data, field);
  if (typeof p.symbol !== 'string' || p.symbol.length === 0) {
    throw new StreamPayloadError(`${field}.symbol`, p.symbol, 'expected a symbol string');
  }
  const tick: PriceTick = { symbol: p.symbol.toUpperCase(), price: num(p.price, `${field}.price`, caches) };
  const change = optNum(p['24h_ch'], `${field}.24h_ch`, caches);
  if (change !== undefined) tick.change24h = change;
  return tick;
}

/** `all@price`: one tick object, or an array of them. */
export function parsePriceTicks(data: unknown, caches: ParseCaches = defaultCaches): PriceTick[] {
  if (Array.isArray(data)) return data.map((entry, i) => parseTick(entry, `price[${i}]`, caches));
  return [parseTick(data, 'price', caches)];
}
