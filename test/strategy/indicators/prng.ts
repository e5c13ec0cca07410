/** Deterministic PRNG (mulberry32) so property tests are reproducible. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random walk of n prices starting at `start`, relative steps of about ±`vol`. */
export function randomWalk(n: number, start: number, vol: number, seed: number): Float64Array {
  const rnd = mulberry32(seed);
  const out = new Float64Array(n);
  let p = start;
  for (let i = 0; i < n; i++) {
    p *= 1 + (rnd() - 0.5) * 2 * vol;
    out[i] = p;
  }
  return out;
}
