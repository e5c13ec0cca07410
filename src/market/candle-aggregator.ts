/**
 * Live candles of one market at one resolution, built from the trade stream.
 *
 * - Periods are aligned to UTC boundaries of the resolution counted from the Unix epoch
 *   (`start = floor(t / res) × res`); a trade exactly on a boundary opens the new period.
 * - Within a period, open is the earliest trade by timestamp and close the latest (ties: arrival
 *   order), so trades that arrive slightly out of order inside an open period are placed correctly.
 * - A period closes, and its candle is returned exactly once, when a trade of a later period arrives
 *   or when `tick(now)` finds `now ≥ period end + closeDelayMs` (the delay leaves room for trades
 *   that arrive a little after the boundary).
 * - Empty periods: after the first trade, every period without trades closes as a candle with
 *   volume 0 and open = high = low = close = the previous close, flagged `empty: true`. No candle is
 *   made before the first trade (there is no price yet).
 * - Late trades (timestamp in a period already closed): never rewrite a closed candle. They are not
 *   applied to any candle and are counted in `lateTrades` (the engine logs them once a minute per
 *   market: late-trades.ts). They stay on the trade tape.
 */
import { Decimal } from '../core/decimal.js';
import type { Candle, PublicTrade } from '../core/types/market.js';

/** A candle built here: `time` is the period start in Unix seconds, like /v1/udf/history. */
export interface LiveCandle extends Candle {
  /** Resolution in seconds. */
  resolution: number;
  tradeCount: number;
  /** True for a period without trades (volume 0, prices = previous close). */
  empty: boolean;
}

interface Accum {
  open: Decimal;
  high: Decimal;
  low: Decimal;
  close: Decimal;
  volume: Decimal;
  count: number;
  firstTs: number;
  lastTs: number;
}

const ZERO = new Decimal(0);

export class CandleAggregator {
  private readonly resMs: number;
  /** Start (ms) of the period currently open; undefined before the first trade. */
  private openStart: number | undefined;
  private cur: Accum | undefined;
  private lastClose: Decimal | undefined;
  lateTrades = 0;

  constructor(
    readonly symbol: string,
    readonly resolution: number,
    private readonly opts: { closeDelayMs?: number } = {},
  ) {
    if (!Number.isInteger(resolution) || resolution < 1) {
      throw new RangeError(`resolution must be a positive whole number of seconds, got ${resolution}`);
    }
    this.resMs = resolution * 1000;
  }

  /** The candle of the open period so far (undefined if it has no trade yet). */
  current(): LiveCandle | undefined {
    return this.cur && this.openStart !== undefined ? this.build(this.openStart, this.cur) : undefined;
  }

  /** Add a trade; returns the candles it closed (oldest first), usually none. */
  addTrade(trade: PublicTrade): LiveCandle[] {
    const ts = trade.timestamp;
    if (!Number.isFinite(ts)) throw new RangeError(`trade timestamp must be finite ms, got ${ts}`);
    const start = Math.floor(ts / this.resMs) * this.resMs;
    if (this.openStart === undefined) this.openStart = start;
    if (ts < this.openStart) {
      this.lateTrades++;
      return [];
    }
    const closed: LiveCandle[] = [];
    while (start > this.openStart) closed.push(this.closePeriod());
    const p = trade.price;
    const c = this.cur;
    if (!c) {
      this.cur = { open: p, high: p, low: p, close: p, volume: trade.quantity, count: 1, firstTs: ts, lastTs: ts };
    } else {
      if (p.gt(c.high)) c.high = p;
      if (p.lt(c.low)) c.low = p;
      if (ts < c.firstTs) {
        c.open = p;
        c.firstTs = ts;
      }
      if (ts >= c.lastTs) {
        c.close = p;
        c.lastTs = ts;
      }
      c.volume = c.volume.plus(trade.quantity);
      c.count++;
    }
    return closed;
  }

  /** Close every period that ended at least `closeDelayMs` before `nowMs`. */
  tick(nowMs: number): LiveCandle[] {
    const closed: LiveCandle[] = [];
    const delay = this.opts.closeDelayMs ?? 0;
    while (this.openStart !== undefined && nowMs >= this.openStart + this.resMs + delay) closed.push(this.closePeriod());
    return closed;
  }

  private closePeriod(): LiveCandle {
    const start = this.openStart as number;
    let candle: LiveCandle;
    if (this.cur) candle = this.build(start, this.cur);
    else {
      const p = this.lastClose as Decimal; // defined: the first period always has a trade
      candle = { time: start / 1000, open: p, high: p, low: p, close: p, volume: ZERO, resolution: this.resolution, tradeCount: 0, empty: true };
    }
    this.lastClose = candle.close;
    this.cur = undefined;
    this.openStart = start + this.resMs;
    return candle;
  }

  private build(start: number, c: Accum): LiveCandle {
    return {
      time: start / 1000,
      open: c.open,
      high: c.high,
      low: c.low,
      close: c.close,
      volume: c.volume,
      resolution: this.resolution,
      tradeCount: c.count,
      empty: false,
    };
  }
}
