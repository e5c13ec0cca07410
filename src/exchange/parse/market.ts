/**
 * Parsers for public market data (spec 2.2 - 2.6, 2.16). Pure `(json) => domain` functions that
 * take the envelope's `result` (or the bare candle body), shared with the simulator's contract tests
 * and the stream client.
 */
import type { ActiveMarket, BookLevel, Candle, CurrencyStats, DepthSnapshot, MarketInfo, MarketStats, PublicTrade, Side } from '../../core/types/index.js';
import {
  arr,
  bool,
  compact,
  dec,
  decOpt,
  decOrDash,
  flag,
  int,
  intOpt,
  isObject,
  listOrIndexed,
  num,
  numOpt,
  numOrNull,
  obj,
  parseFail,
  str,
  strOpt,
  timeMs,
} from './fields.js';
import { unwrapResult } from './envelope.js';

export function parseSide(value: unknown, field: string): Side {
  const s = typeof value === 'string' ? value.toUpperCase() : value;
  if (s === 'BUY' || s === 'SELL') return s;
  throw parseFail(field, 'BUY or SELL', value);
}

export function parseMarketStats(json: unknown, field = 'stats'): MarketStats {
  const o = obj(json, field);
  const dir = isObject(o.direction) ? o.direction : {};
  return compact<MarketStats>({
    bidPrice: decOpt(o.bidPrice, `${field}.bidPrice`),
    bidVolume: decOpt(o.bidVolume, `${field}.bidVolume`),
    bidCount: numOpt(o.bidCount, `${field}.bidCount`),
    askPrice: decOpt(o.askPrice, `${field}.askPrice`),
    askVolume: decOpt(o.askVolume, `${field}.askVolume`),
    askCount: numOpt(o.askCount, `${field}.askCount`),
    change24h: decOpt(o['24h_ch'], `${field}.24h_ch`),
    change7d: decOpt(o['7d_ch'], `${field}.7d_ch`),
    volume24h: decOpt(o['24h_volume'], `${field}.24h_volume`),
    volume7d: decOpt(o['7d_volume'], `${field}.7d_volume`),
    quoteVolume24h: decOpt(o['24h_quoteVolume'], `${field}.24h_quoteVolume`),
    highPrice24h: decOpt(o['24h_highPrice'], `${field}.24h_highPrice`),
    lowPrice24h: decOpt(o['24h_lowPrice'], `${field}.24h_lowPrice`),
    lastPrice: decOpt(o.lastPrice, `${field}.lastPrice`),
    lastQty: decOpt(o.lastQty, `${field}.lastQty`),
    lastTradeSide: o.lastTradeSide == null || o.lastTradeSide === '' ? undefined : parseSide(o.lastTradeSide, `${field}.lastTradeSide`),
    directionBuy: numOpt(dir.BUY, `${field}.direction.BUY`),
    directionSell: numOpt(dir.SELL, `${field}.direction.SELL`),
    createdAt: strOpt(o.createdAt, `${field}.createdAt`),
  });
}

function parseMarketInfo(json: unknown, field = 'market'): MarketInfo {
  const o = obj(json, field);
  const quotePrecision = o.quoteAssetPrecision ?? o.quotePrecision;
  return compact<MarketInfo>({
    symbol: str(o.symbol, `${field}.symbol`),
    baseAsset: str(o.baseAsset, `${field}.baseAsset`),
    baseAssetPrecision: int(o.baseAssetPrecision, `${field}.baseAssetPrecision`),
    quoteAsset: str(o.quoteAsset, `${field}.quoteAsset`),
    quoteAssetPrecision: int(quotePrecision, `${field}.quoteAssetPrecision`),
    faName: strOpt(o.faName, `${field}.faName`),
    faBaseAsset: strOpt(o.faBaseAsset, `${field}.faBaseAsset`),
    faQuoteAsset: strOpt(o.faQuoteAsset, `${field}.faQuoteAsset`),
    stepSize: int(o.stepSize, `${field}.stepSize`),
    tickSize: int(o.tickSize, `${field}.tickSize`),
    minQty: dec(o.minQty, `${field}.minQty`),
    maxQty: decOpt(o.maxQty, `${field}.maxQty`),
    minNotional: dec(o.minNotional, `${field}.minNotional`),
    stats: o.stats == null ? undefined : parseMarketStats(o.stats, `${field}.stats`),
    createdAt: strOpt(o.createdAt, `${field}.createdAt`),
  });
}

/** `result` of /v1/markets: `{symbols: {SYMBOL: Market}}`. */
export function parseMarkets(json: unknown): MarketInfo[] {
  const symbols = obj(obj(json, 'result').symbols, 'result.symbols');
  return Object.entries(symbols).map(([key, m]) => parseMarketInfo(m, `result.symbols.${key}`));
}

const PERIODS = ['1h', '24h', '7d', '14d', '30d', '60d', '200d', '1y'] as const;

export function parseCurrencyStats(json: unknown): CurrencyStats[] {
  return arr(json, 'result').map((item, i) => {
    const f = `result[${i}]`;
    const o = obj(item, f);
    const percentChange: Record<string, number> = {};
    const priceChange: Record<string, number> = {};
    for (const p of PERIODS) {
      const pc = numOpt(o[`percent_change_${p}`], `${f}.percent_change_${p}`);
      if (pc !== undefined) percentChange[p] = pc;
      const pr = numOpt(o[`price_change_${p}`], `${f}.price_change_${p}`);
      if (pr !== undefined) priceChange[p] = pr;
    }
    return compact<CurrencyStats>({
      key: str(o.key, `${f}.key`),
      name: strOpt(o.name, `${f}.name`),
      nameEn: strOpt(o.name_en, `${f}.name_en`),
      rank: numOpt(o.rank, `${f}.rank`),
      dominance: numOpt(o.dominance, `${f}.dominance`),
      volume24h: numOpt(o.volume_24h, `${f}.volume_24h`),
      marketCap: numOpt(o.market_cap, `${f}.market_cap`),
      price: numOpt(o.price, `${f}.price`),
      ath: numOpt(o.ath, `${f}.ath`),
      athChangePercentage: numOpt(o.ath_change_percentage, `${f}.ath_change_percentage`),
      athDate: strOpt(o.ath_date, `${f}.ath_date`),
      createdAt: strOpt(o.created_at, `${f}.created_at`),
      updatedAt: strOpt(o.updated_at, `${f}.updated_at`),
      dailyHighPrice: numOpt(o.daily_high_price, `${f}.daily_high_price`),
      dailyLowPrice: numOpt(o.daily_low_price, `${f}.daily_low_price`),
      weeklyHighPrice: numOpt(o.weekly_high_price, `${f}.weekly_high_price`),
      weeklyLowPrice: numOpt(o.weekly_low_price, `${f}.weekly_low_price`),
      percentChange,
      priceChange,
      maxSupply: numOrNull(o.max_supply, `${f}.max_supply`),
      totalSupply: numOrNull(o.total_supply, `${f}.total_supply`),
      circulatingSupply: numOrNull(o.circulating_supply, `${f}.circulating_supply`),
    });
  });
}

/** Order book levels: an array, or an object keyed "0","1",…; price and quantity as numbers or strings. */
export function parseBookLevels(json: unknown, field: string): BookLevel[] {
  return listOrIndexed(json, field).map((item, i) => {
    const o = obj(item, `${field}[${i}]`);
    return compact<BookLevel>({
      price: dec(o.price, `${field}[${i}].price`),
      quantity: dec(o.quantity, `${field}[${i}].quantity`),
      sum: decOpt(o.sum, `${field}[${i}].sum`),
    });
  });
}

/** `result` of /v1/depth (`{ask, bid}`); bids sorted high to low, asks low to high. */
export function parseDepth(json: unknown, symbol: string, field = 'result'): DepthSnapshot {
  const o = obj(json, field);
  const asks = parseBookLevels(o.ask ?? [], `${field}.ask`).sort((a, b) => a.price.comparedTo(b.price));
  const bids = parseBookLevels(o.bid ?? [], `${field}.bid`).sort((a, b) => b.price.comparedTo(a.price));
  return { symbol, bids, asks };
}

/** `result` of /v2/depth/all: `{SYMBOL: {ask, bid}}`. */
export function parseAllDepth(json: unknown): Record<string, DepthSnapshot> {
  const o = obj(json, 'result');
  const out: Record<string, DepthSnapshot> = {};
  for (const [symbol, book] of Object.entries(o)) out[symbol] = parseDepth(book, symbol, `result.${symbol}`);
  return out;
}

function parsePublicTrade(json: unknown, field: string, symbol?: string): PublicTrade {
  const o = obj(json, field);
  return compact<PublicTrade>({
    symbol: o.symbol == null && symbol ? symbol : str(o.symbol, `${field}.symbol`),
    price: dec(o.price, `${field}.price`),
    quantity: dec(o.quantity, `${field}.quantity`),
    sum: decOpt(o.sum, `${field}.sum`),
    isBuyOrder: bool(o.isBuyOrder, `${field}.isBuyOrder`),
    timestamp: timeMs(o.timestamp, `${field}.timestamp`),
  });
}

/** `result` of /v1/trades: `{latestTrades: [...]}`. */
export function parseTrades(json: unknown, symbol?: string): PublicTrade[] {
  const list = arr(obj(json, 'result').latestTrades, 'result.latestTrades');
  return list.map((t, i) => parsePublicTrade(t, `result.latestTrades[${i}]`, symbol));
}

/**
 * The udf candle body `{s, t, o, h, l, c, v}` (no envelope). `s: "no_data"` gives an empty list;
 * any other status than "ok" is an error; arrays of different lengths are an error.
 */
export function parseCandles(json: unknown): Candle[] {
  const o = obj(json, 'candles');
  if (o.s === 'no_data') return [];
  if (o.s !== 'ok') throw parseFail('candles.s', '"ok" or "no_data"', o.s);
  const t = arr(o.t, 'candles.t');
  const cols = { o: arr(o.o, 'candles.o'), h: arr(o.h, 'candles.h'), l: arr(o.l, 'candles.l'), c: arr(o.c, 'candles.c'), v: arr(o.v, 'candles.v') };
  for (const [k, col] of Object.entries(cols)) {
    if (col.length !== t.length) throw parseFail(`candles.${k}`, `${t.length} entries like candles.t`, col);
  }
  return t.map((time, i) => ({
    time: int(time, `candles.t[${i}]`),
    open: dec(cols.o[i], `candles.o[${i}]`),
    high: dec(cols.h[i], `candles.h[${i}]`),
    low: dec(cols.l[i], `candles.l[${i}]`),
    close: dec(cols.c[i], `candles.c[${i}]`),
    volume: dec(cols.v[i], `candles.v[${i}]`),
  }));
}

/** `result` of /hector/web/v1/markets: `{markets: [...]}` (message/success may sit inside result). */
export function parseActiveMarkets(json: unknown): ActiveMarket[] {
  const list = arr(obj(unwrapResult(json), 'result').markets, 'result.markets');
  return list.map((item, i) => {
    const f = `result.markets[${i}]`;
    const o = obj(item, f);
    const categories = o.categories == null ? [] : arr(o.categories, `${f}.categories`).map((c, j) => num(c, `${f}.categories[${j}]`));
    return compact<ActiveMarket>({
      symbol: str(o.symbol, `${f}.symbol`),
      baseAsset: str(o.base_asset, `${f}.base_asset`),
      quoteAsset: str(o.quote_asset, `${f}.quote_asset`),
      faBaseAsset: strOpt(o.fa_base_asset, `${f}.fa_base_asset`),
      faQuoteAsset: strOpt(o.fa_quote_asset, `${f}.fa_quote_asset`),
      enBaseAsset: strOpt(o.en_base_asset, `${f}.en_base_asset`),
      enQuoteAsset: strOpt(o.en_quote_asset, `${f}.en_quote_asset`),
      categories,
      price: decOpt(o.price, `${f}.price`),
      change24h: decOpt(o.change_24h, `${f}.change_24h`),
      volume24h: decOpt(o.volume_24h, `${f}.volume_24h`),
      change7d: decOpt(o.change_7D ?? o.change_7d, `${f}.change_7D`),
      quoteVolume24h: decOpt(o.quote_volume_24h, `${f}.quote_volume_24h`),
      createdAt: strOpt(o.created_at, `${f}.created_at`),
      spotIsNew: flag(o.spot_is_new, `${f}.spot_is_new`),
      otcIsNew: flag(o.otc_is_new, `${f}.otc_is_new`),
      isNew: flag(o.is_new, `${f}.is_new`),
      isSpot: flag(o.is_spot, `${f}.is_spot`),
      isOtc: flag(o.is_otc, `${f}.is_otc`),
      isMargin: flag(o.is_margin, `${f}.is_margin`),
      isTmnBased: flag(o.is_tmn_based, `${f}.is_tmn_based`),
      isUsdtBased: flag(o.is_usdt_based, `${f}.is_usdt_based`),
      isZeroFee: flag(o.is_zero_fee, `${f}.is_zero_fee`),
      // Meaning and type not documented; "-" appears and means no value (absent, never 0).
      leverageStep: decOrDash(o.leverage_step, `${f}.leverage_step`),
      maxLeverage: decOrDash(o.max_leverage, `${f}.max_leverage`),
      amountPrecision: intOpt(o.amount_precision, `${f}.amount_precision`),
      pricePrecision: intOpt(o.price_precision, `${f}.price_precision`),
      flags: o.flags,
    });
  });
}
