import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Decimal, d } from '../../../src/core/decimal.js';
import {
  constantRate,
  derivedSource,
  derivedTmnSource,
  hftSource,
  usdtTmnCandles,
  waveRate,
  type BookEvent,
  type DerivedMarket,
  type RawLevel,
  type ReplayEvent,
  type ReplaySource,
} from '../../../src/sim/replay/index.js';
import { DATA } from './helpers.js';

function listSource(symbol: string, events: ReplayEvent[]): ReplaySource {
  return {
    name: 'list',
    symbols: [symbol],
    resolutionSec: 60,
    events: () => events[Symbol.iterator](),
    candles: () => [{ time: 0, open: d('100.5'), high: d('101.25'), low: d('99.99'), close: d('100'), volume: d('2.5') }],
  };
}

function take(src: ReplaySource, n = Infinity): ReplayEvent[] {
  const out: ReplayEvent[] = [];
  const it = src.events();
  for (let r = it.next(); !r.done && out.length < n; r = it.next()) out.push(r.value);
  return out;
}

/**
 * All-Decimal reference of a derived side: the base levels' prices times `f`, rounded away from the
 * spread to `td` decimals, levels on one rounded price merged, quantities times `qf` floored to `sd`
 * decimals, empty levels dropped, the first `max` kept. The base side is in book order (checked:
 * bids falling, asks rising), so the rounding keeps each merged price's levels together and the
 * levels past the `max`-th merged price cannot change the first `max`: it stops there (the base
 * books have 1500 levels, the derived ones 50; converting all 1500 took most of this file's time).
 */
function reference(levels: readonly RawLevel[], f: Decimal, qf: Decimal, td: number, sd: number, bid: boolean, max = 50): RawLevel[] {
  const out: RawLevel[] = [];
  let price: string | undefined;
  let qty = d(0);
  const close = () => {
    if (price === undefined) return;
    const qq = qty.mul(qf).toDecimalPlaces(sd, Decimal.ROUND_FLOOR);
    if (qq.gt(0) && d(price).gt(0)) out.push([price, qq.toFixed()]);
  };
  for (let i = 1; i < levels.length; i++) {
    const [prev, p] = [Number(levels[i - 1]![0]), Number(levels[i]![0])];
    if (bid ? !(p < prev) : !(p > prev)) throw new Error(`reference: the base ${bid ? 'bids' : 'asks'} are not in book order at level ${i} (${prev}, ${p})`);
  }
  for (const [p, q] of levels) {
    const dp = d(p)
      .mul(f)
      .toDecimalPlaces(td, bid ? Decimal.ROUND_FLOOR : Decimal.ROUND_CEIL)
      .toFixed();
    if (dp !== price) {
      close();
      if (out.length === max) return out;
      price = dp;
      qty = d(0);
    }
    qty = qty.plus(d(q));
  }
  close();
  return out.slice(0, max);
}

describe('derived markets', () => {
  const base = listSource('BTCUSDT', [
    {
      kind: 'book',
      symbol: 'BTCUSDT',
      time: 1000,
      bids: [
        ['100.009', '1'],
        ['100.001', '2'],
        ['99.5', '0.0000001'],
      ],
      asks: [
        ['100.011', '1.5'],
        ['100.019', '0.25'],
      ],
    },
    { kind: 'trade', symbol: 'BTCUSDT', time: 1001, price: '100.011', quantity: '0.5', isBuyOrder: true },
    { kind: 'trade', symbol: 'BTCUSDT', time: 1002, price: '100.009', quantity: '0.00000001', isBuyOrder: false },
  ]);

  it('TMN: whole Toman, bids down and asks up, levels on one Toman merged, uncrossed', () => {
    const src = derivedTmnSource(base, constantRate(1000), { stepDecimals: { BTCTMN: 6 } });
    expect(src.symbols).toEqual(['BTCUSDT', 'BTCTMN']);
    const ev = take(src);
    const book = ev.find((e): e is BookEvent => e.kind === 'book' && e.symbol === 'BTCTMN')!;
    // 100009 and 100001 Toman; 99500 has 1e-7 BTC, below the 6-decimal step: dropped
    expect(book.bids).toEqual([
      ['100009', '1'],
      ['100001', '2'],
    ]);
    expect(book.asks).toEqual([
      ['100011', '1.5'],
      ['100019', '0.25'],
    ]);
    const trades = ev.filter((e) => e.kind === 'trade' && e.symbol === 'BTCTMN');
    expect(trades).toEqual([{ kind: 'trade', symbol: 'BTCTMN', time: 1001, price: '100011', quantity: '0.5', isBuyOrder: true }]);
  });

  it('a factor that merges levels adds their quantities; quantity factor keeps notional', () => {
    const m: DerivedMarket = { symbol: 'ETHUSDT', from: 'BTCUSDT', factor: () => d('0.1'), quantityFactor: () => d(10), tickDecimals: 2, stepDecimals: 4 };
    const ev = take(derivedSource(base, [m], { includeBase: false }));
    const book = ev[0] as BookEvent;
    expect(book.symbol).toBe('ETHUSDT');
    // 99.5 x 0.1 = 9.95 holds 1e-7 x 10 = 1e-6 ETH, below the 4-decimal step: dropped
    expect(book.bids).toEqual([['10', '30']]);
    expect(book.asks).toEqual([['10.01', '17.5']]);
    expect(ev[1]).toMatchObject({ symbol: 'ETHUSDT', price: '10.01', quantity: '5' });
    // sell of 1e-8 BTC is 1e-7 ETH: below the step, no print
    expect(ev).toHaveLength(2);
  });

  it('candles are the base bars times the factor at bar start', () => {
    const src = derivedTmnSource(base, constantRate(1000), { includeBase: false });
    expect(src.candles('BTCTMN').map((c) => [c.open, c.high, c.low, c.close, c.volume].map((x) => x.toFixed()))).toEqual([
      ['100500', '101250', '99990', '100000', '2.5'],
    ]);
    expect(() => derivedSource(base, [{ symbol: 'X', from: 'NOPE', factor: () => d(1), tickDecimals: 0, stepDecimals: 0 }])).toThrow(/NOPE/);
  });

  it('matches an all-Decimal reference on real BTCUSDT books (fast float path is exact)', () => {
    const hft = hftSource([join(DATA, 'hftbacktest/spot/btcusdt_20240808.gz')], { levels: 1500 });
    const ratio = d('0.0701394');
    const inv = d(1).div(ratio);
    const rate = waveRate({ base: 59000 });
    const markets: DerivedMarket[] = [
      { symbol: 'ETHUSDT', from: 'BTCUSDT', factor: () => ratio, quantityFactor: () => inv, tickDecimals: 2, stepDecimals: 4 },
      { symbol: 'BTCTMN', from: 'BTCUSDT', factor: rate, tickDecimals: 0, stepDecimals: 6 },
    ];
    const src = derivedSource(hft, markets, { baseLevels: 1500 });
    let base: BookEvent | undefined;
    let checked = 0;
    for (const e of take(src, 3000)) {
      if (e.kind !== 'book') continue;
      if (e.symbol === 'BTCUSDT') base = e;
      else {
        const m = markets.find((x) => x.symbol === e.symbol)!;
        const f = m.factor(e.time);
        const qf = m.quantityFactor ? m.quantityFactor(e.time) : d(1);
        expect(e.bids).toEqual(reference(base!.bids, f, qf, m.tickDecimals, m.stepDecimals, true));
        expect(e.asks).toEqual(reference(base!.asks, f, qf, m.tickDecimals, m.stepDecimals, false));
        expect(e.bids).toHaveLength(50);
        expect(Number(e.bids[0]![0])).toBeLessThan(Number(e.asks[0]![0]));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  }, 120_000);
});

describe('USDTTMN rate path', () => {
  it('is whole Toman, deterministic in time, and bars hold open/close inside high/low', () => {
    const r = waveRate({ base: 59000, amplitude: 0.002, periodMs: 3_600_000 });
    expect(r(0).toFixed()).toBe('59000');
    expect(r(900_000).toFixed()).toBe('59118');
    expect(r(2_700_000).toFixed()).toBe('58882');
    const bars = usdtTmnCandles(r, { fromSec: 0, toSec: 600, seed: 3 });
    expect(bars).toHaveLength(11);
    for (const b of bars) {
      expect(b.open.isInteger() && b.high.isInteger() && b.low.isInteger()).toBe(true);
      expect(b.high.gte(Decimal.max(b.open, b.close)) && b.low.lte(Decimal.min(b.open, b.close))).toBe(true);
      expect(b.volume.gt(0)).toBe(true);
    }
    expect(usdtTmnCandles(r, { fromSec: 0, toSec: 600, seed: 3 })).toEqual(bars);
  });
});
