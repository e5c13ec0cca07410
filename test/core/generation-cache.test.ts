import { describe, expect, it } from 'vitest';
import { GenerationCache } from '../../src/core/generation-cache.js';

describe('GenerationCache', () => {
  it('holds at most its capacity however many keys pass through', () => {
    const cache = new GenerationCache<string, number>(1_000);
    let max = 0;
    for (let i = 0; i < 100_000; i++) {
      cache.set(`k${i}`, i);
      max = Math.max(max, cache.size);
    }
    expect(max).toBeLessThanOrEqual(1_000);
    expect(cache.get('k99999')).toBe(99_999);
    expect(cache.get('k0')).toBeUndefined();
  });

  it('keeps a value used within the last capacity/2 insertions across the turnover', () => {
    const cache = new GenerationCache<string, object>(1_000);
    const hot = {};
    cache.set('hot', hot);
    for (let i = 0; i < 100_000; i++) {
      if (cache.get(`k${i}`) === undefined) cache.set(`k${i}`, {});
      if (i % 400 === 0) expect(cache.get('hot')).toBe(hot);
    }
    expect(cache.size).toBeLessThanOrEqual(1_000);
  });

  it('drops a value not used for more than capacity insertions', () => {
    const cache = new GenerationCache<number, number>(10);
    cache.set(-1, -1);
    for (let i = 0; i < 10; i++) cache.set(i, i);
    expect(cache.get(-1)).toBeUndefined();
  });

  it('refuses a capacity that is not an integer >= 2, naming it', () => {
    expect(() => new GenerationCache(1)).toThrow(/capacity must be an integer >= 2, got 1/);
    expect(() => new GenerationCache(2.5)).toThrow(/got 2.5/);
  });

  it('clear empties both generations', () => {
    const cache = new GenerationCache<number, number>(4);
    for (let i = 0; i < 4; i++) cache.set(i, i);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.get(3)).toBeUndefined();
  });
});
