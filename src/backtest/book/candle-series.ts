/**
 * The candles a book backtest's market-data engine built from the recorded trades, kept as the
 * report's price series (one per market, at the resolution of the first strategy trading it): the
 * report draws the run over them as it draws a candle run over its data.
 */
import type { StrategyInstance } from '../../kernel/trading-core.js';
import type { MarketDataEngine } from '../../market/engine.js';
import type { LiveCandle } from '../../market/candle-aggregator.js';
import type { Series } from '../data.js';

interface Columns {
  symbol: string;
  resSec: number;
  time: number[];
  open: number[];
  high: number[];
  low: number[];
  close: number[];
  volume: number[];
}

export class CandleSeriesRecorder {
  private readonly cols = new Map<string, Columns>();

  constructor(
    engine: MarketDataEngine,
    instances: readonly StrategyInstance[],
    private readonly fromMs: number,
  ) {
    for (const i of instances) {
      for (const m of i.markets) {
        if (!this.cols.has(m)) this.cols.set(m, { symbol: m, resSec: i.resolutionSec, time: [], open: [], high: [], low: [], close: [], volume: [] });
      }
    }
    engine.on('candleClosed', (symbol, res, c) => this.add(symbol, res, c));
  }

  private add(symbol: string, res: number, c: LiveCandle): void {
    const s = this.cols.get(symbol);
    if (!s || s.resSec !== res) return;
    s.time.push(c.time);
    s.open.push(c.open.toNumber());
    s.high.push(c.high.toNumber());
    s.low.push(c.low.toNumber());
    s.close.push(c.close.toNumber());
    s.volume.push(c.volume.toNumber());
  }

  /** The series, in the order the markets were first traded; `firstIndex` is the first candle at or after `from`. */
  series(): Series[] {
    return [...this.cols.values()].map((s) => {
      const time = Float64Array.from(s.time);
      let firstIndex = time.findIndex((t) => t * 1000 >= this.fromMs);
      if (firstIndex < 0) firstIndex = time.length;
      return {
        symbol: s.symbol,
        resSec: s.resSec,
        length: time.length,
        time,
        open: Float64Array.from(s.open),
        high: Float64Array.from(s.high),
        low: Float64Array.from(s.low),
        close: Float64Array.from(s.close),
        volume: Float64Array.from(s.volume),
        firstIndex,
      };
    });
  }
}
