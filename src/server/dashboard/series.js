// @ts-check
// The equity series the overview draws: one point per period of `step` seconds at the period's start
// (a real time axis: lightweight-charts spaces points evenly, so periods without a point are given
// as whitespace and every period has the same width). The journal's history (a point a minute) and
// the stream's status (every 2 s) go into the same periods: a status replaces the value of its
// period. Capped: past `cap` periods the step grows to the next of STEPS and the periods are merged
// (the last value of each kept), so a week's run draws at most `cap` points.

export const STEPS = [60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 21600, 43200, 86400, 172800, 604800];
export const CAP = 1500;
/** Periods missing between two values that are bridged by the earlier value (a late journal write), not left blank. */
const BRIDGE = 2;

/** @typedef {{ time: number, value?: number }} EquityPoint a period (seconds) and its value; none: whitespace */

export class EquitySeries {
  /** @param {number} [cap] the most periods drawn */
  constructor(cap = CAP) {
    this.cap = cap;
    /** @type {number} seconds of a period */
    this.step = /** @type {number} */ (STEPS[0]);
    /** @type {{ t: number, v: number }[]} period starts (seconds), ascending, no two equal */
    this.values = [];
  }

  /**
   * A value at `ms`; one older than the last period is ignored (the stream can repeat the past).
   * @param {number} ms
   * @param {number} v
   */
  add(ms, v) {
    if (!Number.isFinite(v) || !Number.isFinite(ms)) return;
    const t = Math.floor(ms / 1000 / this.step) * this.step;
    const last = this.values[this.values.length - 1];
    if (last && t < last.t) return;
    if (last && t === last.t) last.v = v;
    else this.values.push({ t, v });
    while (this.span() > this.cap) this.coarsen();
  }

  /** Periods from the first value to the last. */
  span() {
    const first = this.values[0];
    const last = this.values[this.values.length - 1];
    if (!first || !last) return 0;
    return (last.t - first.t) / this.step + 1;
  }

  coarsen() {
    const i = STEPS.indexOf(this.step);
    const next = (i >= 0 ? STEPS[i + 1] : undefined) ?? this.step * 2;
    /** @type {{ t: number, v: number }[]} */
    const merged = [];
    for (const p of this.values) {
      const t = Math.floor(p.t / next) * next;
      const last = merged[merged.length - 1];
      if (last && last.t === t) last.v = p.v;
      else merged.push({ t, v: p.v });
    }
    this.step = next;
    this.values = merged;
  }

  /**
   * Every period from the first to the last: { time, value } or whitespace { time } (no value known).
   * @returns {EquityPoint[]}
   */
  points() {
    /** @type {EquityPoint[]} */
    const out = [];
    /** @type {{ t: number, v: number } | undefined} */
    let prev;
    for (const p of this.values) {
      if (prev) {
        const missing = (p.t - prev.t) / this.step - 1;
        for (let k = 1; k <= missing; k++) out.push(missing <= BRIDGE ? { time: prev.t + k * this.step, value: prev.v } : { time: prev.t + k * this.step });
      }
      out.push({ time: p.t, value: p.v });
      prev = p;
    }
    return out;
  }
}
