/** ChurnMap and ChurnSet (src/core/churn-map.ts) behave exactly as Map and Set while they move their entries. */
import { describe, expect, it } from 'vitest';
import { ChurnMap, ChurnSet } from '../../src/core/churn-map.js';

function lcg(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % n;
  };
}

describe('ChurnMap', () => {
  it('answers as a Map through 20,000 random sets, deletes and clears (the entries move dozens of times)', () => {
    const rnd = lcg(3);
    const model = new Map<string, number>();
    const m = new ChurnMap<string, number>();
    for (let i = 0; i < 20_000; i++) {
      const k = `k${rnd(300)}`;
      const op = rnd(100);
      if (op < 50) {
        expect(m.set(k, i)).toBe(m);
        model.set(k, i);
      } else if (op < 98) {
        expect(m.delete(k)).toBe(model.delete(k));
      } else if (op === 98) {
        m.clear();
        model.clear();
      }
      expect(m.size).toBe(model.size);
      expect(m.get(k)).toBe(model.get(k));
      expect(m.has(k)).toBe(model.has(k));
      if (i % 97 === 0) {
        expect([...m]).toEqual([...model]);
        expect([...m.keys()]).toEqual([...model.keys()]);
        expect([...m.values()]).toEqual([...model.values()]);
        expect([...m.entries()]).toEqual([...model.entries()]);
        const seen: [string, number][] = [];
        m.forEach((v, key, self) => {
          expect(self).toBe(m);
          seen.push([key, v]);
        });
        expect(seen).toEqual([...model]);
      }
    }
  });

  it('keeps insertion order across a move (a deleted key set again goes last)', () => {
    const m = new ChurnMap<number, string>();
    for (let i = 0; i < 200; i++) m.set(i, `v${i}`);
    for (let i = 0; i < 150; i++) m.delete(i);
    const inner = (x: ChurnMap<number, string>) => (x as unknown as { m: Map<number, string> }).m;
    const before = inner(m);
    m.set(10, 'again'); // 150 deletions > 64 and > 50 entries: the entries move to a fresh Map here
    expect(inner(m)).not.toBe(before);
    m.set(500, 'new');
    expect([...m.keys()]).toEqual([...Array.from({ length: 50 }, (_, i) => 150 + i), 10, 500]);
    expect(m.get(10)).toBe('again');
  });

  it('deleting while iterating visits every entry once, as a Map does', () => {
    const m = new ChurnMap<number, boolean>();
    for (let i = 0; i < 500; i++) m.set(i, i % 3 === 0);
    for (let i = 0; i < 200; i++) m.delete(i); // enough deletions to move at the next set
    const visited: number[] = [];
    for (const [k, keep] of m) {
      visited.push(k);
      if (!keep) m.delete(k);
    }
    expect(visited).toEqual(Array.from({ length: 300 }, (_, i) => 200 + i));
    expect([...m.keys()]).toEqual(visited.filter((k) => k % 3 === 0));
    expect(Object.prototype.toString.call(m)).toBe('[object ChurnMap]');
  });
});

describe('ChurnSet', () => {
  it('answers as a Set through 20,000 random adds, deletes and clears', () => {
    const rnd = lcg(11);
    const model = new Set<string>();
    const s = new ChurnSet<string>();
    for (let i = 0; i < 20_000; i++) {
      const k = `k${rnd(200)}`;
      const op = rnd(100);
      if (op < 50) {
        expect(s.add(k)).toBe(s);
        model.add(k);
      } else if (op < 99) {
        expect(s.delete(k)).toBe(model.delete(k));
      } else {
        s.clear();
        model.clear();
      }
      expect(s.size).toBe(model.size);
      expect(s.has(k)).toBe(model.has(k));
      if (i % 89 === 0) {
        expect([...s]).toEqual([...model]);
        expect([...s.values()]).toEqual([...model.values()]);
        expect([...s.keys()]).toEqual([...model.keys()]);
        expect([...s.entries()]).toEqual([...model.entries()]);
        const seen: string[] = [];
        s.forEach((v, v2, self) => {
          expect(v2).toBe(v);
          expect(self).toBe(s);
          seen.push(v);
        });
        expect(seen).toEqual([...model]);
      }
    }
  });
});
