import { checkFinite, type StreamingIndicator } from './common.js';
import { Ema, type EmaSeed } from './ema.js';
import { ParameterError } from '../../core/errors.js';

export interface MacdOptions {
  fast?: number;
  slow?: number;
  signal?: number;
  /** EMA seeding for all three EMAs (see `EmaSeed`). Default 'sma'. */
  seed?: EmaSeed;
}

/**
 * MACD = EMA(fast) - EMA(slow); signal = EMA(signal) of MACD; histogram = MACD - signal.
 * Defaults 12/26/9. With SMA seeding (default, cinar, TA-Lib-like) MACD exists from input index slow-1
 * and the signal from index slow + signal - 2 (33 for 12/26/9); `ready` means the signal exists.
 * Fields `macd`, `signal`, `histogram` (no object per update); `update` returns `macd`.
 */
export class Macd implements StreamingIndicator {
  readonly fastPeriod: number;
  readonly slowPeriod: number;
  readonly signalPeriod: number;
  macd = NaN;
  signal = NaN;
  histogram = NaN;
  private readonly fast: Ema;
  private readonly slow: Ema;
  private readonly sig: Ema;

  constructor(options: MacdOptions = {}) {
    const fast = options.fast ?? 12;
    const slow = options.slow ?? 26;
    const signal = options.signal ?? 9;
    const seed = options.seed ?? 'sma';
    this.fast = new Ema(fast, { seed });
    this.slow = new Ema(slow, { seed });
    this.sig = new Ema(signal, { seed });
    if (fast >= slow) throw new ParameterError('fast', fast, `< slow ${slow}`);
    this.fastPeriod = fast;
    this.slowPeriod = slow;
    this.signalPeriod = signal;
  }

  update(x: number): number {
    checkFinite('value', x);
    const f = this.fast.update(x);
    const s = this.slow.update(x);
    if (!this.slow.ready) return NaN;
    this.macd = f - s;
    const sg = this.sig.update(this.macd);
    if (this.sig.ready) {
      this.signal = sg;
      this.histogram = this.macd - sg;
    }
    return this.macd;
  }

  get ready(): boolean {
    return this.sig.ready;
  }

  get value(): number {
    return this.macd;
  }

  reset(): void {
    this.fast.reset();
    this.slow.reset();
    this.sig.reset();
    this.macd = this.signal = this.histogram = NaN;
  }
}
