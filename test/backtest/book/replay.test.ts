/**
 * The replay of a recording through the live market-data engine on simulated time: the cold start
 * waits for the recorded snapshot, frames go through the stream client's parsing, candles close by
 * the simulated clock, a recorded gap makes the book unhealthy from its start until it is whole
 * again as the live engine sees it (both sides replaced by frames, or the next recorded snapshot),
 * a malformed frame is skipped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/logger.js';
import { MarketDataEngine } from '../../../src/market/engine.js';
import type { RecordedLine } from '../../../src/record/format.js';
import { readGaps, readRecording } from '../../../src/record/reader.js';
import { RecordingWriter } from '../../../src/record/writer.js';
import { RecordingDepth, RecordingStream } from '../../../src/backtest/book/recording-ports.js';
import { replay, scheduleGaps, type ReplayPorts } from '../../../src/backtest/book/replay.js';
import { VirtualTime } from '../../../src/backtest/book/virtual-time.js';
import { UnhealthyBooks } from '../../../src/backtest/book/book-unhealthy.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const T0 = Date.UTC(2026, 10, 28, 5, 0, 0);
const lvl = (price: number, quantity: number) => ({ price, quantity, sum: price * quantity });
const snap = (t: number, bid: number, ask: number): RecordedLine => ({
  t,
  k: 'snapshot',
  src: 'rest',
  d: { success: true, result: { bid: [{ price: String(bid), quantity: 1 }], ask: [{ price: String(ask), quantity: 1 }] } },
});
const side = (t: number, s: 'buy' | 'sell', price: number): RecordedLine => ({ t, k: 'depth', src: 'ws', side: s, d: [lvl(price, 2)] });
const trade = (t: number, price: number): RecordedLine => ({
  t,
  k: 'trade',
  src: 'ws',
  d: { isBuyOrder: true, quantity: '0.5', price: String(price), timestamp: new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z') },
});

async function recording(lines: RecordedLine[], gaps: [number, number][] = []): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'mizan-replay-'));
  dirs.push(dir);
  let now = T0;
  const w = await RecordingWriter.open(dir, ['BTCUSDT'], () => now);
  for (const l of lines) {
    now = l.t;
    w.write('BTCUSDT', l);
  }
  for (const [s, e] of gaps) w.gap('BTCUSDT', s, e, 'reconnect');
  now = lines.at(-1)!.t;
  w.close();
  return dir;
}

async function run(dir: string) {
  const clock = new ManualClock(T0);
  const time = new VirtualTime(clock);
  const stream = new RecordingStream(silentLogger);
  const depth = new RecordingDepth();
  const engine = new MarketDataEngine({ stream, depth, clock, timers: time, options: { candleResolutions: [1] } });
  const seen: { t: number; healthy: boolean; bid?: string }[] = [];
  engine.on('health', (_s, h) => seen.push({ t: clock.now(), healthy: h.healthy }));
  engine.on('book', (_s, b, h) => seen.push({ t: clock.now(), healthy: h.healthy, bid: b.bestBid()?.price.toFixed() }));
  const candles: { t: number; time: number; close: string }[] = [];
  engine.on('candleClosed', (_s, _r, c) => candles.push({ t: clock.now(), time: c.time, close: c.close.toFixed() }));
  const drops = scheduleGaps(await readGaps(dir), { clock, time, stream });
  const ports: ReplayPorts = { clock, time, stream, depth, drops, venue: { advance: () => undefined, snapshot: () => undefined } };
  const started = engine.start(['BTCUSDT']);
  const unhealthy = new UnhealthyBooks(engine, ['BTCUSDT'], clock);
  stream.on('depth', (s) => unhealthy.depthFrame(s));
  const counts = await replay(readRecording(dir), ports);
  unhealthy.end(counts.lastT);
  engine.stop();
  depth.end();
  return { counts, seen, candles, started: await started, stream, unhealthy: unhealthy.result() };
}

describe('book replay through the market-data engine', () => {
  it('waits for the recorded snapshot, applies frames as live, closes candles by the simulated clock', async () => {
    const dir = await recording([
      snap(T0 + 100, 100, 101),
      side(T0 + 200, 'buy', 100.5),
      trade(T0 + 300, 100.7),
      trade(T0 + 1200, 100.9),
      side(T0 + 2600, 'sell', 101.5),
      side(T0 + 3500, 'sell', 101.4),
    ]);
    const r = await run(dir);
    expect(r.started).toEqual({ synced: ['BTCUSDT'], failed: [] });
    // Nothing before the snapshot's time; healthy from it on; the bid frame replaced the bids.
    expect(r.seen[0]!.t).toBe(T0 + 100);
    expect(r.seen.find((s) => s.bid === '100.5')).toMatchObject({ t: T0 + 200, healthy: true });
    // 05:00:00 closed by the next period's trade; 05:00:01 by the clock, its close delay (1 s) after its end.
    expect(r.candles[0]).toMatchObject({ t: T0 + 1200, time: T0 / 1000, close: '100.7' });
    expect(r.candles[1]).toMatchObject({ time: T0 / 1000 + 1, close: '100.9' });
    expect(r.candles[1]!.t).toBeGreaterThanOrEqual(T0 + 3000);
    expect(r.candles[1]!.t).toBeLessThan(T0 + 3300);
    expect(r.counts.events).toBe(8); // open, snapshot, 3 sides, 2 trades, close
  });

  it('a recorded gap: unhealthy from its start until both sides are replaced or the next snapshot comes', async () => {
    const dir = await recording(
      [
        snap(T0 + 100, 100, 101),
        side(T0 + 1000, 'buy', 100.2),
        side(T0 + 5000, 'buy', 100.3),
        side(T0 + 5500, 'sell', 100.9),
        snap(T0 + 6000, 100.4, 100.8),
        side(T0 + 7000, 'buy', 100.5),
      ],
      [[T0 + 2000, T0 + 4000]],
    );
    const r = await run(dir);
    const at = (t: number) => r.seen.filter((s) => s.t <= t).at(-1)!;
    expect(at(T0 + 1999).healthy).toBe(true);
    expect(at(T0 + 2000)).toMatchObject({ healthy: false });
    expect(at(T0 + 5000).healthy).toBe(false); // only the bids replaced since the reconnect
    expect(at(T0 + 5500)).toMatchObject({ healthy: true, bid: '100.3' }); // both sides: whole again, as live
    // The snapshot answers the request sent at the reconnect: both sides were replaced by frames since, so they are kept (as live).
    expect(at(T0 + 6000)).toMatchObject({ healthy: true, bid: '100.3' });
    expect(at(T0 + 7000)).toMatchObject({ healthy: true, bid: '100.5' });
    // The result's book.unhealthy: the cold start until the snapshot, the gap until both sides were replaced.
    expect(r.unhealthy).toEqual({
      BTCUSDT: {
        stretches: 2,
        totalMs: 100 + 3500,
        depthFramesWhileUnhealthy: 1, // the bids at 5000; the asks at 5500 made it whole
        list: [
          { from: T0, to: T0 + 100, reasons: ['initializing'] },
          { from: T0 + 2000, to: T0 + 5500, reasons: ['stream_down'] },
        ],
      },
    });
  });

  it('frames received in the millisecond the connection dropped came before the drop: applied while healthy', async () => {
    // The recorder marks a drop at the time it saw it, after the frames of that millisecond; a killed
    // recorder's gap starts at its last event. Live, those frames were applied to a healthy book.
    const dir = await recording(
      [snap(T0 + 100, 100, 101), side(T0 + 2000, 'buy', 100.2), side(T0 + 4000, 'buy', 100.3), side(T0 + 4000, 'sell', 100.9)],
      [[T0 + 2000, T0 + 3000]],
    );
    const r = await run(dir);
    expect(r.seen.find((s) => s.bid === '100.2')).toEqual({ t: T0 + 2000, healthy: true, bid: '100.2' });
    const after = r.seen.filter((s) => s.t >= T0 + 2000);
    expect(after.findIndex((s) => !s.healthy)).toBeGreaterThan(after.findIndex((s) => s.bid === '100.2'));
    expect(after.find((s) => !s.healthy)!.t).toBe(T0 + 2000);
    expect(r.seen.at(-1)).toMatchObject({ t: T0 + 4000, healthy: true, bid: '100.3' });
  });

  it('a gap that ends in the millisecond it started: down, back at once, whole again when both sides are replaced', async () => {
    const dir = await recording(
      [snap(T0 + 100, 100, 101), side(T0 + 2000, 'buy', 100.2), side(T0 + 2500, 'buy', 100.3), side(T0 + 2600, 'sell', 100.9)],
      [[T0 + 2000, T0 + 2000]],
    );
    const r = await run(dir);
    expect(r.seen.find((s) => s.t === T0 + 2000 && !s.healthy)).toBeDefined();
    expect(r.seen.at(-1)).toMatchObject({ t: T0 + 2600, healthy: true, bid: '100.3' });
  });

  it('a malformed frame is counted and skipped', async () => {
    const bad: RecordedLine = { t: T0 + 300, k: 'depth', src: 'ws', side: 'buy', d: 'not levels' };
    const dir = await recording([snap(T0 + 100, 100, 101), bad, side(T0 + 400, 'buy', 100.5)]);
    const r = await run(dir);
    expect(r.stream.malformed).toBe(1);
    expect(r.seen.at(-1)).toMatchObject({ healthy: true, bid: '100.5' });
  });
});
