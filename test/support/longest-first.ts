/**
 * The order vitest starts the test files in (vitest.config.ts `sequence.sequencer`): the longest
 * files first, so that the two workers finish together instead of one running a long file alone at
 * the end.
 *
 * vitest's own order (BaseSequencer) puts the longest first only from the durations of an earlier
 * run, kept in node_modules/.vite; a fresh checkout (CI: `npm ci`) has none, and vitest then starts
 * the largest files first, which put the longest one (install-readme, minutes of npm installs)
 * fifteenth. LONGEST names the longest files, longest first (measured in full runs of the suite);
 * they start before all the others, which keep vitest's order. A file missing from the list only
 * starts later, a name that matches no file changes nothing (test/support/longest-first.test.ts checks
 * each name is a test file).
 *
 * `--sequence.shuffle` still shuffles the files (vitest's RandomSequencer is not exported): with the
 * run's seed, so a shuffled run can be repeated.
 */

// Ordered by a full run at load 8-12 (maxWorkers 2, the machine shared): seconds in brackets.
export const LONGEST: readonly string[] = [
  'test/e2e/install-readme.test.ts', // 303
  'test/optimize/optimize-cli.test.ts', // 194
  'test/e2e/book-parity.test.ts', // 150
  'test/queue/sweep-queue.test.ts', // 141
  'test/package/install.test.ts', // 105
  'test/e2e/notifications.test.ts', // 80
  'test/e2e/live-start-faults.test.ts', // 68
  'test/queue/queue-edges.test.ts', // 61
  'test/sim/replay/derived.test.ts', // 58
  'test/e2e/strategies-restart.test.ts', // 52
  'test/e2e/docs-commands.test.ts', // 50
  'test/e2e/api-tokens.test.ts', // 49
  'test/backtest/bot-wide-parity.test.ts', // 47
  'test/backtest/sweep.test.ts', // 45
  'test/e2e/paper-run.test.ts',
  'test/e2e/optimize-constraints.test.ts',
];

/** `files` with those named in `longest` first, in its order; the others after them, in their order. */
export function longestFirst<T>(files: readonly T[], path: (f: T) => string, longest: readonly string[] = LONGEST): T[] {
  const rank = (f: T): number => {
    const i = longest.indexOf(path(f));
    return i === -1 ? longest.length : i;
  };
  // Array.prototype.sort is stable: the files outside the list keep their order.
  return [...files].sort((a, b) => rank(a) - rank(b));
}

/** A Fisher-Yates shuffle of `items` driven by `seed` (mulberry32). */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
