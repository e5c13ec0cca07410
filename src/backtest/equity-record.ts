/**
 * A backtest's equity curve as it is sampled (one point per candle close from `from` on, plus the
 * first): each point goes into the metrics' running state (`EquityFold`) and, when result.json keeps
 * it, into the thinned curve; the run holds no array of a sample per candle (16 MB of Float64Arrays
 * in a run of a million candles, at its peak memory). The thinned curve is what `downsample` kept of
 * the whole one: every `step`-th point (step = ceil(points / max(2, equityPoints))), the last
 * when its time is not the last kept one's, and the deepest drawdown's peak, trough and recovery
 * (so the maximum drawdown and its duration computed from the file are the metrics'). So the run
 * must know its number of points before the first (`expected`: walk.ts counts the closes ahead).
 * The last point is held back until the next one comes (or `finish`): close-at-end revalues it
 * (`setLast`).
 */
import { EquityFold } from './metrics/equity.js';

export interface EquityRecord {
  /** The metrics' state of every point. */
  fold: EquityFold;
  /** The curve result.json lists. */
  points: { times: number[]; values: number[] };
}

export class EquityRecorder {
  private readonly fold = new EquityFold();
  private readonly times: number[] = [];
  private readonly values: number[] = [];
  private readonly step: number;
  /** Points until the next one kept (0: the next is kept). */
  private skip = 0;
  private pending = false;
  /** The held-back last point: time, value (no number crosses a call on the walk's path: EquityFold.addPoint). */
  private readonly last = new Float64Array(2);

  constructor(
    /** Points the curve will have. */
    private readonly expected: number,
    /** At most about this many points are kept for result.json. */
    maxPoints: number,
  ) {
    this.step = Math.max(1, Math.ceil(expected / Math.max(2, maxPoints)));
  }

  /** Points taken so far. */
  get length(): number {
    return this.fold.n + (this.pending ? 1 : 0);
  }

  add(t: number, v: number): void {
    if (this.pending) this.take();
    this.pending = true;
    this.last[0] = t;
    this.last[1] = v;
  }

  /** The last point's value replaced (the account after the closing sells at its time). */
  setLast(v: number): void {
    if (!this.pending) throw new Error('the equity curve has no point to revalue');
    this.last[1] = v;
  }

  private take(): void {
    const p = this.last;
    if (this.skip === 0) {
      this.skip = this.step - 1;
      this.times.push(p[0]!);
      this.values.push(p[1]!);
    } else this.skip--;
    this.fold.addPoint(p);
  }

  /** Every point folded; the thinned curve with its last point. Throws when the curve has not as many points as expected. */
  finish(): EquityRecord {
    const n = this.length;
    if (n !== this.expected) throw new Error(`internal error: the equity curve has ${n} points, ${this.expected} were counted ahead`);
    const { times, values } = this;
    const t = this.last[0]!;
    const v = this.last[1]!;
    if (this.pending) this.take();
    this.pending = false;
    const lastKept = n > 0 && times[times.length - 1] !== t;
    if (lastKept) {
      times.push(t);
      values.push(v);
    }
    // The drawdown's points in their places: point j comes after the ceil(j / step) every-step-th
    // points before it (and the ones inserted before it).
    let inserted = 0;
    for (const [j, pt, pv] of this.fold.drawdownPoints()) {
      if (j % this.step === 0 || (j === n - 1 && lastKept)) continue;
      const at = Math.ceil(j / this.step) + inserted++;
      times.splice(at, 0, pt);
      values.splice(at, 0, pv);
    }
    return { fold: this.fold, points: { times, values } };
  }
}

/** A curve given whole (a book backtest's) as a record: every point folded, thinned as the walk's. */
export function recordOf(times: ArrayLike<number>, values: ArrayLike<number>, maxPoints: number): EquityRecord {
  const r = new EquityRecorder(times.length, maxPoints);
  for (let i = 0; i < times.length; i++) r.add(times[i]!, values[i]!);
  return r.finish();
}
