import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { CandleStore, SIM_CANDLES_KEPT } from '../../src/sim/candles.js';

// Issue #33: the simulator adds a 1-minute candle per market per minute of trades; a paper bot's
// embedded simulator runs for weeks, so the store keeps the newest SIM_CANDLES_KEPT a market.
describe('CandleStore: candles kept per market', () => {
  it('keeps the newest 10,080 candles that trades build', () => {
    expect(SIM_CANDLES_KEPT).toBe(10_080);
    const store = new CandleStore();
    const n = 12_000;
    for (let i = 0; i < n; i++) store.record('AUSDT', d(String(100 + (i % 5))), d('1'), i * 60_000 + 1_000);
    const all = store.history('AUSDT', 60, 0, n * 60);
    expect(all.length).toBe(10_080);
    expect(all[0]!.time).toBe((n - 10_080) * 60);
    expect(all.at(-1)!.time).toBe((n - 1) * 60);
  });

  it('keeps a longer series given with set, and trims only what trades add beyond it', () => {
    const store = new CandleStore(100);
    const seed = Array.from({ length: 150 }, (_, i) => ({ time: i * 60, open: d('1'), high: d('1'), low: d('1'), close: d('1'), volume: d('1') }));
    store.set('AUSDT', seed, 60);
    expect(store.history('AUSDT', 60, 0, 1e9).length).toBe(150);
    for (let i = 150; i < 160; i++) store.record('AUSDT', d('2'), d('1'), i * 60_000);
    const h = store.history('AUSDT', 60, 0, 1e9);
    expect(h.length).toBe(150);
    expect(h[0]!.time).toBe(10 * 60);
    expect(h.at(-1)!.close.toFixed()).toBe('2');
  });

  it('refuses a cap that is not a positive integer, naming it', () => {
    expect(() => new CandleStore(0)).toThrow(/maxCandles must be a positive integer, got 0/);
  });
});
