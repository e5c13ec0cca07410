import { describe, it, expect } from 'vitest';
import { ParameterError } from '../../../src/core/errors.js';
import { randomWalk } from './prng.js';
import {
  Ema,
  Rma,
  Sma,
  Rsi,
  Atr,
  TrueRange,
  Macd,
  Stochastic,
  SessionVwap,
  RollingVwap,
  Wma,
  RollingStdDev,
  BollingerBands,
} from '../../../src/strategy/indicators/index.js';

describe('EMA seeding conventions', () => {
  it("'sma' (default): NaN for period-1 inputs, then the SMA, then x*alpha + prev*(1-alpha)", () => {
    const e = new Ema(3); // alpha = 0.5
    expect(Number.isNaN(e.update(1))).toBe(true);
    expect(Number.isNaN(e.update(2))).toBe(true);
    expect(e.ready).toBe(false);
    expect(e.update(3)).toBe(2); // (1+2+3)/3
    expect(e.ready).toBe(true);
    expect(e.update(6)).toBe(4); // 2 + 0.5*(6-2)
  });

  it("'first': seeded with the first input, defined from the first update", () => {
    const e = new Ema(3, { seed: 'first' });
    expect(e.update(1)).toBe(1);
    expect(e.ready).toBe(true);
    expect(e.update(3)).toBe(2); // 1 + 0.5*(3-1)
    expect(e.update(6)).toBe(4);
  });

  it('RMA uses alpha = 1/period', () => {
    const r = new Rma(2);
    r.update(2);
    expect(r.update(4)).toBe(3);
    expect(r.update(7)).toBe(5); // 3 + (7-3)/2
    expect(r.alpha).toBe(0.5);
  });
});

describe('RSI (Wilder)', () => {
  it('period 2 by hand: closes 10, 11, 10.5, 12', () => {
    // changes +1, -0.5, +1.5; seed: avgGain (1+0)/2 = 0.5, avgLoss (0+0.5)/2 = 0.25 -> RSI 100 - 100/3
    // next: avgGain (0.5*1 + 1.5)/2 = 1, avgLoss (0.25*1 + 0)/2 = 0.125 -> RS 8 -> RSI 100 - 100/9
    const r = new Rsi(2);
    expect(Number.isNaN(r.update(10))).toBe(true);
    expect(Number.isNaN(r.update(11))).toBe(true);
    expect(r.update(10.5)).toBeCloseTo(100 - 100 / 3, 12);
    expect(r.update(12)).toBeCloseTo(100 - 100 / 9, 12);
  });

  it('only gains -> 100, flat -> 50', () => {
    const up = new Rsi(3);
    for (const x of [1, 2, 3, 4, 5]) up.update(x);
    expect(up.value).toBe(100);
    const flat = new Rsi(3);
    for (let i = 0; i < 5; i++) flat.update(7);
    expect(flat.value).toBe(50);
  });
});

describe('ATR', () => {
  it('Wilder ATR(2) by hand', () => {
    // bars (h,l,c): (10,8,9) (11,9,10) (12,9.5,11) (11.5,10,10.5)
    // TR: -, max(2,|11-9|,|9-9|)=2, max(2.5,|12-10|,|9.5-10|)=2.5, max(1.5,|11.5-11|,|10-11|)=1.5
    // ATR: seed (2+2.5)/2 = 2.25, then (2.25*1 + 1.5)/2 = 1.875
    const a = new Atr(2);
    expect(Number.isNaN(a.update(10, 8, 9))).toBe(true);
    expect(Number.isNaN(a.update(11, 9, 10))).toBe(true);
    expect(a.update(12, 9.5, 11)).toBe(2.25);
    expect(a.update(11.5, 10, 10.5)).toBe(1.875);
    expect(a.trueRange).toBe(1.5);
  });

  it('gap up: TR uses the previous close', () => {
    const tr = new TrueRange();
    tr.update(10, 9, 9.5);
    expect(tr.update(15, 14, 14.5)).toBe(5.5); // |15 - 9.5|
  });

  it('rejects high < low and NaN inputs with the field name', () => {
    const a = new Atr(3);
    expect(() => a.update(9, 10, 9.5)).toThrow(ParameterError);
    expect(() => a.update(9, 10, 9.5)).toThrow(/high/);
    expect(() => a.update(10, 9, NaN)).toThrow(/invalid close: "NaN"/);
    expect(() => new Atr(3, { smoothing: 'median' as never })).toThrow(/smoothing/);
  });
});

describe('MACD', () => {
  it('macd = EMA12 - EMA26; signal = EMA9 of macd; ready from input 33', () => {
    const xs = randomWalk(300, 100, 0.02, 1);
    const m = new Macd();
    const f = new Ema(12);
    const s = new Ema(26);
    const sig = new Ema(9);
    for (let i = 0; i < xs.length; i++) {
      m.update(xs[i]!);
      const d = f.update(xs[i]!) - s.update(xs[i]!);
      const g = s.ready ? sig.update(d) : NaN;
      expect(m.ready).toBe(i >= 33);
      if (i >= 25) expect(m.macd).toBeCloseTo(d, 10);
      if (i >= 33) {
        expect(m.signal).toBeCloseTo(g, 10);
        expect(m.histogram).toBeCloseTo(d - g, 10);
      }
    }
    expect(() => new Macd({ fast: 26, slow: 12 })).toThrow(/fast/);
  });
});

describe('Stochastic', () => {
  it('K by hand, %D the SMA of K, flat range gives 50', () => {
    const s = new Stochastic({ kPeriod: 2, dPeriod: 2 });
    expect(Number.isNaN(s.update(10, 8, 9))).toBe(true);
    expect(s.update(12, 9, 11)).toBe(75); // (11-8)/(12-8)
    expect(s.ready).toBe(false);
    expect(s.update(13, 11, 11)).toBe(50); // (11-9)/(13-9)
    expect(s.d).toBe(62.5);
    const flat = new Stochastic({ kPeriod: 3, dPeriod: 1 });
    for (let i = 0; i < 3; i++) flat.update(5, 5, 5);
    expect(flat.k).toBe(50);
  });

  it('slow stochastic: smoothK = 3 averages raw %K', () => {
    const fast = new Stochastic({ kPeriod: 5, dPeriod: 1 });
    const slow = new Stochastic({ kPeriod: 5, dPeriod: 3, smoothK: 3 });
    const raw: number[] = [];
    const xs = randomWalk(100, 50, 0.03, 9);
    for (let i = 0; i < xs.length; i++) {
      const c = xs[i]!;
      fast.update(c * 1.01, c * 0.99, c);
      slow.update(c * 1.01, c * 0.99, c);
      if (fast.ready) raw.push(fast.k);
      if (raw.length >= 3 && i >= 6) {
        const k = (raw[raw.length - 1]! + raw[raw.length - 2]! + raw[raw.length - 3]!) / 3;
        expect(slow.k).toBeCloseTo(k, 10);
      }
    }
    expect(slow.ready).toBe(true);
  });
});

describe('Session VWAP', () => {
  it('cumulative within a UTC day, restarts at the next day', () => {
    const day = 86_400_000;
    const v = new SessionVwap({ sessionMs: day });
    expect(Number.isNaN(v.update(100, 0, 1000))).toBe(true); // no volume yet
    v.update(100, 1, 2000);
    expect(v.update(110, 3, day - 1)).toBe(107.5); // (100 + 330) / 4
    expect(v.update(200, 1, day)).toBe(200);
    expect(v.volume).toBe(1);
    expect(() => v.update(1, 1, day - 5)).toThrow(/timeMs/);
  });

  it('without sessionMs: one session until reset()', () => {
    const v = new SessionVwap();
    v.update(10, 1);
    v.update(20, 1);
    expect(v.value).toBe(15);
    v.reset();
    expect(v.ready).toBe(false);
    expect(v.update(30, 2)).toBe(30);
    expect(() => v.update(30, -1)).toThrow(/volume/);
  });
});

describe('reset() and argument checks for every indicator', () => {
  it('after reset an indicator gives the same outputs as a new one', () => {
    const xs = randomWalk(120, 100, 0.02, 4);
    const make = () => [new Sma(5), new Ema(5), new Wma(5), new Rsi(5), new RollingStdDev(5), new BollingerBands(5), new Macd({ fast: 3, slow: 6, signal: 2 })];
    const used = make();
    for (const ind of used) for (const x of xs) ind.update(x);
    for (const ind of used) {
      ind.reset();
      expect(ind.ready).toBe(false);
      expect(Number.isNaN(ind.value)).toBe(true);
    }
    const fresh = make();
    for (const x of xs.subarray(0, 60)) {
      for (let i = 0; i < used.length; i++) expect(used[i]!.update(x)).toBe(fresh[i]!.update(x));
    }
    const hlc = [new Atr(4), new Stochastic({ kPeriod: 4 })];
    for (const x of xs) for (const ind of hlc) ind.update(x + 1, x - 1, x);
    for (const ind of hlc) ind.reset();
    const hlc2 = [new Atr(4), new Stochastic({ kPeriod: 4 })];
    for (const x of xs.subarray(0, 30)) for (let i = 0; i < 2; i++) expect(hlc[i]!.update(x + 1, x - 1, x)).toBe(hlc2[i]!.update(x + 1, x - 1, x));
    const vw = new RollingVwap(3);
    vw.update(1, 1);
    vw.reset();
    expect(vw.ready).toBe(false);
  });

  it('bad periods and values are ParameterErrors naming the field', () => {
    expect(() => new Sma(0)).toThrow(/invalid period: 0/);
    expect(() => new Ema(2.5)).toThrow(/period/);
    expect(() => new Ema(5, { alpha: 0 })).toThrow(/alpha/);
    expect(() => new BollingerBands(20, { k: -1 })).toThrow(/invalid k/);
    expect(() => new Sma(3).update(Infinity)).toThrow(/invalid value: "Infinity"/);
    expect(() => new RollingVwap(3).update(1, NaN)).toThrow(/volume/);
    expect(() => new Stochastic({ kPeriod: 0 })).toThrow(/kPeriod/);
  });
});
