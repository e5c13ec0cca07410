import { RollingExtreme, checkFinite, checkPeriod, type StreamingIndicator } from './common.js';
import { Sma } from './sma.js';
import { ParameterError } from '../../core/errors.js';

export interface StochasticOptions {
  /** Look-back of the highest high / lowest low. Default 14. */
  kPeriod?: number;
  /** SMA period of %D. Default 3. */
  dPeriod?: number;
  /** SMA smoothing of raw %K (1 = fast stochastic, the default; 3 = slow stochastic). */
  smoothK?: number;
}

/**
 * Stochastic oscillator: raw %K = 100 * (close - lowest low) / (highest high - lowest low) over kPeriod
 * bars; %K = SMA(smoothK) of raw %K; %D = SMA(dPeriod) of %K. When the range is 0 (flat market) raw %K is
 * 50. Highest/lowest use monotonic deques (amortised O(1)). Fields `k` and `d`; `update` returns `k`;
 * `ready` once %D exists (bar index kPeriod + smoothK + dPeriod - 3; 15 for 14/3/1, as in cinar).
 */
export class Stochastic implements StreamingIndicator {
  readonly kPeriod: number;
  readonly dPeriod: number;
  readonly smoothK: number;
  k = NaN;
  d = NaN;
  private readonly hi: RollingExtreme;
  private readonly lo: RollingExtreme;
  private readonly kSma: Sma | null;
  private readonly dSma: Sma;
  private bars = 0;

  constructor(options: StochasticOptions = {}) {
    this.kPeriod = options.kPeriod ?? 14;
    this.dPeriod = options.dPeriod ?? 3;
    this.smoothK = options.smoothK ?? 1;
    checkPeriod('kPeriod', this.kPeriod);
    checkPeriod('dPeriod', this.dPeriod);
    checkPeriod('smoothK', this.smoothK);
    this.hi = new RollingExtreme(this.kPeriod, 'max');
    this.lo = new RollingExtreme(this.kPeriod, 'min');
    this.kSma = this.smoothK > 1 ? new Sma(this.smoothK) : null;
    this.dSma = new Sma(this.dPeriod);
  }

  update(high: number, low: number, close: number): number {
    checkFinite('high', high);
    checkFinite('low', low);
    checkFinite('close', close);
    if (high < low) throw new ParameterError('high', high, `>= low ${low}`);
    const hh = this.hi.push(high);
    const ll = this.lo.push(low);
    if (++this.bars < this.kPeriod) return NaN;
    const range = hh - ll;
    const raw = range > 0 ? (100 * (close - ll)) / range : 50;
    let k = raw;
    if (this.kSma !== null) {
      k = this.kSma.update(raw);
      if (!this.kSma.ready) return NaN;
    }
    this.k = k;
    const d = this.dSma.update(k);
    if (this.dSma.ready) this.d = d;
    return k;
  }

  get ready(): boolean {
    return this.dSma.ready;
  }

  get value(): number {
    return this.k;
  }

  reset(): void {
    this.hi.clear();
    this.lo.clear();
    this.kSma?.reset();
    this.dSma.reset();
    this.bars = 0;
    this.k = this.d = NaN;
  }
}
