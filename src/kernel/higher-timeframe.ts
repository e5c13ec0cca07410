/**
 * Candles of a multiple of a strategy's resolution, built from its own closed candles
 * (test/e2e/higher-timeframe.test.ts): `ctx.candles(symbol, 3600)` in a 300 s strategy. Buckets are aligned to the epoch (an
 * hour candle covers hh:00..hh:59:59). A bucket's candle becomes visible only once it closed: when
 * the base candle ending at the bucket's end closed, or when a later base candle shows the bucket is
 * over (a gap in the data). Seeded from the base candles already held, so the history is there on
 * the first read; the same code in every mode (the trading core feeds it).
 */
import type { CandleWindow } from '../strategy/candle-window.js';

interface BarNumbers {
  readonly time: number;
  readonly o: number;
  readonly h: number;
  readonly l: number;
  readonly c: number;
  readonly v: number;
}

export class HigherTimeframe {
  private start = Number.NaN;
  private o = 0;
  private h = 0;
  private l = 0;
  private c = 0;
  private v = 0;

  constructor(
    /** Base resolution and the target (a multiple of it), in seconds. */
    private readonly base: number,
    readonly seconds: number,
    private readonly out: CandleWindow,
  ) {
    if (!(seconds > base && seconds % base === 0)) throw new Error(`resolution ${seconds}s is not a multiple of ${base}s`);
  }

  /** Build the history from base candles already held (oldest first). */
  seed(base: CandleWindow): void {
    for (let i = 0; i < base.length; i++) {
      const c = base.at(i);
      this.push({ time: c.time, o: c.open, h: c.high, l: c.low, c: c.close, v: c.volume });
    }
  }

  /** A closed base candle (time: its open, in seconds). */
  push(bar: BarNumbers): void {
    const res = this.seconds;
    const bucket = bar.time - (((bar.time % res) + res) % res);
    if (bucket !== this.start) {
      // A later bucket began: the open one is over (its last base candles were missing).
      if (!Number.isNaN(this.start)) this.out.pushNumbers(this.start, this.o, this.h, this.l, this.c, this.v);
      this.start = bucket;
      this.o = bar.o;
      this.h = bar.h;
      this.l = bar.l;
      this.v = 0;
    } else {
      if (bar.h > this.h) this.h = bar.h;
      if (bar.l < this.l) this.l = bar.l;
    }
    this.c = bar.c;
    this.v += bar.v;
    if (bar.time + this.base >= bucket + res) {
      this.out.pushNumbers(this.start, this.o, this.h, this.l, this.c, this.v);
      this.start = Number.NaN;
    }
  }
}
