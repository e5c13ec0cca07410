import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { PublicTrade } from '../../src/core/types/market.js';
import { MarketStatsStore } from '../../src/market/stats-store.js';
import { TradeRing, TradeTape } from '../../src/market/trade-tape.js';

const tr = (symbol: string, ts: number, p: string): PublicTrade => ({ symbol, price: d(p), quantity: d(1), isBuyOrder: true, timestamp: ts });

describe('TradeTape', () => {
  it('keeps the newest trades per market in a bounded ring', () => {
    const tape = new TradeTape(3);
    for (let i = 1; i <= 5; i++) tape.push(tr('A', i * 1000, String(i)));
    tape.push(tr('B', 9000, '9'));
    expect(tape.recent('A').map((t) => t.price.toString())).toEqual(['3', '4', '5']);
    expect(tape.recent('A', 2).map((t) => t.price.toString())).toEqual(['4', '5']);
    expect(tape.recent('A', 10)).toHaveLength(3);
    expect(tape.since('A', 4000).map((t) => t.timestamp)).toEqual([4000, 5000]);
    expect(tape.last('B')?.price.toString()).toBe('9');
    expect(tape.of('A')?.total).toBe(5);
    expect(tape.of('A')?.size).toBe(3);
    expect(tape.of('A')?.at(0)?.price.toString()).toBe('3');
    expect(tape.of('A')?.at(3)).toBeUndefined();
    expect(tape.recent('C')).toEqual([]);
    expect(() => new TradeRing(0)).toThrow(/capacity/);
  });
});

describe('MarketStatsStore', () => {
  it('keeps the latest statistics and prices; lastPrice is the newer of the two', () => {
    const s = new MarketStatsStore();
    s.setStats('A', { lastPrice: d('10'), volume24h: d('5') }, 100);
    expect(s.lastPrice('A')?.value.toString()).toBe('10');
    s.setPrice({ symbol: 'A', price: d('11') }, 200);
    expect(s.lastPrice('A')?.value.toString()).toBe('11');
    s.setStats('A', { lastPrice: d('12') }, 300);
    expect(s.lastPrice('A')).toEqual({ value: d('12'), at: 300 });
    expect(s.stats('A')?.value.volume24h).toBeUndefined();
    expect(s.symbols()).toEqual(['A']);
    expect(s.lastPrice('B')).toBeUndefined();
  });
});
