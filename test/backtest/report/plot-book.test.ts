/** The backtest's plot collector: from `from` on, last value per moment, thinned as it goes (the last point kept), NaN as a gap. */
import { describe, expect, it } from 'vitest';
import { PlotBook } from '../../../src/backtest/plots.js';
import { defineStrategy } from '../../../src/strategy/define.js';
import type { StrategyInstance } from '../../../src/kernel/trading-core.js';

const def = defineStrategy({ name: 'p', description: '', params: {}, plots: { a: { pane: 'x', levels: [1] }, b: {} }, create: () => ({}) });
const inst: StrategyInstance = { name: 's', definition: def, params: {}, markets: ['BTCUSDT'], resolutionSec: 60, account: 'main' };

describe('PlotBook', () => {
  it('keeps points from `from` on, the last value of a moment, and NaN as null', () => {
    let t = 0;
    const book = new PlotBook(() => t, 120_000, 10);
    for (t = 60_000; t <= 300_000; t += 60_000) {
      book.add('s', 'BTCUSDT', 'a', t / 1000);
      book.add('s', 'BTCUSDT', 'a', t / 1000 + 0.5); // the same moment: replaces
    }
    t = 360_000;
    book.add('s', 'BTCUSDT', 'b', Number.NaN);
    const [a, b] = book.result([inst]);
    expect(a).toEqual({
      strategy: 's',
      symbol: 'BTCUSDT',
      name: 'a',
      pane: 'x',
      color: null,
      levels: [1],
      times: [120_000, 180_000, 240_000, 300_000],
      values: [120.5, 180.5, 240.5, 300.5],
    });
    expect(b).toMatchObject({ name: 'b', pane: 'price', times: [360_000], values: [null] });
  });

  it('thins a long run to about maxPoints as it goes, keeping the last point', () => {
    let t = 0;
    const book = new PlotBook(() => t, 0, 12_001, 5000);
    for (let i = 0; i <= 12_000; i++) {
      t = i * 60_000;
      book.add('s', 'BTCUSDT', 'a', i);
      if (i === 12_000) book.add('s', 'BTCUSDT', 'a', -1); // the last moment's last value
    }
    const [a] = book.result([inst]);
    // Every 3rd of 12,001 points: 0, 3, …, 12,000.
    expect(a!.times.length).toBe(4001);
    expect(a!.values.slice(0, 3)).toEqual([0, 3, 6]);
    expect(a!.values[a!.values.length - 2]).toBe(11_997);
    expect(a!.times[a!.times.length - 1]).toBe(12_000 * 60_000);
    expect(a!.values[a!.values.length - 1]).toBe(-1);
    // One more point: not on the step, kept as the last one.
    t = 12_001 * 60_000;
    const more = new PlotBook(() => t, 0, 12_001, 5000);
    for (let i = 0; i <= 12_001; i++) {
      t = i * 60_000;
      more.add('s', 'BTCUSDT', 'a', i);
    }
    const [m] = more.result([inst]);
    expect(m!.times.length).toBe(4002);
    expect(m!.values.slice(-2)).toEqual([12_000, 12_001]);
  });
});
