/**
 * A source cut to a window of source time: its events from `fromMs` to `toMs` (inclusive), its
 * candles as they are. The default replay cuts the synthetic USDTTMN path to the BTCUSDT capture's
 * span, so every market's events start and end together: a looping replay (`mizan sim`, `npm start`)
 * wraps from the last event of every market to the first, instead of leaving the BTC and ETH markets
 * without an event for the minute the rate path ran on alone around each wrap.
 */
import type { ReplayEvent, ReplaySource } from './types.js';

export function windowSource(source: ReplaySource, fromMs: number, toMs: number): ReplaySource {
  if (!(fromMs <= toMs)) throw new RangeError(`windowSource ${source.name}: from ${fromMs} is after to ${toMs}`);
  function* events(): Generator<ReplayEvent> {
    const it = source.events();
    for (let r = it.next(); !r.done; r = it.next()) {
      const t = r.value.time;
      if (t > toMs) return;
      if (t >= fromMs) yield r.value;
    }
  }
  return {
    name: source.name,
    symbols: source.symbols,
    resolutionSec: source.resolutionSec,
    events,
    candles: (symbol, fromSec, toSec) => source.candles(symbol, fromSec, toSec),
  };
}
