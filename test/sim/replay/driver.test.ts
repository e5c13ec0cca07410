import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { d } from '../../../src/core/decimal.js';
import { startReplay, type ReplayEvent, type ReplaySource } from '../../../src/sim/replay/index.js';
import { fakeTarget } from './helpers.js';

/** A source from a fixed event list. */
function listSource(symbol: string, events: ReplayEvent[]): ReplaySource {
  return { name: 'list', symbols: [symbol], resolutionSec: 60, events: () => events.map((e) => ({ ...e }))[Symbol.iterator](), candles: () => [] };
}
const trade = (symbol: string, time: number, price: string, quantity = '1', isBuyOrder = true): ReplayEvent => ({
  kind: 'trade',
  symbol,
  time,
  price,
  quantity,
  isBuyOrder,
});
const book = (symbol: string, time: number, bid: string, ask: string): ReplayEvent => ({
  kind: 'book',
  symbol,
  time,
  bids: [[bid, '1']],
  asks: [[ask, '2']],
});

function fakeTime(start = 1_000_000) {
  const clock = new ManualClock(start);
  const sleeps: number[] = [];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
    clock.advance(ms);
  };
  return { clock, sleeps, sleep };
}

describe('startReplay', () => {
  const a = listSource('AUSDT', [book('AUSDT', 10_000, '9', '11'), trade('AUSDT', 10_000, '11'), trade('AUSDT', 12_000, '10', '2', false)]);
  const b = listSource('BUSDT', [trade('BUSDT', 11_000, '5'), book('BUSDT', 16_000, '4', '6')]);

  it('pushes events of all sources in time order at real time (speed 1) on the clock', async () => {
    const t = fakeTime();
    const sim = fakeTarget(() => t.clock.now());
    const p = await startReplay({ sim, sources: [a, b], speed: 1, clock: t.clock, sleep: t.sleep }).done;
    expect(sim.log.map((e) => [e.kind, e.symbol, e.time, e.at - 1_000_000])).toEqual([
      ['bid', 'AUSDT', 10_000, 0],
      ['ask', 'AUSDT', 10_000, 0],
      ['trade', 'AUSDT', 10_000, 0],
      ['trade', 'BUSDT', 11_000, 1000],
      ['trade', 'AUSDT', 12_000, 2000],
      ['bid', 'BUSDT', 16_000, 6000],
      ['ask', 'BUSDT', 16_000, 6000],
    ]);
    expect(p).toMatchObject({ events: 5, books: 2, trades: 3, loops: 0, running: false, sourceTimeMs: 16_000 });
    const tr = sim.log[4]!.trade!;
    expect(tr.price.eq(d('10')) && tr.quantity.eq(d('2')) && tr.isBuyOrder === false).toBe(true);
    expect(sim.log[0]!.levels![0]!.price.toFixed()).toBe('9');
  });

  it('runs N times faster with speed N', async () => {
    const t = fakeTime();
    const sim = fakeTarget(() => t.clock.now());
    await startReplay({ sim, sources: [a, b], speed: 4, clock: t.clock, sleep: t.sleep }).done;
    expect(sim.log.map((e) => e.at - 1_000_000)).toEqual([0, 0, 0, 250, 500, 1500, 1500]);
  });

  it('runs as fast as possible with speed Infinity or 0 (no sleeping)', async () => {
    for (const speed of [Infinity, 0]) {
      const t = fakeTime();
      const sim = fakeTarget(() => t.clock.now());
      const p = await startReplay({ sim, sources: [a, b], speed, clock: t.clock, sleep: t.sleep }).done;
      expect(p.events).toBe(5);
      expect(t.sleeps).toEqual([]);
    }
  });

  it('stop() ends a replay waiting for its next event, and done resolves', async () => {
    const sim = fakeTarget();
    const h = startReplay({ sim, sources: [a, b], speed: 1, clock: new ManualClock(0), sleep: () => new Promise(() => {}) });
    await new Promise((r) => setImmediate(r));
    expect(h.progress()).toMatchObject({ events: 2, running: true });
    h.stop();
    const p = await h.done;
    expect(p).toMatchObject({ events: 2, running: false });
    expect(sim.log).toHaveLength(3); // bid + ask of the book, then the trade
  });

  it('loops with time moving forward, and builds candles from what it pushed', async () => {
    const t = fakeTime();
    const sim = fakeTarget(() => t.clock.now());
    const h = startReplay({ sim, sources: [a], speed: 1, clock: t.clock, sleep: t.sleep, loop: true, loopGapMs: 1000, batch: 10 });
    while (h.progress().events < 9) await new Promise((r) => setImmediate(r));
    h.stop();
    const p = await h.done;
    expect(p).toMatchObject({ loops: 3, events: 9 });
    const times = sim.log.filter((e) => e.kind === 'trade').map((e) => e.time);
    // pass length = 2000 ms of data + 1000 ms gap
    expect(times).toEqual([10_000, 12_000, 13_000, 15_000, 16_000, 18_000]);
    expect(sim.log.map((e) => e.at - 1_000_000)).toEqual([0, 0, 0, 2000, 3000, 3000, 3000, 5000, 6000, 6000, 6000, 8000]);
    const bars = h.candles('AUSDT');
    expect(bars).toHaveLength(1);
    expect(bars[0]!.time).toBe(0);
    expect(bars[0]!.high.toFixed()).toBe('11');
    expect(bars[0]!.low.toFixed()).toBe('10');
    expect(bars[0]!.volume.toFixed()).toBe('9');
  });

  it("timeBase 'clock' stamps every event with the clock time it is due at, whatever the speed", async () => {
    const t = fakeTime(1_700_000_000_000);
    const sim = fakeTarget(() => t.clock.now());
    await startReplay({ sim, sources: [a, b], speed: 2, clock: t.clock, sleep: t.sleep, timeBase: 'clock' }).done;
    // At speed 2 source events 1 s apart are due 0.5 s apart on the clock, and carry those times:
    // candles built from the trades then share the clock with orders and fills.
    expect(sim.log.map((e) => e.time! - 1_700_000_000_000)).toEqual([0, 0, 0, 500, 1000, 3000, 3000]);
    expect(sim.log.map((e) => e.at - 1_700_000_000_000)).toEqual([0, 0, 0, 500, 1000, 3000, 3000]);
  });

  it('rejects done when the simulator throws, and refuses bad arguments', async () => {
    const sim = {
      replaceBookSide() {},
      recordTrade() {
        throw new Error('boom');
      },
    };
    await expect(startReplay({ sim, sources: [a], speed: 0 }).done).rejects.toThrow('boom');
    expect(() => startReplay({ sim, sources: [], speed: 0 })).toThrow(/no sources/);
    expect(() => startReplay({ sim, sources: [a], speed: -1 })).toThrow(/speed/);
  });

  it('prime: pushes at once until every symbol has a book, then paces from there', async () => {
    const t = fakeTime(1_000_000);
    const sim = fakeTarget();
    await startReplay({ sim, sources: [a, b], speed: 1, clock: t.clock, sleep: t.sleep, prime: true, timeBase: 'clock' }).done;
    // A's book (10 s), A's trade, B's trade (11 s), A's trade (12 s), then B's book at 16 s completes the
    // priming: nothing waited for it. After it there is nothing left to pace.
    expect(t.sleeps).toEqual([]);
    const primed = await (async () => {
      const t2 = fakeTime(0);
      const sim2 = fakeTarget();
      const late = listSource('CUSDT', [book('CUSDT', 10_000, '1', '2'), book('CUSDT', 13_000, '1', '2')]);
      const early = listSource('DUSDT', [book('DUSDT', 4_000, '1', '2'), trade('DUSDT', 15_000, '2')]);
      await startReplay({ sim: sim2, sources: [late, early], speed: 1, clock: t2.clock, sleep: t2.sleep, prime: true }).done;
      return t2.sleeps;
    })();
    // D's book at 4 s and C's book at 10 s go at once; pacing starts at 10 s: 3 s to C's next book, 2 s to D's trade.
    expect(primed).toEqual([3000, 2000]);
  });
});

describe('replay Decimal cache (issue #33)', () => {
  it('holds at most 8,192 level strings however many distinct ones the capture has', async () => {
    const { ReplayDecimalCache, REPLAY_DECIMAL_CACHE } = await import('../../../src/sim/replay/driver.js');
    expect(REPLAY_DECIMAL_CACHE).toBe(8_192);
    const cache = new ReplayDecimalCache();
    const hot = cache.get('64000.5', 'price');
    let max = 0;
    for (let i = 0; i < 150_000; i++) {
      cache.get(`${i}.25`, 'quantity');
      if (i % 1_000 === 0) expect(cache.get('64000.5', 'price')).toBe(hot);
      max = Math.max(max, cache.size);
    }
    expect(max).toBeLessThanOrEqual(8_192);
    expect(() => cache.get('x', 'price')).toThrow(/price/);
  });
});

describe('replay candles kept (issue #33)', () => {
  it('a replay of more minutes than REPLAY_CANDLES_KEPT keeps only the newest 10,080 one-minute candles', async () => {
    const { REPLAY_CANDLES_KEPT } = await import('../../../src/sim/replay/driver.js');
    expect(REPLAY_CANDLES_KEPT).toBe(10_080);
    const n = 12_000;
    const events = Array.from({ length: n }, (_, i) => trade('AUSDT', i * 60_000, String(100 + (i % 7))));
    const sim = fakeTarget();
    const h = startReplay({ sim, sources: [listSource('AUSDT', events)], speed: 0, clock: new ManualClock(0) });
    await h.done;
    const kept = h.candles('AUSDT');
    expect(kept.length).toBe(10_080);
    expect(kept[0]!.time).toBe((n - 10_080) * 60);
    expect(kept.at(-1)!.time).toBe((n - 1) * 60);
    expect(kept.at(-1)!.close.toFixed()).toBe(String(100 + ((n - 1) % 7)));
  });
});
