export type { ReplayTarget, ReplayLevel, ReplayTrade, ReplayEvent, BookEvent, TradeEvent, RawLevel, ReplaySource, MarketGrid } from './types.js';
export { startReplay, type ReplayOptions, type ReplayHandle, type ReplayProgress } from './driver.js';
export { candleSource, type CandleSource, type CandleSourceOptions } from './candle-source.js';
export { hftSource, type HftSource, type HftSourceOptions, type HftStats } from './hft-source.js';
export { derivedSource, derivedTmnSource, tmnMarkets, type DerivedMarket, type DerivedSourceOptions, type Factor } from './derived.js';
export { constantRate, waveRate, usdtTmnCandles, type WaveRateOptions, type RateCandleOptions } from './rate.js';
export { mergeSources } from './merge.js';
export { CandleBuilder } from './candle-builder.js';
export { defaultReplaySources, bundledDataDir, readDerivation, MARKET_GRIDS, DEFAULT_MARKETS, type DefaultSourcesOptions } from './defaults.js';
export { buildBundledData, measureEthBtcRatio, type Derivation } from './bundle.js';

import type { Candle } from '../../core/types/market.js';
import type { ReplaySource } from './types.js';

/** Source candles (source time) of a symbol from whichever source has it. */
export function sourceCandles(sources: readonly ReplaySource[], symbol: string, fromSec?: number, toSec?: number): Candle[] {
  const s = sources.find((x) => x.symbols.includes(symbol));
  return s ? s.candles(symbol, fromSec, toSec) : [];
}
