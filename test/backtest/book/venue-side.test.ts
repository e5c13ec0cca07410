/**
 * The book backtest's exchange side (src/backtest/book/venue-side.ts) reads frames as received, on
 * the market-data engine's tick book, and falls back to Decimal levels for a frame the tick book
 * refuses. Every answer must be the one of the plain reading: each frame's levels parsed to
 * Decimals, of a frame's levels at one price the last one with a quantity, zero quantities dropped.
 * Random frames (tick-aligned or not, numbers, strings or Decimals, extra zeros, exponents, repeated
 * prices, unsorted) are checked against that reading, and a frame with a value that is not a number is
 * refused, naming it, with the side left as it was.
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.js';
import type { RawLevel } from '../../../src/market/ports.js';
import { VenueBookSide } from '../../../src/backtest/book/venue-side.js';

/** A seeded generator (mulberry32): the same frames on every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The plain reading of a frame: its levels with a quantity by exact price, of one price the last one with a quantity. */
function reference(levels: readonly RawLevel[]): Map<string, Decimal> {
  const m = new Map<string, Decimal>();
  for (const l of levels) {
    const q = new Decimal(String(l.quantity));
    if (q.gt(0)) m.set(new Decimal(String(l.price)).toFixed(), q);
  }
  return m;
}

/** A price written one of the ways a frame may write it. */
function spell(r: () => number, ticks: number, scale: number): string | number | Decimal {
  const v = new Decimal(ticks).div(new Decimal(10).pow(scale));
  const k = r();
  if (k < 0.03) return v; // as a REST snapshot's parsed levels: the tick book reads them as doubles
  if (k < 0.2) return v.toNumber();
  if (k < 0.3) return v.toFixed(scale + 2); // trailing zeros
  if (k < 0.35) return v.toExponential(); // 6.25e+4: not a plain decimal
  return v.toFixed();
}

function frame(r: () => number, bid: boolean, scale: number): RawLevel[] {
  const n = Math.floor(r() * 12);
  const start = 600_000 + Math.floor(r() * 100);
  const out: RawLevel[] = [];
  let ticks = start;
  for (let i = 0; i < n; i++) {
    // Mostly sorted best first, sometimes a repeated or out-of-order price.
    const k = r();
    ticks = k < 0.08 ? ticks : k < 0.12 ? ticks + (bid ? 3 : -3) : ticks + (bid ? -1 : 1) * (1 + Math.floor(r() * 4));
    const qty = r() < 0.1 ? 0 : Math.floor(r() * 5000) / 1000;
    out.push({ price: spell(r, ticks, scale), quantity: r() < 0.5 ? qty : String(qty) });
  }
  return out;
}

describe('VenueBookSide', () => {
  it('answers every frame as its plain Decimal reading does', () => {
    const r = rng(7);
    for (const bid of [true, false]) {
      for (let scale = 0; scale <= 3; scale++) {
        // The side starts at the market's tick (0..2); frames may carry more decimals than it.
        const side = new VenueBookSide(bid, Math.min(scale, 2));
        for (let f = 0; f < 200; f++) {
          const levels = frame(r, bid, scale);
          expect(side.replace(levels, f)).toBeUndefined();
          const want = reference(levels);
          const sorted = [...want.entries()].sort((a, b) => (bid ? new Decimal(b[0]).cmp(a[0]) : new Decimal(a[0]).cmp(b[0])));
          expect(side.size).toBe(want.size);
          expect(side.sorted().map((l) => [l.price.toFixed(), l.quantity.toFixed()])).toEqual(sorted.map(([p, q]) => [p, q.toFixed()]));
          for (let i = 0; i < side.size; i++) expect(side.level(i).price.toFixed()).toBe(sorted[i]![0]);
          expect([...side.levels().keys()].sort()).toEqual([...want.keys()].sort());
          // Prices at levels, beside them, and with more decimals than any level.
          const probes = [...want.keys()].map((p) => new Decimal(p));
          for (let k = 0; k < 6; k++) probes.push(new Decimal(600_000 + Math.floor(r() * 120) - 60).div(new Decimal(10).pow(scale + (k % 3 === 0 ? 1 : 0))));
          for (const p of probes) {
            expect(side.quantityAt(p)?.toFixed()).toBe(want.get(p.toFixed())?.toFixed());
            const best = sorted[0] ? new Decimal(sorted[0][0]) : undefined;
            expect(side.bestVs(p)).toBe(best?.cmp(p));
          }
        }
      }
    }
  });

  it('refuses a frame with a value that is not a number, naming it, and keeps the side as it was', () => {
    const side = new VenueBookSide(true, 2);
    expect(side.replace([{ price: '100.5', quantity: '2' }], 1)).toBeUndefined();
    const why = side.replace(
      [
        { price: '100.6', quantity: '1' },
        { price: 'abc', quantity: '1' },
      ],
      2,
    );
    expect(why).toMatch(/depth\[1\]\.price/);
    expect(why).toMatch(/abc/);
    expect(side.sorted().map((l) => `${l.price.toFixed()} ${l.quantity.toFixed()}`)).toEqual(['100.5 2']);
    expect(side.replace([{ price: '100.7', quantity: '-1' }], 3)).toMatch(/depth\[0\]\.quantity/);
    expect(side.quantityAt(new Decimal('100.5'))?.toFixed()).toBe('2');
  });

  it('a per-level update changes that level and keeps the rest of the frame', () => {
    const side = new VenueBookSide(false, 2);
    side.replace(
      [
        { price: '101', quantity: '1' },
        { price: '102', quantity: '2' },
      ],
      1,
    );
    side.set(new Decimal('101.5'), new Decimal(3));
    side.set(new Decimal(101), new Decimal(0));
    expect(side.sorted().map((l) => `${l.price.toFixed()} ${l.quantity.toFixed()}`)).toEqual(['101.5 3', '102 2']);
    expect(side.bestVs(new Decimal('101.5'))).toBe(0);
    // The next frame replaces the side whole again.
    side.replace([{ price: '103', quantity: '1' }], 2);
    expect(side.sorted().map((l) => l.price.toFixed())).toEqual(['103']);
  });
});
