/**
 * Exactness of the tick representation of book sides (src/market/book-side.ts): for random plain
 * price strings and the real captured payloads, the tick-parsed side equals the Decimal-parsed side
 * level for level; for random sides with malformed, signed, exponent or unsorted prices, `replace`
 * gives exactly what the float64 parser gave before ticks (the oracle below is that parser's loop).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Decimal, toDecimal } from '../../src/core/decimal.js';
import { BookSideLevels, type SideRejection } from '../../src/market/book-side.js';
import { parseDecimalString, parseTicks } from '../../src/market/fast-parse.js';
import { OrderBook } from '../../src/market/order-book.js';
import type { RawLevel } from '../../src/market/ports.js';
import { mulberry32 } from '../../src/sim/replay/prng.js';

const SAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/exchange-samples');

/** Deterministic PRNG (the simulator's mulberry32) so a failure replays. */
const rng = mulberry32;

/** A random plain decimal spelling of a positive price: 1–12 integer digits, 0–10 decimals, zeros. */
function plainPrice(r: () => number, maxInt = 12, maxDec = 10): string {
  const intDigits = 1 + Math.floor(r() * maxInt);
  let s = String(1 + Math.floor(r() * 9));
  for (let i = 1; i < intDigits; i++) s += String(Math.floor(r() * 10));
  if (r() < 0.15) s = '0';
  const dec = Math.floor(r() * (maxDec + 1));
  if (dec > 0 || r() < 0.1) {
    s += '.';
    for (let i = 0; i < dec; i++) s += String(Math.floor(r() * 10));
    if (r() < 0.3) s += '0'.repeat(1 + Math.floor(r() * 12)); // "…0000000000000000" as REST sends
    if (s.endsWith('.') && s.startsWith('0')) s += '1';
  }
  if (/^0(\.0*)?$/.test(s)) s = '0.5';
  return s;
}

/** The side as exact Decimals, parsed one by one with decimal.js (quantity 0 skipped). */
function decimalSide(levels: RawLevel[]): { price: string; quantity: string }[] {
  return levels
    .map((l) => ({ price: toDecimal(l.price), quantity: toDecimal(l.quantity) }))
    .filter((l) => !l.quantity.isZero())
    .map((l) => ({ price: l.price.toString(), quantity: l.quantity.toString() }));
}

function sideOf(s: BookSideLevels): { price: string; quantity: string }[] {
  const out = [];
  for (let i = 0; i < s.n; i++) out.push({ price: s.price(i).toString(), quantity: s.quantity(i).toString() });
  return out;
}

/** The float64 loop of `replace` as it was before ticks: what every side must still be judged by. */
function oracle(levels: RawLevel[], bid: boolean): SideRejection | undefined {
  const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' ? parseDecimalString(v) : NaN);
  let prev = bid ? Infinity : -Infinity;
  for (let i = 0; i < levels.length; i++) {
    const l = levels[i];
    if (l === null || typeof l !== 'object') return { problem: 'malformed', index: i, detail: 'level is not an object' };
    const p = num(l.price);
    const q = num(l.quantity);
    if (!(p > 0) || p === Infinity) return { problem: 'malformed', index: i, detail: `price ${String(l.price)}` };
    if (!(q >= 0) || q === Infinity) return { problem: 'malformed', index: i, detail: `quantity ${String(l.quantity)}` };
    if (q === 0) continue;
    if (bid ? p >= prev : p <= prev) return { problem: 'unsorted', index: i, detail: `price ${String(l.price)} after ${prev}` };
    prev = p;
  }
  return undefined;
}

function sortedSide(r: () => number, n: number, bid: boolean, maxInt = 12, maxDec = 10): RawLevel[] {
  const prices = [...new Set(Array.from({ length: n }, () => plainPrice(r, maxInt, maxDec)))];
  prices.sort((a, b) => new Decimal(a).cmp(new Decimal(b)) * (bid ? -1 : 1));
  const unique = prices.filter((p, i) => i === 0 || !new Decimal(p).eq(new Decimal(prices[i - 1] as string)));
  return unique.map((price, i) => ({ price, quantity: i % 7 === 3 ? 0 : Number((r() * 10).toFixed(6)) }));
}

describe('book side ticks', () => {
  it('parseTicks is exact: ticks × 10^−scale is the decimal the string spells, or −1', () => {
    const r = rng(7);
    for (let k = 0; k < 20_000; k++) {
      const s = plainPrice(r);
      const scale = Math.floor(r() * 12);
      const t = parseTicks(s, scale);
      const exact = new Decimal(s).mul(new Decimal(10).pow(scale));
      if (t >= 0) expect(new Decimal(t).eq(exact), `${s} at ${scale}`).toBe(true);
      else expect(!exact.isInteger() || exact.gt(Number.MAX_SAFE_INTEGER), `${s} at ${scale} refused`).toBe(true);
    }
    for (const junk of ['', '.', '-1', '+1', ' 1', '1 ', '1e3', '1.2.3', 'abc', '0x10', '١٢']) expect(parseTicks(junk, 2)).toBe(-1);
  });

  it('parseTicks edge cases: leading zeros, no fraction, decimals past the scale, exponents, junk, long numbers', () => {
    const cases: [string, number, number][] = [
      // Leading zeros and no fraction.
      ['0062525.04', 2, 6252504],
      ['007', 0, 7],
      ['00.50', 2, 50],
      ['0', 2, 0],
      ['0.00', 2, 0],
      ['62525', 2, 6252500],
      ['62525.', 2, 6252500],
      ['62525.', 0, 62525],
      ['.5', 2, 50],
      ['.05', 2, 5],
      ['5', 18, -1], // 5 × 10^18 ticks pass 2^53
      ['0.1', 0, -1],
      // Fewer, as many and more decimals than the scale: past it only zeros may follow.
      ['62525.4', 2, 6252540],
      ['.04', 2, 4],
      ['0.05', 2, 5],
      ['62525.04', 2, 6252504],
      ['62525.0400', 2, 6252504],
      ['62525.041', 2, -1],
      ['62525.04000000000000000001', 2, -1],
      ['1018259534.0000000000000000', 2, 101825953400],
      ['1018259534.0000000000000000', 0, 1018259534],
      ['5.' + '0'.repeat(40), 15, 5e15],
      ['0.' + '0'.repeat(17) + '1', 18, 1],
      ['0.' + '0'.repeat(18) + '1', 18, -1],
      ['0.' + '0'.repeat(40), 3, 0],
      // Exponent forms, signs, spaces and other junk: not plain.
      ['6.25e4', 2, -1],
      ['1E2', 0, -1],
      ['1e-2', 2, -1],
      ['-1', 2, -1],
      ['+1', 2, -1],
      ['-0', 2, -1],
      [' 1', 2, -1],
      ['1 ', 2, -1],
      ['1.2.3', 2, -1],
      ['1..2', 2, -1],
      ['..', 2, -1],
      ['abc', 2, -1],
      ['0x10', 2, -1],
      ['1_000', 0, -1],
      ['Infinity', 2, -1],
      ['NaN', 2, -1],
      ['１', 0, -1], // fullwidth digit
      ['١٢', 0, -1], // Arabic-Indic digits
      // Junk where the stream's shape ("<digits>.<scale digits>") is otherwise met.
      ['62a25.04', 2, -1],
      ['62525.0a', 2, -1],
      ['6.525.04', 2, -1],
      ['62525.-4', 2, -1],
      ['-2525.04', 2, -1],
      ['62525.0٤', 2, -1],
      ['12a', 0, -1],
      ['12.0a', 0, -1],
      ['12.0a', 2, -1],
      ['', 2, -1],
      ['', 0, -1],
      ['.', 2, -1],
      ['.', 0, -1],
      // Very long numbers: exact up to 2^53 − 1 ticks, refused past it.
      ['9007199254740991', 0, 9007199254740991],
      ['9007199254740992', 0, -1],
      ['9007199254740993.000', 0, -1],
      ['90071992547409.91', 2, 9007199254740991],
      ['90071992547409.92', 2, -1],
      ['900719925474099.1', 2, -1],
      ['9007199254740.991', 3, 9007199254740991],
      ['9007199254740.991', 4, -1],
      ['0'.repeat(40) + '5', 2, 500],
      ['1'.repeat(40), 0, -1],
      ['1'.repeat(40) + '.0', 0, -1],
      ['1'.repeat(400), 2, -1],
    ];
    for (const [s, scale, want] of cases) expect(parseTicks(s, scale), `${JSON.stringify(s)} at ${scale}`).toBe(want);
  });

  it('parseTicks agrees with decimal.js on random strings of digits, dots and junk at every scale', () => {
    const r = rng(99);
    const alphabet = '0123456789000.....-+eE x';
    let accepted = 0;
    for (let k = 0; k < 30_000; k++) {
      const len = Math.floor(r() * (k % 10 === 0 ? 30 : 12));
      let s = '';
      for (let i = 0; i < len; i++) s += alphabet[Math.floor(r() * (k % 3 === 0 ? 11 : alphabet.length))];
      const scale = Math.floor(r() * 19);
      const t = parseTicks(s, scale);
      const plain = /^(\d+\.?\d*|\.\d+)$/.test(s);
      const exact = plain ? new Decimal(s).mul(new Decimal(10).pow(scale)) : undefined;
      if (exact === undefined || !exact.isInteger() || exact.gt(Number.MAX_SAFE_INTEGER)) {
        expect(t, `${JSON.stringify(s)} at ${scale}`).toBe(-1);
      } else {
        expect(t, `${JSON.stringify(s)} at ${scale}`).toBe(exact.toNumber());
        accepted++;
      }
    }
    expect(accepted).toBeGreaterThan(5000);
    // The stream's shape, "<digits>.<scale digits>", at its own scale and others, one character
    // sometimes replaced by junk.
    for (let k = 0; k < 20_000; k++) {
      let s = '';
      for (let i = Math.floor(r() * 18); i > 0; i--) s += String(Math.floor(r() * 10));
      const decimals = 1 + Math.floor(r() * 18);
      s += '.';
      for (let i = 0; i < decimals; i++) s += String(Math.floor(r() * 10));
      if (k % 4 === 0) {
        const at = Math.floor(r() * s.length);
        s = s.slice(0, at) + (alphabet[Math.floor(r() * alphabet.length)] as string) + s.slice(at + 1);
      }
      const scale = k % 3 === 0 ? Math.floor(r() * 19) : decimals;
      const plain = /^(\d+\.?\d*|\.\d+)$/.test(s);
      const exact = plain ? new Decimal(s).mul(new Decimal(10).pow(scale)) : undefined;
      const want = exact === undefined || !exact.isInteger() || exact.gt(Number.MAX_SAFE_INTEGER) ? -1 : exact.toNumber();
      expect(parseTicks(s, scale), `${JSON.stringify(s)} at ${scale}`).toBe(want);
    }
  });

  it('a tick-parsed side equals the Decimal-parsed side level for level, for random plain prices', () => {
    const r = rng(42);
    let ticked = 0;
    for (let k = 0; k < 400; k++) {
      const bid = k % 2 === 0;
      // Most sides shaped like a market's (≤ 7 integer digits, ≤ 8 decimals), some as wide as anything.
      const levels = k % 4 === 0 ? sortedSide(r, 1 + Math.floor(r() * 60), bid) : sortedSide(r, 1 + Math.floor(r() * 60), bid, 7, 8);
      const s = new BookSideLevels(bid ? 'bid' : 'ask', Math.floor(r() * 4));
      expect(s.replace(levels, k)).toBeUndefined();
      // Held as ticks unless a price needs more than 2^53 ticks at the side's largest scale.
      const scale = Math.max(...levels.map((l) => new Decimal(l.price as string).decimalPlaces()));
      const fits = levels.every((l) => new Decimal(l.price as string).mul(new Decimal(10).pow(scale)).lte(Number.MAX_SAFE_INTEGER));
      if (fits) expect(s.scale).toBeGreaterThanOrEqual(scale);
      else expect(s.scale).toBe(-1);
      if (fits) ticked++;
      expect(sideOf(s)).toEqual(decimalSide(levels));
      for (let i = 0; i < s.n; i++) expect(s.priceNumber(i)).toBe(parseDecimalString(s.price(i).toString()));
    }
    expect(ticked).toBeGreaterThan(250);
  });

  it('the real captured 50-level payloads parse to the same levels as decimal.js gives', () => {
    for (const [name, side] of [
      ['ws_raw_buyDepth_capture_50levels_trimmed__pipeline-notes.json', 'bid'],
      ['ws_raw_sellDepth_capture_50levels_trimmed__pipeline-notes.json', 'ask'],
    ] as const) {
      const [, levels] = JSON.parse(readFileSync(path.join(SAMPLES, name), 'utf8')) as [string, RawLevel[]];
      const s = new BookSideLevels(side);
      expect(s.replace(levels, 1)).toBeUndefined();
      expect(s.scale).toBe(2);
      expect(sideOf(s)).toEqual(decimalSide(levels));
    }
  });

  it('refuses or accepts every random side exactly as the float64 parser did, with the same detail', () => {
    const r = rng(2026);
    const bad = ['-5', '+62525.04', ' 62525.04', '6.25e4', '0', '0.000', 'NaN', '', 'abc', '1.2.3', null, 5e-7, Infinity];
    let refused = 0;
    for (let k = 0; k < 3000; k++) {
      const bid = k % 2 === 1;
      const levels: RawLevel[] = sortedSide(r, 2 + Math.floor(r() * 20), bid);
      const i = Math.floor(r() * levels.length);
      const what = r();
      if (what < 0.4) levels[i] = { price: bad[Math.floor(r() * bad.length)] as string, quantity: 1 };
      else if (what < 0.55) levels[i] = { price: levels[i]!.price, quantity: r() < 0.5 ? '-1' : 'x' };
      else if (what < 0.7 && levels.length > 1) [levels[0], levels[i]] = [levels[i]!, levels[0]!];
      else if (what < 0.75) (levels as unknown[])[i] = null;
      const s = new BookSideLevels(bid ? 'bid' : 'ask');
      const want = oracle(levels, bid);
      expect(s.replace(levels, k), JSON.stringify(levels)).toEqual(want);
      if (want) refused++;
      else expect(sideOf(s)).toEqual(decimalSide(levels));
    }
    expect(refused).toBeGreaterThan(500);
  });

  it('grows the scale for a price with more decimals and keeps the old levels when a side is refused', () => {
    const s = new BookSideLevels('ask', 2);
    expect(
      s.replace(
        [
          { price: '10.25', quantity: 1 },
          { price: '10.3', quantity: 1 },
        ],
        1,
      ),
    ).toBeUndefined();
    expect(s.scale).toBe(2);
    expect(
      s.replace(
        [
          { price: '10.25', quantity: 1 },
          { price: '10.2501', quantity: 2 },
        ],
        2,
      ),
    ).toBeUndefined();
    expect(s.scale).toBe(4);
    expect(s.price(1).toString()).toBe('10.2501');
    expect(
      s.replace(
        [
          { price: '11', quantity: 1 },
          { price: '10.99999', quantity: 1 },
        ],
        3,
      ),
    ).toEqual({
      problem: 'unsorted',
      index: 1,
      detail: 'price 10.99999 after 11',
    });
    expect(sideOf(s)).toEqual([
      { price: '10.25', quantity: '1' },
      { price: '10.2501', quantity: '2' },
    ]);
    expect(s.scale).toBe(4);
    // A signed price is still accepted as before, through the float64 path.
    expect(s.replace([{ price: '+12', quantity: 1 }], 4)).toBeUndefined();
    expect(s.scale).toBe(-1);
    expect(s.price(0).toString()).toBe('12');
    expect(() => new BookSideLevels('bid', 19)).toThrow(/priceDecimals must be an integer from 0 to 18, got 19/);
  });

  it('answers exact quantities given as numbers, strings and Decimals, alone or mixed in a side', () => {
    const s = new BookSideLevels('ask', 2);
    const check = (levels: RawLevel[]): void => {
      expect(s.replace(levels, 1)).toBeUndefined();
      expect(sideOf(s)).toEqual(decimalSide(levels));
    };
    // Numbers only: each exact Decimal is made from the double, the same number as given.
    check([
      { price: '1.01', quantity: 0.1 },
      { price: '1.02', quantity: 1e-7 },
      { price: '1.03', quantity: 123456789.123 },
    ]);
    // Numbers, then a string (the numbers before it stay exact), then numbers again.
    check([
      { price: '1.01', quantity: 0.3 },
      { price: '1.02', quantity: 0 },
      { price: '1.03', quantity: 2.5 },
      { price: '1.04', quantity: '0.30000000000000000001' },
      { price: '1.05', quantity: 7 },
      { price: '1.06', quantity: new Decimal('1e-30') },
    ]);
    // A string quantity before a price that grows the scale (the side is parsed again from its start).
    check([
      { price: '1.01', quantity: '0.1' },
      { price: '1.02', quantity: 0.2 },
      { price: '1.0201', quantity: 0.7 },
      { price: '1.03', quantity: '5' },
    ]);
    expect(s.scale).toBe(4);
    // Back to numbers only: the kept strings of the previous side are not read.
    check([
      { price: '2.5', quantity: 0.25 },
      { price: '2.6', quantity: 3 },
    ]);
    // The float64 path keeps every quantity as given.
    check([
      { price: '+3', quantity: 0.5 },
      { price: '3.5e0', quantity: '0.75' },
    ]);
    expect(s.scale).toBe(-1);
    // A refused side leaves the quantities of the current one as they were.
    expect(s.replace([{ price: '4', quantity: 'x' }], 2)).toEqual({ problem: 'malformed', index: 0, detail: 'quantity x' });
    expect(sideOf(s)).toEqual([
      { price: '3', quantity: '0.5' },
      { price: '3.5', quantity: '0.75' },
    ]);
  });

  it('compares the best bid and ask exactly across sides of different scales and paths', () => {
    const b = new OrderBook('BTCUSDT');
    b.applySide('bid', [{ price: '100.25', quantity: 1 }], 1);
    b.applySide('ask', [{ price: '100.3', quantity: 1 }], 2);
    expect(b.isCrossed()).toBe(false);
    b.applySide('ask', [{ price: '100.250', quantity: 1 }], 3);
    expect(b.isCrossed()).toBe(true);
    b.applySide('ask', [{ price: '1.0025e2', quantity: 1 }], 4); // float64 path on this side only
    expect(b.isCrossed()).toBe(true);
    expect(b.bestAskNumber()).toBe(100.25);
    expect(b.bestBidNumber()).toBe(100.25);
    expect(b.spread()?.toString()).toBe('0');
  });
});
