/**
 * Gaps in a candle series: ranges of bar starts that are missing for a given resolution. freqtrade
 * data omits bars without trades, so a 1-minute file may jump 2, 3 or more minutes.
 */

export interface CandleGap {
  /** Start of the first missing bar (Unix seconds). */
  from: number;
  /** Start of the last missing bar (Unix seconds). */
  to: number;
  /** How many bars are missing. */
  missing: number;
}

/**
 * List the missing ranges. Accepts Candle-like objects or a time column. Times that are not on the
 * resolution's grid relative to the first bar still count the whole bars between them.
 */
export function findGaps(times: ArrayLike<number> | readonly { time: number }[], resolutionSec: number): CandleGap[] {
  if (!(resolutionSec > 0)) throw new RangeError(`resolutionSec must be positive, got ${resolutionSec}`);
  const n = times.length;
  // A time column (the backtest's, a million rows): read directly, without the element's kind tested per row.
  if (times instanceof Float64Array) return columnGaps(times, resolutionSec);
  const at = (i: number): number => {
    const v = (times as ArrayLike<number | { time: number }>)[i]!;
    return typeof v === 'number' ? v : v.time;
  };
  const gaps: CandleGap[] = [];
  for (let i = 1; i < n; i++) {
    const prev = at(i - 1);
    const cur = at(i);
    const missing = Math.round((cur - prev) / resolutionSec) - 1;
    if (missing > 0) gaps.push({ from: prev + resolutionSec, to: prev + missing * resolutionSec, missing });
  }
  return gaps;
}

/** findGaps of a typed time column: the same gaps, in the same order. */
function columnGaps(times: Float64Array, resolutionSec: number): CandleGap[] {
  const gaps: CandleGap[] = [];
  const n = times.length;
  if (n === 0) return gaps;
  let prev = times[0]!;
  for (let i = 1; i < n; i++) {
    const cur = times[i]!;
    // The next bar on time (almost every row) misses none: no division.
    if (cur - prev !== resolutionSec) {
      const missing = Math.round((cur - prev) / resolutionSec) - 1;
      if (missing > 0) gaps.push({ from: prev + resolutionSec, to: prev + missing * resolutionSec, missing });
    }
    prev = cur;
  }
  return gaps;
}

/** Totals of a gap list: number of gaps and of missing bars, and a histogram by gap length. */
export function summarizeGaps(gaps: readonly CandleGap[]): { gaps: number; missingBars: number; byLength: Map<number, number> } {
  const byLength = new Map<number, number>();
  let missingBars = 0;
  for (const g of gaps) {
    missingBars += g.missing;
    byLength.set(g.missing, (byLength.get(g.missing) ?? 0) + 1);
  }
  return { gaps: gaps.length, missingBars, byLength };
}
