export type { ReplayTarget, ReplayLevel, ReplayTrade, ReplayEvent, BookEvent, RawLevel, ReplaySource } from './types.js';
export { startReplay, type ReplayHandle } from './driver.js';
export { candleSource } from './candle-source.js';
export { hftSource } from './hft-source.js';
export { derivedSource, derivedTmnSource, type DerivedMarket } from './derived.js';
export { constantRate, waveRate, usdtTmnCandles } from './rate.js';
export { mergeSources } from './merge.js';
export { defaultReplaySources, readDerivation, MARKET_GRIDS, DEFAULT_MARKETS } from './defaults.js';
export { buildBundledData } from './bundle.js';

import type { Candle } from '../../core/types/market.js';
import type { ReplaySource } from './types.js';

/** Source candles (source time) of a symbol from whichever source has it. */
export function sourceCandles(sources: readonly ReplaySource[], symbol: string, fromSec?: number, toSec?: number): Candle[] {
  const s = sources.find((x) => x.symbols.includes(symbol));
  return s ? s.candles(symbol, fromSec, toSec) : [];
}
