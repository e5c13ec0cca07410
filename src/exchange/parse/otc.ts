/**
 * Parser of `GET /v1/otc/markets` (the instant-order markets). Two shapes are documented and both
 * are read: the current page (developers.wallex.ir, otc-markets) keys `result` by symbol, each entry
 * `{symbol, baseAsset, quoteAsset, faName, enName, minQty, minNotional, maxNotional,
 * stats{24h_ch, lastPrice}, buyStatus, sellStatus, exchangeStatus}`; the older page wraps the same
 * map in `result.symbols` with `baseAssetPrecision`, `quotePrecision`, `stepSize`, `tickSize`,
 * `faBaseAsset`, `faQuoteAsset`, `createdAt` and no `exchangeStatus`.
 */
import type { Decimal } from '../../core/decimal.js';
import { compact, decOpt, intOpt, isObject, numOpt, obj, str, strOpt } from './fields.js';

export interface OtcMarket {
  symbol: string;
  baseAsset?: string;
  quoteAsset?: string;
  faName?: string;
  enName?: string;
  minQty?: Decimal;
  maxQty?: Decimal;
  minNotional?: Decimal;
  maxNotional?: Decimal;
  /** Decimals of the quantity (older shape only). */
  stepSize?: number;
  /** Decimals of the price (older shape only). */
  tickSize?: number;
  lastPrice?: Decimal;
  change24h?: number;
  /** As sent, e.g. `ENABLE`; absent when not sent. */
  buyStatus?: string;
  sellStatus?: string;
  exchangeStatus?: string;
  /** `buyStatus` is `ENABLE` (and `exchangeStatus`, when sent, too). */
  canBuy: boolean;
  /** `sellStatus` is `ENABLE` (and `exchangeStatus`, when sent, too). */
  canSell: boolean;
}

const enabled = (s: string | undefined) => s !== undefined && s.toUpperCase() === 'ENABLE';

function parseOtcMarket(json: unknown, field: string, key?: string): OtcMarket {
  const o = obj(json, field);
  const stats = o.stats == null ? {} : obj(o.stats, `${field}.stats`);
  const buyStatus = strOpt(o.buyStatus, `${field}.buyStatus`);
  const sellStatus = strOpt(o.sellStatus, `${field}.sellStatus`);
  const exchangeStatus = strOpt(o.exchangeStatus, `${field}.exchangeStatus`);
  const exchangeOpen = exchangeStatus === undefined || enabled(exchangeStatus);
  return compact<OtcMarket>({
    symbol: o.symbol == null && key !== undefined ? key : str(o.symbol, `${field}.symbol`),
    baseAsset: strOpt(o.baseAsset, `${field}.baseAsset`),
    quoteAsset: strOpt(o.quoteAsset, `${field}.quoteAsset`),
    faName: strOpt(o.faName, `${field}.faName`),
    enName: strOpt(o.enName, `${field}.enName`),
    minQty: decOpt(o.minQty, `${field}.minQty`),
    maxQty: decOpt(o.maxQty, `${field}.maxQty`),
    minNotional: decOpt(o.minNotional, `${field}.minNotional`),
    maxNotional: decOpt(o.maxNotional, `${field}.maxNotional`),
    stepSize: intOpt(o.stepSize, `${field}.stepSize`),
    tickSize: intOpt(o.tickSize, `${field}.tickSize`),
    lastPrice: decOpt(stats.lastPrice, `${field}.stats.lastPrice`),
    change24h: numOpt(stats['24h_ch'], `${field}.stats.24h_ch`),
    buyStatus,
    sellStatus,
    exchangeStatus,
    canBuy: exchangeOpen && enabled(buyStatus),
    canSell: exchangeOpen && enabled(sellStatus),
  });
}

/** `result` of /v1/otc/markets, either shape (see the module comment), in key order. */
export function parseOtcMarkets(json: unknown): OtcMarket[] {
  const result = obj(json, 'result');
  const wrapped = isObject(result.symbols) && !('symbol' in result.symbols && typeof result.symbols.symbol === 'string');
  const map = wrapped ? obj(result.symbols, 'result.symbols') : result;
  const prefix = wrapped ? 'result.symbols' : 'result';
  return Object.entries(map).map(([key, m]) => parseOtcMarket(m, `${prefix}.${key}`, key));
}
