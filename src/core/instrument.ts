/**
 * What a market trades: its base and quote assets, as the market catalog (live, paper) or the
 * backtest's market specs say. The kernel decides it once for every mode; nothing splits a symbol
 * by its suffix (`SHIBIRT` is SHIB/IRT on one list of quotes and SHI/BIRT on another).
 */
import type { Side } from './types/market.js';

export interface Instrument {
  base: string;
  quote: string;
}

/** The asset an order of `side` receives, in which the exchange takes its fee: base for a buy, quote for a sell. */
export function receivedAsset(instrument: Instrument, side: Side): string {
  return side === 'BUY' ? instrument.base : instrument.quote;
}
