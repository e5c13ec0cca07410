import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Decimal, d } from '../../src/core/decimal.js';
import { OrderBook } from '../../src/market/order-book.js';
import { decimalToNumber, parseDecimalString } from '../../src/market/fast-parse.js';
import type { RawLevel } from '../../src/market/ports.js';

const SAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/exchange-samples');

function capture(name: string): RawLevel[] {
  const [, levels] = JSON.parse(readFileSync(path.join(SAMPLES, name), 'utf8')) as [string, RawLevel[]];
  return levels;
}

function book(): OrderBook {
  const b = new OrderBook('BTCUSDT');
  // Stream shape: price strings, quantity numbers.
  b.applySide(
    'bid',
    [
      { price: '100.5', quantity: 1 },
      { price: '100.1', quantity: 2 },
      { price: '99', quantity: 3 },
    ],
    1000,
  );
  b.applySide(
    'ask',
    [
      { price: '101.5', quantity: 0.5 },
      { price: '102', quantity: 1.5 },
      { price: '110', quantity: 4 },
    ],
    1001,
  );
  return b;
}

describe('OrderBook', () => {
  it('applies the real 50-level capture of both sides and answers best, mid and spread exactly', () => {
    const b = new OrderBook('BTCUSDT');
    expect(b.applySide('bid', capture('ws_raw_buyDepth_capture_50levels_trimmed__pipeline-notes.json'), 5)).toBeUndefined();
    expect(b.applySide('ask', capture('ws_raw_sellDepth_capture_50levels_trimmed__pipeline-notes.json'), 6)).toBeUndefined();
    expect(b.bestBid()?.price.toString()).toBe('62525.04');
    expect(b.bestAsk()?.price.toString()).toBe('62579.56');
    expect(b.spread()?.toString()).toBe('54.52');
    expect(b.mid()?.toString()).toBe('62552.3');
    expect(b.spreadBps()?.toFixed(6)).toBe(d('54.52').mul(10000).div('62552.3').toFixed(6));
    expect(b.isCrossed()).toBe(false);
    expect(b.updatedAt).toBe(6);
  });

  it('keeps exact values where a float would not: exponent quantities and long decimal strings', () => {
    const b = new OrderBook('USDTTMN');
    b.applySide(
      'bid',
      [
        { price: '1018259534.0000000000000000', quantity: 1e-6 },
        { price: '0.1', quantity: '0.2' },
      ],
      1,
    );
    b.applySide('ask', [{ price: '1018259535.1', quantity: '3e-8' }], 1);
    expect(b.bestBid()?.quantity.toString()).toBe('0.000001');
    expect(b.levels('bid')[1]?.price.plus(b.levels('bid')[1]!.quantity).toString()).toBe('0.3');
    expect(b.spread()?.toString()).toBe('1.1');
    expect(b.walk('sell', '0.0000005').cost.toString()).toBe('509.129767');
  });

  it('walks the book for a base quantity: average price, cost, levels used, exhaustion', () => {
    const b = book();
    const buy = b.walk('buy', '1');
    expect(buy.filled.toString()).toBe('1');
    expect(buy.cost.toString()).toBe('101.75'); // 0.5 × 101.5 + 0.5 × 102
    expect(buy.averagePrice?.toString()).toBe('101.75');
    expect(buy.worstPrice?.toString()).toBe('102');
    expect(buy.levelsUsed).toBe(2);
    expect(buy.exhausted).toBe(false);

    const sell = b.walk('sell', '10');
    expect(sell.filled.toString()).toBe('6');
    expect(sell.cost.toString()).toBe('597.7'); // 100.5 + 200.2 + 297
    expect(sell.exhausted).toBe(true);
    expect(sell.levelsUsed).toBe(3);

    const none = b.walk('buy', 0);
    expect(none.averagePrice).toBeUndefined();
    expect(none.levelsUsed).toBe(0);
    expect(() => b.walk('buy', '-1')).toThrow(/quantity/);
    expect(() => b.walk('buy', 'lots')).toThrow(/quantity/);
  });

  it('walks the book for a quote amount', () => {
    const b = book();
    const r = b.walkQuote('buy', '101.75');
    expect(r.filled.toString()).toBe('1');
    expect(r.cost.toString()).toBe('101.75');
    expect(r.averagePrice?.toString()).toBe('101.75');
    expect(r.exhausted).toBe(false);
    const all = b.walkQuote('buy', '10000');
    expect(all.exhausted).toBe(true);
    expect(all.filled.toString()).toBe('6');
    expect(all.cost.toString()).toBe(d('50.75').plus('153').plus('440').toString());
    const sell = b.walkQuote('sell', '50.25');
    expect(sell.filled.toString()).toBe('0.5');
  });

  it('reports depth within a band around the mid, and imbalance', () => {
    const b = book(); // mid 101
    const band = b.depthWithin('1'); // [99.99, 102.01]
    expect(band?.mid.toString()).toBe('101');
    expect(band?.low.toString()).toBe('99.99');
    expect(band?.high.toString()).toBe('102.01');
    expect(band?.bid.quantity.toString()).toBe('3');
    expect(band?.bid.notional.toString()).toBe('300.7');
    expect(band?.bid.levels).toBe(2);
    expect(band?.ask.quantity.toString()).toBe('2');
    expect(band?.ask.notional.toString()).toBe('203.75');
    expect(b.imbalance(2)?.toString()).toBe('0.2'); // (3 − 2) / 5
    expect(b.imbalance(3)?.toString()).toBe(d(6 - 6).toString());
    expect(new OrderBook('X').imbalance()).toBeUndefined();
    expect(new OrderBook('X').depthWithin(1)).toBeUndefined();
  });

  it('refuses unsorted and malformed sides and keeps the previous levels', () => {
    const b = book();
    const unsorted = b.applySide(
      'bid',
      [
        { price: '99', quantity: 1 },
        { price: '100', quantity: 1 },
      ],
      2000,
    );
    expect(unsorted?.problem).toBe('unsorted');
    expect(unsorted?.index).toBe(1);
    const dup = b.applySide(
      'ask',
      [
        { price: '101', quantity: 1 },
        { price: '101', quantity: 1 },
      ],
      2000,
    );
    expect(dup?.problem).toBe('unsorted');
    for (const bad of [
      { price: 'abc', quantity: 1 },
      { price: '0x10', quantity: 1 },
      { price: '-1', quantity: 1 },
      { price: '1', quantity: -2 },
      { price: '', quantity: 1 },
      { price: '1', quantity: Number.NaN },
    ]) {
      expect(b.applySide('bid', [bad as RawLevel], 2000)?.problem).toBe('malformed');
    }
    expect(b.applySide('bid', [null as unknown as RawLevel], 2000)?.problem).toBe('malformed');
    expect(b.bestBid()?.price.toString()).toBe('100.5');
    expect(b.bids.updatedAt).toBe(1000);
  });

  it('skips zero-quantity levels, accepts an empty side and detects a crossed book', () => {
    const b = book();
    b.applySide(
      'bid',
      [
        { price: '105', quantity: 0 },
        { price: '101.6', quantity: 1 },
      ],
      3000,
    );
    expect(b.bids.n).toBe(1);
    expect(b.isCrossed()).toBe(true);
    b.applySide('bid', [], 3001);
    expect(b.isCrossed()).toBe(false);
    expect(b.mid()).toBeUndefined();
    expect(Number.isNaN(b.bestBidNumber())).toBe(true);
    expect(b.bestAskNumber()).toBe(101.5);
  });

  it('accepts Decimal levels (an adapter that already parsed) and reuses its buffers safely', () => {
    const b = new OrderBook('X');
    for (let i = 0; i < 200; i++) {
      const levels = Array.from({ length: 1 + (i % 120) }, (_, k) => ({ price: d(1000 - k - i / 1000), quantity: d('0.1') }));
      expect(b.applySide('bid', levels, i)).toBeUndefined();
      expect(b.bids.n).toBe(levels.length);
      expect(b.levels('bid').at(-1)?.price.toString()).toBe(levels.at(-1)?.price.toString());
    }
  });
});

describe('parseDecimalString', () => {
  it('gives the same double as Number() for plain decimals and NaN for junk', () => {
    for (const s of [
      '62525.04',
      '1018259534.0000000000000000',
      '0.000451',
      '1e-06',
      '0E-8',
      '.5',
      '5.',
      ' 12',
      '-3',
      '12345678901234567890.5',
      '0.1',
      '9007199254740993',
      '123.4560000',
    ]) {
      expect(parseDecimalString(s)).toBe(Number(s));
    }
    for (const s of ['', 'abc', '0x10', '1.2.3', 'Infinity', '1,5']) expect(parseDecimalString(s)).toBeNaN();
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 20000; i++) {
      const s = (rnd() * 10 ** Math.floor(rnd() * 12)).toFixed(Math.floor(rnd() * 10));
      expect(parseDecimalString(s)).toBe(Number(s));
    }
  });
});

describe('decimalToNumber', () => {
  it('gives the same double as Number(string) for Decimals of every size and sign', () => {
    for (const s of [
      '0',
      '62525.04',
      '-3.5',
      '1e-06',
      '1018259534.0000000000000000',
      '123456789012345678901234.5',
      '1e30',
      '1e-30',
      '9007199254740993',
      '0.1',
      '100000000000000000000',
      '12345678901234567',
    ]) {
      expect(decimalToNumber(new Decimal(s))).toBe(Number(s));
    }
    expect(decimalToNumber(new Decimal(NaN))).toBeNaN();
    expect(decimalToNumber(new Decimal(Infinity))).toBe(Infinity);
    let seed = 3;
    const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let i = 0; i < 20000; i++) {
      const s = (rnd() * 10 ** Math.floor(rnd() * 14 - 4)).toFixed(Math.floor(rnd() * 12)) + (i % 3 === 0 ? 'e-7' : '');
      expect(decimalToNumber(new Decimal(s))).toBe(Number(s));
    }
  });
});
