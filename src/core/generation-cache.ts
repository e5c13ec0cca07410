/**
 * A bounded memo for values that repeat in bursts (the prices and sizes of order-book levels): two
 * generations of at most `capacity / 2` entries each. A hit in the older generation copies the entry
 * into the newer one; when the newer one is full it becomes the older one and the previous older one
 * is dropped whole. So it never holds more than `capacity` entries, and a value used again within the
 * last `capacity / 2` insertions stays cached (the same instance) across the turnover, where a cache
 * that is cleared when full loses its hot entries along with the rest.
 *
 * Why bounded small: a paper bot on the replayed capture met ~400 new level strings a second, so the
 * earlier caches (cleared at 50,000 or 100,000 entries, ~300,000 entries in all) grew by ~8 MB a
 * minute of promoted Decimals, digit arrays and key strings until they were cleared: the bot's RSS
 * sawtooth between ~200 and ~430 MB (bench/soak.ts).
 */
export class GenerationCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly half: number;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 2) throw new RangeError(`capacity must be an integer >= 2, got ${capacity}`);
    this.half = capacity >> 1;
  }

  /** Entries held, both generations (a value promoted from the older one counts twice): at most `capacity`. */
  get size(): number {
    return this.young.size + this.old.size;
  }

  get(key: K): V | undefined {
    const v = this.young.get(key);
    if (v !== undefined) return v;
    const o = this.old.get(key);
    if (o !== undefined) this.set(key, o);
    return o;
  }

  set(key: K, value: V): void {
    if (this.young.size >= this.half) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }

  clear(): void {
    this.young = new Map();
    this.old = new Map();
  }
}
