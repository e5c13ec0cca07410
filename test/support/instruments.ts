/** The markets unit tests trade, as the market catalog splits them (tests of one module have no catalog). */
import type { Instrument } from '../../src/core/instrument.js';

const TABLE: Record<string, Instrument> = {
  BTCUSDT: { base: 'BTC', quote: 'USDT' },
  ETHUSDT: { base: 'ETH', quote: 'USDT' },
  BTCTMN: { base: 'BTC', quote: 'TMN' },
  ETHTMN: { base: 'ETH', quote: 'TMN' },
  USDTTMN: { base: 'USDT', quote: 'TMN' },
};

export function testInstrument(symbol: string): Instrument | undefined {
  return TABLE[symbol];
}

/** testInstrument, or a RangeError naming a symbol the table lacks (a Portfolio's `split`). */
export function testSplit(symbol: string): Instrument {
  const i = TABLE[symbol];
  if (!i) throw new RangeError(`test instruments: no entry for ${symbol}`);
  return i;
}
