/**
 * JSON shapes of the real exchange, built from the simulator's records. The quirks are on purpose:
 * amounts as 16-decimal strings (`"21300.0000000000000000"`), REST depth with string prices and
 * number quantities, stream depth as an object keyed "0", "1", … with a string price and number
 * quantity and sum, ISO times with microseconds on orders and without on trades.
 */
import type { Decimal } from '../../core/decimal.js';
import type { Candle } from '../../core/types/index.js';
import type { MarketSnapshot } from '../events.js';
import type { MarketSpec } from '../markets.js';
import { ASSET_FA_NAMES, FIAT_ASSETS } from '../markets.js';
import type { LevelInput, SimFill, SimOrder, SimTrade } from '../order-types.js';
import type { LedgerEntry } from '../ledger.js';

/** `"21300.0000000000000000"`: how the exchange prints amounts. */
export function amount(v: Decimal | undefined): string {
  return v ? v.toFixed(16) : '0.0000000000000000';
}

/** A JSON number from a Decimal (the wire is JSON; parsers read numbers through their string form). */
export function num(v: Decimal): number {
  return Number(v.toString());
}

/** `2022-06-17T11:53:02Z` */
function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** `2022-06-18T13:45:08.000000Z` */
function isoMicros(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function wireFill(f: SimFill): Record<string, unknown> {
  return {
    price: amount(f.price),
    quantity: amount(f.quantity),
    sum: amount(f.sum),
    fee: amount(f.fee),
    feeAsset: f.feeAsset,
    feeCoefficient: amount(f.feeCoefficient),
    makerFeeCoefficient: f.makerFeeCoefficient.toFixed(8),
    takerFeeCoefficient: f.takerFeeCoefficient.toFixed(8),
    isBuyer: f.isBuyer,
    symbol: f.symbol,
    timestamp: isoSeconds(f.timestamp),
  };
}

export function wireOrder(o: SimOrder): Record<string, unknown> {
  const executedPrice = o.executedQty.gt(0) ? o.executedSum.div(o.executedQty) : undefined;
  const percent = o.origQty.gt(0) ? o.executedQty.div(o.origQty).mul(100).toDecimalPlaces(2).toNumber() : 0;
  return {
    symbol: o.symbol,
    type: o.type,
    side: o.side,
    clientOrderId: o.clientOrderId,
    transactTime: Math.floor(o.createdAt / 1000),
    price: amount(o.price),
    origQty: amount(o.origQty),
    origSum: amount(o.price.mul(o.origQty)),
    sum: amount(o.price.mul(o.origQty)),
    executedPrice: amount(executedPrice),
    executedQty: amount(o.executedQty),
    executedSum: amount(o.executedSum),
    executedPercent: percent,
    fee: amount(o.fee),
    stopPrice: o.stopPrice ? amount(o.stopPrice) : null,
    stopPriceCondition: o.stopCondition ?? null,
    status: o.status,
    active: o.active,
    fills: o.fills.map(wireFill),
    created_at: isoMicros(o.createdAt),
    updated_at: isoMicros(o.updatedAt),
  };
}

/** An entry of /v1/account/trades. */
export function wireAccountTrade(f: SimFill): Record<string, unknown> {
  return {
    symbol: f.symbol,
    quantity: amount(f.quantity),
    price: amount(f.price),
    sum: amount(f.sum),
    fee: amount(f.fee),
    feeCoefficient: amount(f.feeCoefficient),
    feeAsset: f.feeAsset,
    isBuyer: f.isBuyer,
    timestamp: isoSeconds(f.timestamp),
  };
}

/** REST depth entry: price as a string, quantity as a number, sum as a string. */
export function restLevel(l: LevelInput): Record<string, unknown> {
  return { price: amount(l.price), quantity: num(l.quantity), sum: l.price.mul(l.quantity).toFixed() };
}

/** Stream depth: an object keyed "0", "1", …; price a string, quantity and sum numbers. */
export function streamDepth(levels: LevelInput[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  levels.forEach((l, i) => {
    out[String(i)] = { quantity: num(l.quantity), price: amount(l.price), sum: num(l.quantity) * num(l.price) };
  });
  return out;
}

/** Plain WebSocket depth (`/ws`): an array of levels with numbers, as the exchange's documentation shows. */
export function streamDepthArray(levels: LevelInput[]): Record<string, unknown>[] {
  return levels.map((l) => {
    const quantity = num(l.quantity);
    const price = num(l.price);
    return { quantity, price, sum: quantity * price };
  });
}

export function restTrade(t: SimTrade): Record<string, unknown> {
  return {
    symbol: t.symbol,
    quantity: amount(t.quantity),
    price: amount(t.price),
    sum: amount(t.price.mul(t.quantity)),
    isBuyOrder: t.isBuyOrder,
    timestamp: isoSeconds(t.timestamp),
  };
}

export function streamTrade(t: SimTrade): Record<string, unknown> {
  return { isBuyOrder: t.isBuyOrder, quantity: amount(t.quantity), price: amount(t.price), timestamp: isoSeconds(t.timestamp) };
}

function wireStats(s: MarketSnapshot): Record<string, unknown> {
  return {
    bidPrice: amount(s.bidPrice),
    askPrice: amount(s.askPrice),
    '24h_ch': s.change24h,
    '7d_ch': s.change7d,
    '24h_volume': amount(s.volume24h),
    '7d_volume': amount(s.volume7d),
    '24h_quoteVolume': amount(s.quoteVolume24h),
    '24h_highPrice': amount(s.high24h ?? s.lastPrice),
    '24h_lowPrice': amount(s.low24h ?? s.lastPrice),
    lastPrice: amount(s.lastPrice),
    lastQty: amount(s.lastQty),
    lastTradeSide: s.lastTradeSide ?? 'BUY',
    bidVolume: amount(s.bidVolume),
    askVolume: amount(s.askVolume),
    bidCount: s.bidCount,
    askCount: s.askCount,
    direction: { SELL: s.directionSell, BUY: s.directionBuy },
  };
}

/** The `@marketCap` payload: the statistics plus symbol, createdAt and `socket: null`. */
export function streamMarketCap(s: MarketSnapshot, market: MarketSpec): Record<string, unknown> {
  return { symbol: s.symbol, ...wireStats(s), createdAt: market.createdAt, socket: null };
}

export function wireMarket(m: MarketSpec, s: MarketSnapshot): Record<string, unknown> {
  return {
    symbol: m.symbol,
    baseAsset: m.baseAsset,
    baseAssetPrecision: m.baseAssetPrecision,
    quoteAsset: m.quoteAsset,
    quotePrecision: m.quoteAssetPrecision,
    faName: m.faName,
    faBaseAsset: m.faBaseAsset,
    faQuoteAsset: m.faQuoteAsset,
    stepSize: m.stepSize,
    tickSize: m.tickSize,
    minQty: num(m.minQty),
    maxQty: num(m.maxQty),
    minNotional: num(m.minNotional),
    stats: wireStats(s),
    createdAt: m.createdAt,
  };
}

/** Tokens backed by gold (the exchange flags them `is_digital_gold`). */
const DIGITAL_GOLD = new Set(['PAXG', 'XAUT']);

/**
 * A balance entry as the current documentation shows it: `asset, asset_png_icon, asset_svg_icon,
 * faName, fiat, value, locked, is_dust, is_digital_gold`. The simulator has no icons (null).
 * `dustBelow`: the smallest order quantity of the asset; a non-zero amount under it is dust.
 */
export function wireBalance(asset: string, e: LedgerEntry, precision: number, dustBelow?: Decimal): Record<string, unknown> {
  return {
    asset,
    asset_png_icon: null,
    asset_svg_icon: null,
    faName: ASSET_FA_NAMES[asset] ?? asset,
    fiat: FIAT_ASSETS.has(asset),
    value: fixed(e.value, precision),
    locked: fixed(e.locked, precision),
    is_dust: dustBelow !== undefined && e.value.gt(0) && e.value.lt(dustBelow),
    is_digital_gold: DIGITAL_GOLD.has(asset),
  };
}

/** At least `precision` places, more when the amount holds more (never rounded). */
function fixed(v: Decimal, precision: number): string {
  return v.toFixed(Math.max(precision, v.decimalPlaces()));
}

/** /v1/udf/history: parallel arrays, no envelope. */
export function wireCandles(candles: Candle[]): Record<string, unknown> {
  return {
    s: candles.length > 0 ? 'ok' : 'no_data',
    t: candles.map((c) => c.time),
    o: candles.map((c) => amount(c.open)),
    h: candles.map((c) => amount(c.high)),
    l: candles.map((c) => amount(c.low)),
    c: candles.map((c) => amount(c.close)),
    v: candles.map((c) => amount(c.volume)),
  };
}
