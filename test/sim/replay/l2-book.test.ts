import { describe, expect, it } from 'vitest';
import { BookSide } from '../../../src/sim/replay/l2-book.js';
import { mulberry32 } from '../../../src/sim/replay/prng.js';

/** The side as a plain sorted list: what BookSide must answer. */
function reference(levels: Map<number, [string, string]>, descending: boolean, n: number): [string, string][] {
  return [...levels.entries()]
    .sort((a, b) => (descending ? b[0] - a[0] : a[0] - b[0]))
    .slice(0, n)
    .map(([, l]) => l);
}

describe('L2 BookSide', () => {
  for (const descending of [true, false]) {
    it(`${descending ? 'bids' : 'asks'}: random sets and removals give the sorted top, best first`, () => {
      const rnd = mulberry32(descending ? 7 : 11);
      const side = new BookSide(descending);
      const ref = new Map<number, [string, string]>();
      for (let i = 0; i < 5_000; i++) {
        const price = (100 + Math.floor(rnd() * 400) / 100).toFixed(i % 3 === 0 ? 8 : 2);
        const qty = rnd() < 0.3 ? '0.00000000' : (rnd() * 5).toFixed(5);
        side.set(price, qty);
        if (Number(qty) === 0) ref.delete(Number(price));
        else ref.set(Number(price), [price, qty]);
        if (i % 250 === 0) {
          expect(side.top(20)).toEqual(reference(ref, descending, 20));
          expect(side.size).toBe(ref.size);
          expect(side.best()).toBe(reference(ref, descending, 1)[0] ? Number(reference(ref, descending, 1)[0]![0]) : undefined);
        }
      }
      expect(side.top(1_000)).toEqual(reference(ref, descending, 1_000));
      const [p, q] = reference(ref, descending, 1)[0]!;
      expect(side.at(p)).toBe(q);
      side.clear();
      expect(side.top(5)).toEqual([]);
      expect(side.best()).toBeUndefined();
    });
  }

  it('a level that did not change is the same array in the next top; a changed one is new', () => {
    const side = new BookSide(true);
    side.set('10', '1');
    side.set('9', '2');
    const a = side.top(2);
    side.set('9', '3');
    const b = side.top(2);
    expect(b[0]).toBe(a[0]);
    expect(b[1]).toEqual(['9', '3']);
    expect(a[1]).toEqual(['9', '2']);
  });
});
