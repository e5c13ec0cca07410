import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import type { PublicTrade } from '../../src/core/types/market.js';
import { MarketDataEngine, type MarketDataEngineOptions } from '../../src/market/engine.js';
import type { RawLevel } from '../../src/market/ports.js';
import { FakeDepthSource, FakeStream, ManualTimers, depth } from './support/fakes.js';
import { RefBook } from './support/ref-book.js';

const T0 = Date.UTC(2025, 5, 1, 9, 0, 0);

function setup(options: Partial<MarketDataEngineOptions> = {}, withAll = true) {
  const clock = new ManualClock(T0);
  const timers = new ManualTimers(clock);
  const stream = new FakeStream();
  const source = new FakeDepthSource(withAll);
  const engine = new MarketDataEngine({ stream, depth: source, clock, timers, options });
  return { clock, timers, stream, source, engine };
}

describe('MarketDataEngine', () => {
  it('subscribes, cold-starts, and keeps the local book equal to the source after thousands of updates', async () => {
    const { stream, source, engine } = setup();
    const refs = new Map(['BTCTMN', 'USDTTMN', 'ETHTMN'].map((s, i) => [s, new RefBook(11 + i)]));
    for (const [s, r] of refs) source.books.set(s, r.snapshot());
    const seen: string[] = [];
    engine.on('book', (symbol, book, health) => {
      // State is updated before the event: the engine returns the same book, already changed.
      expect(engine.book(symbol)).toBe(book);
      expect(health.healthy).toBe(engine.health(symbol).healthy);
      seen.push(symbol);
    });
    const r = await engine.start([...refs.keys()]);
    expect(r.failed).toEqual([]);
    expect(source.allCalls).toBe(1);
    expect(stream.subscribed).toContain('BTCTMN@buyDepth');
    expect(stream.subscribed).toContain('USDTTMN@sellDepth');
    expect(stream.subscribed).toContain('ETHTMN@trade');
    expect(stream.subscribed).toContain('ETHTMN@marketCap');
    let n = 0;
    for (let i = 0; i < 3000; i++) {
      for (const [s, ref] of refs) {
        const side = ref.change();
        stream.emit('depth', s, side, ref.levels(side));
        n++;
        if (i % 500 === 0) {
          // Malformed messages in between do not stop the stream.
          stream.emit('depth', s, 'bid', null as unknown as RawLevel[]);
          stream.emit('depth', s, 'ask', { 0: { price: 'x', quantity: 1 } } as unknown as RawLevel[]);
          stream.emit('trade', { symbol: s } as unknown as PublicTrade);
          stream.emit('depth', s, side, ref.levels(side)); // and the next good message repairs the side
        }
      }
    }
    for (const [s, ref] of refs) {
      const local = engine.book(s).snapshot();
      const want = ref.snapshot();
      expect(local.bids.map((l) => [l.price.toString(), l.quantity.toString()])).toEqual(
        want.bids.map((l) => [d(l.price as string).toString(), d(l.quantity as number).toString()]),
      );
      expect(local.asks.map((l) => [l.price.toString(), l.quantity.toString()])).toEqual(
        want.asks.map((l) => [d(l.price as string).toString(), d(l.quantity as number).toString()]),
      );
    }
    expect(seen.length).toBeGreaterThanOrEqual(n);
    expect(engine.counters.listenerErrors).toBe(0);
    expect(engine.counters.malformed).toBeGreaterThan(0);
  });

  it('marks books stale while the stream is down and healthy again after the reconnect resync', async () => {
    const { stream, source, engine, timers } = setup();
    for (const s of ['A', 'B', 'C', 'D']) source.books.set(s, depth(10, 11));
    await engine.start(['A', 'B', 'C', 'D']);
    const events: [string, boolean, string][] = [];
    engine.on('health', (s, h) => events.push([s, h.healthy, h.reasons.join(',')]));
    stream.emit('connectionDown', 0, 'transport close');
    for (const s of ['A', 'B', 'C', 'D']) expect(engine.health(s).healthy).toBe(false);
    expect(engine.healthyBook('A')).toBeUndefined();
    source.books.set('A', depth(12, 13));
    await timers.advance(5000);
    stream.emit('connectionUp', 0);
    await timers.advance(1);
    for (const s of ['A', 'B', 'C', 'D']) expect(engine.health(s).healthy).toBe(true);
    expect(engine.book('A').bestBid()?.price.toString()).toBe('12');
    expect(engine.healthyBook('A')).toBe(engine.book('A'));
    expect(source.allCalls).toBe(2);
    expect(events.filter(([s]) => s === 'A')).toEqual([
      ['A', false, 'stream_down'],
      ['A', true, ''],
    ]);
  });

  it('maps channelStale/channelFresh of depth channels to the book side', async () => {
    const { stream, source, engine } = setup({}, false);
    source.books.set('BTCUSDT', depth(10, 11));
    await engine.start(['BTCUSDT']);
    source.hold();
    stream.emit('channelStale', 'BTCUSDT@sellDepth\u064E', 'silent');
    expect(engine.health('BTCUSDT').sideReasons.ask).toEqual(['channel_stale']);
    stream.emit('channelStale', 'BTCUSDT@trade', 'silent');
    expect(engine.health('BTCUSDT').sideReasons.bid).toEqual([]);
    stream.emit('channelFresh', 'BTCUSDT@sellDepth');
    expect(engine.health('BTCUSDT').healthy).toBe(true);
    source.release();
  });

  it('keeps the trade tape and live candles, publishes candleClosed before the trade, after state', async () => {
    const { stream, source, engine, clock, timers } = setup({ candleResolutions: [60, 300], candleWindow: 3, tapeCapacity: 4 });
    source.books.set('X', depth(10, 11));
    await engine.start(['X']);
    const log: string[] = [];
    engine.on('candleClosed', (s, res, c) => {
      expect(engine.candles(s, res)).toContain(c);
      log.push(`candle ${res} ${c.time - T0 / 1000} ${c.close.toString()}${c.empty ? ' empty' : ''}`);
    });
    engine.on('trade', (t) => {
      expect(engine.trades('X').at(-1)).toBe(t);
      log.push(`trade ${t.price.toString()}`);
    });
    const tr = (ms: number, p: string): PublicTrade => ({ symbol: 'X', price: d(p), quantity: d(1), isBuyOrder: false, timestamp: T0 + ms });
    stream.emit('trade', tr(1_000, '10'));
    stream.emit('trade', tr(30_000, '11'));
    stream.emit('trade', tr(125_000, '12'));
    expect(log).toEqual(['trade 10', 'trade 11', 'candle 60 0 11', 'candle 60 60 11 empty', 'trade 12']);
    expect(engine.lastPrice('X')?.toString()).toBe('12');
    log.length = 0;
    clock.set(T0 + 125_000);
    await timers.advance(60_000); // clock-driven close (with the 1 s delay) by the engine's tick
    expect(log).toEqual(['candle 60 120 12']);
    await timers.advance(300_000);
    expect(log.filter((l) => l.startsWith('candle 300'))).toEqual(['candle 300 0 12']);
    expect(engine.candles('X', 60)).toHaveLength(3); // window
    for (let i = 0; i < 6; i++) stream.emit('trade', tr(500_000 + i, String(20 + i)));
    expect(engine.trades('X').map((t) => t.price.toString())).toEqual(['22', '23', '24', '25']);
    stream.emit('trade', tr(0, '1')); // late: ignored by candles, counted
    expect(engine.lateTrades('X', 60)).toBe(1);
    expect(() => engine.candles('X', 15)).toThrow(/resolution 15/);
    expect(() => engine.candles('Y', 60)).toThrow(/Y/);
    expect(engine.counters.listenerErrors).toBe(0); // every assertion inside the listeners held
  });

  it('stores statistics and prices, survives a throwing listener, and stops cleanly', async () => {
    const { stream, source, engine } = setup({ subscribeAllPrice: true });
    source.books.set('X', depth(10, 11));
    await engine.start(['X']);
    expect(stream.subscribed).toContain('all@price');
    engine.on('stats', () => {
      throw new Error('strategy bug');
    });
    stream.emit('marketCap', 'X', { lastPrice: d('10.5'), bidPrice: d(10) });
    expect(engine.stats('X')?.bidPrice?.toString()).toBe('10');
    expect(engine.lastPrice('X')?.toString()).toBe('10.5');
    expect(engine.counters.listenerErrors).toBe(1);
    stream.emit('price', { symbol: 'X', price: d('10.7') });
    expect(engine.lastPrice('X')?.toString()).toBe('10.7');
    engine.stop();
    expect(stream.unsubscribed).toContain('X@buyDepth');
    stream.emit('depth', 'X', 'bid', [{ price: '9', quantity: 1 }]);
    expect(engine.book('X').bestBid()?.price.toString()).toBe('10');
  });
});
