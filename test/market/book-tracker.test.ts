import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import type { BookHealth } from '../../src/market/book-health.js';
import { BookTracker, type BookTrackerOptions } from '../../src/market/book-tracker.js';
import { FakeDepthSource, ManualTimers, depth, side } from './support/fakes.js';

function setup(opts: Partial<BookTrackerOptions> = {}, withAll = false) {
  const clock = new ManualClock(1_000_000);
  const timers = new ManualTimers(clock);
  const source = new FakeDepthSource(withAll);
  const tracker = new BookTracker({ depth: source, clock, timers, options: opts });
  const healths: BookHealth[] = [];
  tracker.on('health', (_s, h) => healths.push(h));
  return { clock, timers, source, tracker, healths };
}

describe('BookTracker', () => {
  it('cold start fetches depth, then stream sides replace their side; health goes initializing → healthy', async () => {
    const { source, tracker, healths } = setup();
    source.books.set('BTCUSDT', depth(100, 101));
    tracker.track('BTCUSDT');
    expect(tracker.health('BTCUSDT').reasons).toEqual(['initializing']);
    const r = await tracker.coldStart(['BTCUSDT']);
    expect(r).toEqual({ synced: ['BTCUSDT'], failed: [] });
    expect(tracker.health('BTCUSDT').healthy).toBe(true);
    expect(healths.at(-1)?.healthy).toBe(true);
    expect(tracker.applySide('BTCUSDT', 'bid', side('bid', 100.5))).toBe(true);
    expect(tracker.book('BTCUSDT').bestBid()?.price.toString()).toBe('100.5');
    expect(tracker.health('BTCUSDT').resyncs).toBe(1);
  });

  it('uses getAllDepths for many books and falls back per book when one is missing from it', async () => {
    const { source, tracker } = setup({}, true);
    for (const s of ['A', 'B', 'C']) source.books.set(s, depth(10, 11));
    const r = await tracker.coldStart(['A', 'B', 'C', 'D']);
    expect(source.allCalls).toBe(1);
    expect(source.calls).toEqual([]);
    expect(r.failed).toEqual(['D']);
    expect(tracker.health('D').reasons).toEqual(['initializing']);
  });

  it('an unsorted side is refused, marks the book stale and one REST resync makes it healthy', async () => {
    const { timers, source, tracker, healths } = setup();
    source.books.set('X', depth(100, 101));
    await tracker.coldStart(['X']);
    const before = source.calls.length;
    expect(
      tracker.applySide('X', 'ask', [
        { price: '105', quantity: 1 },
        { price: '104', quantity: 1 },
      ]),
    ).toBe(false);
    expect(tracker.health('X').reasons).toEqual(['unsorted']);
    expect(tracker.book('X').bestAsk()?.price.toString()).toBe('101');
    // More bad messages before the resync runs: still one request (no storm).
    tracker.applySide('X', 'ask', [{ price: 'NaN', quantity: 1 }]);
    expect(tracker.health('X').reasons).toEqual(['unsorted', 'malformed']);
    await timers.advance(1000);
    expect(source.calls.length - before).toBe(1);
    expect(tracker.health('X').healthy).toBe(true);
    expect(tracker.health('X').rejectedSides).toBe(2);
    expect(healths.map((h) => h.reasons.join('+'))).toEqual(['', 'unsorted', 'unsorted+malformed', '']);
  });

  it("a side crossing the other side's older snapshot is a transient; crossed once the other side confirms it", async () => {
    const { timers, source, tracker, healths } = setup();
    source.books.set('X', depth(100, 101));
    await tracker.coldStart(['X']);
    source.calls.length = 0;
    const before = healths.length;
    tracker.applySide('X', 'bid', side('bid', 102)); // price moved up, asks not yet updated
    expect(tracker.health('X').healthy).toBe(true);
    tracker.applySide('X', 'ask', side('ask', 103));
    expect(tracker.health('X').healthy).toBe(true);
    expect(healths.length).toBe(before); // no health change at all: no flap
    expect(tracker.transientCrosses('X')).toBe(1);
    await timers.advance(5000);
    expect(source.calls).toEqual([]);
    // Now it stays crossed after the other side's update: crossed at once, and resynced.
    source.books.set('X', depth(104, 105));
    tracker.applySide('X', 'bid', side('bid', 110));
    expect(tracker.health('X').healthy).toBe(true);
    tracker.applySide('X', 'ask', side('ask', 109));
    expect(tracker.health('X').reasons).toEqual(['crossed']);
    await timers.advance(600);
    expect(source.calls).toEqual(['X']);
    expect(tracker.health('X').healthy).toBe(true);
    expect(tracker.book('X').bestBid()?.price.toString()).toBe('104');
  });

  it('replaying both sides moving through each other (up and down, 200 steps) never reports crossed', async () => {
    const { clock, source, tracker, healths } = setup();
    source.books.set('X', depth(100, 101));
    await tracker.coldStart(['X']);
    const before = healths.length;
    let bid = 100;
    for (let i = 0; i < 200; i++) {
      // The market jumps 5 ticks; the side that leads crosses the other side's old snapshot.
      const up = Math.floor(i / 20) % 2 === 0;
      bid += up ? 5 : -5;
      const lead = up ? 'bid' : 'ask';
      tracker.applySide('X', lead, side(lead, lead === 'bid' ? bid : bid + 1));
      clock.advance(3); // the other side's snapshot follows a few ms later
      const other = lead === 'bid' ? 'ask' : 'bid';
      tracker.applySide('X', other, side(other, other === 'bid' ? bid : bid + 1));
      tracker.tick();
      clock.advance(100);
    }
    expect(healths.slice(before)).toEqual([]);
    expect(tracker.health('X').healthy).toBe(true);
    expect(tracker.transientCrosses('X')).toBe(200);
  });

  it('a cross that lasts past crossedGraceMs without the other side is crossed (tick)', async () => {
    const { clock, source, tracker } = setup({ crossedGraceMs: 500 });
    source.books.set('X', depth(100, 101));
    await tracker.coldStart(['X']);
    tracker.applySide('X', 'bid', side('bid', 102));
    clock.advance(499);
    tracker.tick();
    expect(tracker.health('X').healthy).toBe(true);
    clock.advance(1);
    tracker.tick();
    expect(tracker.health('X').reasons).toEqual(['crossed']);
  });

  it('crossedGraceMs: 0 reports every cross at once (the old behaviour)', async () => {
    const { source, tracker } = setup({ crossedGraceMs: 0 });
    source.books.set('X', depth(100, 101));
    await tracker.coldStart(['X']);
    tracker.applySide('X', 'bid', side('bid', 102));
    expect(tracker.health('X').reasons).toEqual(['crossed']);
  });

  it('a crossed book that gets no further update is resynced after the grace period', async () => {
    const { timers, source, tracker } = setup({ crossedGraceMs: 2000 });
    source.books.set('X', depth(100, 101));
    await tracker.coldStart(['X']);
    source.calls.length = 0;
    tracker.applySide('X', 'bid', side('bid', 102));
    tracker.tick();
    await timers.advance(1000);
    tracker.tick();
    expect(source.calls).toEqual([]);
    await timers.advance(1000);
    tracker.tick();
    await timers.advance(600);
    expect(source.calls).toEqual(['X']);
    expect(tracker.health('X').healthy).toBe(true);
  });

  it('a side older than maxSideAgeMs is flagged on tick and refreshed by REST', async () => {
    const { timers, source, tracker } = setup({ maxSideAgeMs: 10_000 });
    source.books.set('X', depth(100, 101));
    await tracker.coldStart(['X']);
    await timers.advance(9_000);
    tracker.applySide('X', 'bid', side('bid', 100));
    await timers.advance(2_000);
    tracker.tick();
    const h = tracker.health('X');
    expect(h.reasons).toEqual(['side_too_old']);
    expect(h.askAgeMs).toBe(11_000);
    expect(h.bidAgeMs).toBe(2_000);
    await timers.advance(1);
    expect(tracker.health('X').healthy).toBe(true);
    expect(tracker.health('X').askAgeMs).toBe(1);
  });

  it('stream down marks every book stale; after reconnect all are resynced in one batch and healthy again', async () => {
    const { timers, source, tracker, healths } = setup({}, true);
    for (const s of ['A', 'B', 'C']) source.books.set(s, depth(10, 11));
    await tracker.coldStart(['A', 'B', 'C']);
    tracker.connectionDown(0);
    tracker.connectionDown(1);
    for (const s of ['A', 'B', 'C']) expect(tracker.health(s).reasons).toEqual(['stream_down']);
    // Late stream delivery while down does not clear the flag.
    tracker.applySide('A', 'bid', side('bid', 10));
    expect(tracker.health('A').reasons).toEqual(['stream_down']);
    tracker.connectionUp(0);
    await timers.advance(2000);
    expect(source.allCalls).toBe(1); // only the cold start: one connection still down
    tracker.connectionUp(1);
    await timers.advance(1);
    expect(source.allCalls).toBe(2);
    for (const s of ['A', 'B', 'C']) expect(tracker.health(s).healthy).toBe(true);
    expect(healths.filter((h) => h.symbol === 'A').map((h) => h.healthy)).toEqual([true, false, true]);
  });

  it('after reconnect, fresh stream sides of both sides also heal the book without REST', async () => {
    const { source, tracker } = setup();
    source.books.set('X', depth(100, 101));
    await tracker.coldStart(['X']);
    tracker.connectionDown();
    tracker.connectionUp();
    source.calls.length = 0;
    tracker.applySide('X', 'bid', side('bid', 100));
    expect(tracker.health('X').reasons).toEqual(['stream_down']);
    expect(tracker.health('X').sideReasons).toEqual({ bid: [], ask: ['stream_down'] });
    tracker.applySide('X', 'ask', side('ask', 101));
    expect(tracker.health('X').healthy).toBe(true);
  });

  it('backs off exponentially while REST fails, then recovers', async () => {
    const { timers, source, tracker } = setup({ backoffBaseMs: 100, backoffMaxMs: 1000 });
    source.books.set('X', depth(100, 101));
    source.failing = true;
    const r = await tracker.coldStart(['X']);
    expect(r.failed).toEqual(['X']);
    const times: number[] = [];
    const t0 = timers.clock.now();
    const orig = source.getDepth.bind(source);
    source.getDepth = (s) => {
      times.push(timers.clock.now() - t0);
      return orig(s);
    };
    await timers.advance(4000);
    expect(times.slice(0, 6)).toEqual([100, 300, 700, 1500, 2500, 3500]);
    expect(tracker.health('X').resyncFailures).toBeGreaterThanOrEqual(6);
    source.failing = false;
    await timers.advance(1000);
    expect(tracker.health('X').healthy).toBe(true);
  });

  it('keeps a stream side that arrived while the REST request was in flight', async () => {
    const { timers, source, tracker } = setup();
    source.books.set('X', depth(100, 101));
    await tracker.coldStart(['X']);
    tracker.applySide('X', 'ask', [{ price: 'bad', quantity: 1 }]);
    source.books.set('X', depth(90, 91));
    source.hold();
    await timers.advance(600);
    expect(tracker.health('X').resyncing).toBe(true);
    tracker.applySide('X', 'bid', side('bid', 90.5)); // newer than the snapshot being fetched
    source.release();
    await timers.advance(1);
    expect(tracker.book('X').bestBid()?.price.toString()).toBe('90.5');
    expect(tracker.book('X').bestAsk()?.price.toString()).toBe('91');
    expect(tracker.health('X').healthy).toBe(true);
  });

  it('channel stale flags one side until the channel is fresh again or REST refreshed it', async () => {
    const { timers, source, tracker } = setup();
    source.books.set('X', depth(100, 101));
    await tracker.coldStart(['X']);
    source.hold();
    tracker.channelStale('X', 'ask');
    expect(tracker.health('X').reasons).toEqual(['channel_stale']);
    tracker.channelFresh('X', 'ask');
    expect(tracker.health('X').healthy).toBe(true);
    tracker.channelStale('X', 'bid');
    source.release();
    await timers.advance(1000);
    expect(tracker.health('X').healthy).toBe(true);
    expect(() => tracker.health('NOPE')).toThrow(/NOPE/);
  });
});
