import { checkFinite, type StreamingIndicator } from './common.js';
import { Ema, Rma } from './ema.js';
import { Sma } from './sma.js';
import { ParameterError } from '../../core/errors.js';

/**
 * True range: max(high - low, |high - prevClose|, |low - prevClose|). The first bar has no previous close
 * and gives no TR (NaN); it only sets the previous close (TA-Lib and cinar do the same).
 */
export class TrueRange implements StreamingIndicator {
  private prevClose = NaN;
  private current = NaN;

  update(high: number, low: number, close: number): number {
    checkFinite('high', high);
    checkFinite('low', low);
    checkFinite('close', close);
    if (high < low) throw new ParameterError('high', high, `>= low ${low}`);
    const pc = this.prevClose;
    this.prevClose = close;
    if (pc !== pc) return NaN;
    const a = high - low;
    const b = Math.abs(high - pc);
    const c = Math.abs(low - pc);
    this.current = a > b ? (a > c ? a : c) : b > c ? b : c;
    return this.current;
  }

  get ready(): boolean {
    return this.current === this.current;
  }

  get value(): number {
    return this.current;
  }

  reset(): void {
    this.prevClose = NaN;
    this.current = NaN;
  }
}

/** How ATR averages the true range: Wilder's RMA (default; Wilder, TA-Lib), SMA (cinar) or EMA. */
export type AtrSmoothing = 'wilder' | 'sma' | 'ema';

/**
 * Average true range over `period` true ranges (default 14, Wilder smoothing seeded with the SMA of the
 * first `period` TRs). The first bar yields no TR, so the first ATR is at bar index `period`.
 */
export class Atr implements StreamingIndicator {
  readonly period: number;
  readonly smoothing: AtrSmoothing;
  private readonly tr = new TrueRange();
  private readonly avg: Sma | Ema;

  constructor(period = 14, options: { smoothing?: AtrSmoothing } = {}) {
    this.smoothing = options.smoothing ?? 'wilder';
    switch (this.smoothing) {
      case 'wilder':
        this.avg = new Rma(period);
        break;
      case 'sma':
        this.avg = new Sma(period);
        break;
      case 'ema':
        this.avg = new Ema(period);
        break;
      default:
        throw new ParameterError('smoothing', this.smoothing, "'wilder', 'sma' or 'ema'");
    }
    this.period = period;
  }

  update(high: number, low: number, close: number): number {
    const tr = this.tr.update(high, low, close);
    if (tr !== tr) return NaN;
    return this.avg.update(tr);
  }

  /** The latest true range. */
  get trueRange(): number {
    return this.tr.value;
  }

  get ready(): boolean {
    return this.avg.ready;
  }

  get value(): number {
    return this.avg.value;
  }

  reset(): void {
    this.tr.reset();
    this.avg.reset();
  }
}
