import { RingBuffer, checkFinite, checkPeriod, recomputeInterval, type StreamingIndicator } from './common.js';
import { ParameterError } from '../../core/errors.js';

/**
 * Typical price (high + low + close) / 3: the usual price to feed a candle VWAP. The VWAP classes take
 * whatever price you pass; cinar's reference VWAP passes the close, a trade tape passes each trade's price.
 */
export function typicalPrice(high: number, low: number, close: number): number {
  return (high + low + close) / 3;
}

function checkVolume(volume: number): void {
  if (!(volume >= 0) || !Number.isFinite(volume)) throw new ParameterError('volume', String(volume), 'a finite number >= 0');
}

/**
 * Rolling VWAP over the last `period` updates: sum(price * volume) / sum(volume) (cinar's VWAP, period 14).
 * NaN while warming up and whenever the window's total volume is 0. Running sums are rebuilt exactly
 * every max(period, 1024) updates.
 */
export class RollingVwap implements StreamingIndicator {
  readonly period: number;
  private readonly pv: RingBuffer;
  private readonly vol: RingBuffer;
  private readonly recomputeEvery: number;
  private sumPv = 0;
  private sumV = 0;
  private sinceRecompute = 0;
  private current = NaN;

  constructor(period = 14) {
    checkPeriod('period', period);
    this.period = period;
    this.pv = new RingBuffer(period);
    this.vol = new RingBuffer(period);
    this.recomputeEvery = recomputeInterval(period);
  }

  update(price: number, volume: number): number {
    checkFinite('price', price);
    checkVolume(volume);
    const x = price * volume;
    const oldPv = this.pv.push(x);
    const oldV = this.vol.push(volume);
    if (oldV === oldV) {
      this.sumPv += x - oldPv;
      this.sumV += volume - oldV;
    } else {
      this.sumPv += x;
      this.sumV += volume;
    }
    if (!this.vol.full) return NaN;
    if (++this.sinceRecompute >= this.recomputeEvery) {
      this.sinceRecompute = 0;
      let a = 0;
      let b = 0;
      for (let i = 0; i < this.period; i++) {
        a += this.pv.at(i);
        b += this.vol.at(i);
      }
      this.sumPv = a;
      this.sumV = b;
    }
    this.current = this.sumV > 0 ? this.sumPv / this.sumV : NaN;
    return this.current;
  }

  get ready(): boolean {
    return this.vol.full;
  }

  get value(): number {
    return this.current;
  }

  reset(): void {
    this.pv.clear();
    this.vol.clear();
    this.sumPv = this.sumV = 0;
    this.sinceRecompute = 0;
    this.current = NaN;
  }
}

export interface SessionVwapOptions {
  /**
   * Session length in ms; the sums restart when `floor((timeMs - offsetMs) / sessionMs)` changes
   * (86_400_000 = UTC days). Omitted: one session until `reset()`, and `timeMs` is ignored.
   */
  sessionMs?: number;
  /** Shift of the session boundary, e.g. -12_600_000 for days starting 00:00 Asia/Tehran (UTC+3:30). */
  offsetMs?: number;
}

/**
 * Cumulative (session) VWAP: sum(price * volume) / sum(volume) since the session started.
 * NaN until some volume has traded in the session.
 */
export class SessionVwap implements StreamingIndicator {
  readonly sessionMs: number;
  readonly offsetMs: number;
  private sumPv = 0;
  private sumV = 0;
  private session = NaN;
  private lastTime = -Infinity;
  private current = NaN;

  constructor(options: SessionVwapOptions = {}) {
    const s = options.sessionMs ?? 0;
    if (s !== 0) checkPeriod('sessionMs', s);
    this.sessionMs = s;
    this.offsetMs = options.offsetMs ?? 0;
    checkFinite('offsetMs', this.offsetMs);
  }

  update(price: number, volume: number, timeMs = 0): number {
    checkFinite('price', price);
    checkVolume(volume);
    if (this.sessionMs > 0) {
      checkFinite('timeMs', timeMs);
      if (timeMs < this.lastTime) throw new ParameterError('timeMs', timeMs, `>= previous ${this.lastTime}`);
      this.lastTime = timeMs;
      const session = Math.floor((timeMs - this.offsetMs) / this.sessionMs);
      if (session !== this.session) {
        this.session = session;
        this.sumPv = 0;
        this.sumV = 0;
        this.current = NaN;
      }
    }
    this.sumPv += price * volume;
    this.sumV += volume;
    if (this.sumV > 0) this.current = this.sumPv / this.sumV;
    return this.current;
  }

  /** Volume traded in the current session. */
  get volume(): number {
    return this.sumV;
  }

  get ready(): boolean {
    return this.sumV > 0;
  }

  get value(): number {
    return this.current;
  }

  reset(): void {
    this.sumPv = this.sumV = 0;
    this.session = NaN;
    this.lastTime = -Infinity;
    this.current = NaN;
  }
}
