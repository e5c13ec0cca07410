/** Sets of inclusive integer ranges [from, to] (Unix seconds): merge, subtract, compress. */
export type Range = readonly [number, number];

/** Sorted, merged copy (adjacent ranges, like [0, 9] and [10, 20], are joined). */
export function mergeRanges(ranges: readonly Range[]): Range[] {
  const sorted = ranges.filter(([a, b]) => a <= b).sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = out.at(-1);
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** The parts of `want` not covered by `covered` (which must be merged). */
export function subtractRanges(want: Range, covered: readonly Range[]): Range[] {
  const out: Range[] = [];
  let cursor = want[0];
  for (const [a, b] of covered) {
    if (b < cursor) continue;
    if (a > want[1]) break;
    if (a > cursor) out.push([cursor, Math.min(a - 1, want[1])]);
    cursor = Math.max(cursor, b + 1);
    if (cursor > want[1]) break;
  }
  if (cursor <= want[1]) out.push([cursor, want[1]]);
  return out;
}

/** Compress sorted times on a `step` grid into ranges of consecutive times. */
export function timesToRanges(times: readonly number[], step: number): Range[] {
  const out: [number, number][] = [];
  for (const t of times) {
    const last = out.at(-1);
    if (last && t === last[1] + step) last[1] = t;
    else out.push([t, t]);
  }
  return out;
}
