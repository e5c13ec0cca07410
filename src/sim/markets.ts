/**
 * Markets of the simulated exchange: the fields `/v1/markets` describes (stepSize and tickSize are
 * counts of decimal places) plus the default maker and taker fees. Values follow the exchange's
 * samples: BTCUSDT stepSize 6, tickSize 2, minQty 0.000001, minNotional 10; Toman markets quote in
 * whole Toman (tickSize 0) with minNotional 100,000 Toman; fees 0.2% / 0.2% on USDT markets and
 * 0.3% maker / 0.4% taker on Toman markets.
 */
import { Decimal } from '../core/decimal.js';

export interface MarketSpec {
  symbol: string;
  baseAsset: string;
  quoteAsset: string;
  baseAssetPrecision: number;
  quoteAssetPrecision: number;
  faName: string;
  faBaseAsset: string;
  faQuoteAsset: string;
  /** Decimal places of the quantity. */
  stepSize: number;
  /** Decimal places of the price. */
  tickSize: number;
  minQty: Decimal;
  maxQty: Decimal;
  minNotional: Decimal;
  makerFee: Decimal;
  takerFee: Decimal;
  /** ISO time with microseconds, as the exchange sends it. */
  createdAt: string;
}

/** Persian names of the assets the default markets use (sent as `faName` in balances). */
export const ASSET_FA_NAMES: Record<string, string> = {
  BTC: 'بیت کوین',
  ETH: 'اتریوم',
  USDT: 'تتر',
  TMN: 'تومان',
};

/** Decimal places each asset is held with. */
export const ASSET_PRECISION: Record<string, number> = { BTC: 8, ETH: 8, USDT: 8, TMN: 0 };

export const FIAT_ASSETS: ReadonlySet<string> = new Set(['TMN']);

interface Row {
  base: string;
  quote: string;
  step: number;
  tick: number;
  minQty: string;
  maxQty: string;
  createdAt: string;
}

const ROWS: Row[] = [
  { base: 'BTC', quote: 'USDT', step: 6, tick: 2, minQty: '0.000001', maxQty: '100', createdAt: '2020-04-01T00:00:00.000000Z' },
  { base: 'ETH', quote: 'USDT', step: 4, tick: 2, minQty: '0.0001', maxQty: '1000', createdAt: '2020-04-01T00:00:00.000000Z' },
  { base: 'USDT', quote: 'TMN', step: 2, tick: 0, minQty: '1', maxQty: '1000000', createdAt: '2020-10-01T00:00:00.000000Z' },
  { base: 'BTC', quote: 'TMN', step: 6, tick: 0, minQty: '0.000001', maxQty: '100000', createdAt: '2019-06-01T00:00:00.000000Z' },
  { base: 'ETH', quote: 'TMN', step: 4, tick: 0, minQty: '0.0001', maxQty: '100000', createdAt: '2019-06-01T00:00:00.000000Z' },
];

/** The five default markets: BTCUSDT, ETHUSDT, USDTTMN, BTCTMN, ETHTMN. */
export function defaultMarketSpecs(): MarketSpec[] {
  return ROWS.map((r) => {
    const tmn = r.quote === 'TMN';
    return {
      symbol: r.base + r.quote,
      baseAsset: r.base,
      quoteAsset: r.quote,
      baseAssetPrecision: ASSET_PRECISION[r.base] ?? 8,
      quoteAssetPrecision: ASSET_PRECISION[r.quote] ?? 8,
      faName: `${ASSET_FA_NAMES[r.base] ?? r.base} - ${ASSET_FA_NAMES[r.quote] ?? r.quote}`,
      faBaseAsset: ASSET_FA_NAMES[r.base] ?? r.base,
      faQuoteAsset: ASSET_FA_NAMES[r.quote] ?? r.quote,
      stepSize: r.step,
      tickSize: r.tick,
      minQty: new Decimal(r.minQty),
      maxQty: new Decimal(r.maxQty),
      minNotional: new Decimal(tmn ? 100000 : 10),
      makerFee: new Decimal(tmn ? '0.003' : '0.002'),
      takerFee: new Decimal(tmn ? '0.004' : '0.002'),
      createdAt: r.createdAt,
    };
  });
}
