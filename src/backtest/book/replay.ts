/**
 * The replay loop of a book backtest: the recording's events in receive-time order, and between
 * them whatever falls due on the simulated clock (the market-data engine's housekeeping and resync
 * waits, the venue's latencies, the execution engine's waits, the strategies' cron schedules),
 * each at its own time. Per event: the clock moves to its receive time, the venue's pending entries
 * and cancels due by then take effect, then the event goes where it went live — a REST snapshot to
 * the engine's waiting depth request and to the venue's book, a stream frame through the stream
 * client's parsing to the engine (and the venue). After each step (the events of one receive
 * millisecond are one step) the promises it started run to their end (strategies' handlers, risk,
 * execution) before the next step, so the run is the same every time.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ManualClock } from '../../core/clock.js';
import type { BookLevel } from '../../core/types/market.js';
import type { RecordedEvent, GapRecord } from '../../record/format.js';
import type { VirtualTime } from './virtual-time.js';
import type { RecordingDepth, RecordingStream } from './recording-ports.js';

export interface ReplayPorts {
  clock: ManualClock;
  time: VirtualTime;
  stream: RecordingStream;
  depth: RecordingDepth;
  /** The venue's side of the recording (the exchange's book and prints). */
  venue: {
    advance(t: number): void;
    snapshot(symbol: string, t: number, bids: readonly BookLevel[], asks: readonly BookLevel[]): void;
  };
  /** The connection drops of the recording (from `scheduleGaps`, which scheduled their ends), in time order. */
  drops?: readonly ConnectionGap[];
  /** The strategies' cron schedules: the next fire time (Infinity: none) and the firing. */
  schedules?: { peek(): number; fire(t: number): void };
}

export interface ReplayCounts {
  /** Events replayed. */
  events: number;
  /** Time of the last event (the clock at the end). */
  lastT: number;
}

/** Let every promise the last step started settle (no I/O runs in a backtest: a turn of the loop is enough). */
export function settle(): Promise<void> {
  return nextTurn();
}

/** One outage of the stream connection, from the recording's gap index. */
export interface ConnectionGap {
  start: number;
  end: number;
  cause: string;
}

/**
 * The recording's connection gaps, merged (overlapping gaps of several markets are one outage of the
 * one connection). Each end is scheduled now: the stream comes back at the gap's end, before the
 * events of that millisecond (recorded after the reconnect). The drops are returned, for `replay`
 * (`ReplayPorts.drops`): a drop comes after the events of its own millisecond, which the recorder
 * received before it saw the connection go down (a killed recorder's gap starts at its last event).
 */
export function scheduleGaps(gaps: readonly GapRecord[], p: Pick<ReplayPorts, 'clock' | 'time' | 'stream'>): ConnectionGap[] {
  const sorted = [...gaps].sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: ConnectionGap[] = [];
  for (const g of sorted) {
    const last = merged[merged.length - 1];
    if (last && g.start <= last.end) last.end = Math.max(last.end, g.end);
    else merged.push({ start: g.start, end: g.end, cause: g.cause });
  }
  const now = p.clock.now();
  for (const g of merged) p.time.setTimeout(() => p.stream.connectionUp(), g.end - now);
  return merged;
}

/** Fire everything due at or before `t` (timers and schedules, in time order), each followed by its promises. */
export async function runUntil(t: number, p: ReplayPorts): Promise<void> {
  for (;;) {
    const timer = p.time.nextAt();
    const cron = p.schedules?.peek() ?? Infinity;
    const next = Math.min(timer, cron);
    if (next > t) return;
    if (cron < timer) {
      if (cron > p.clock.now()) p.clock.set(cron);
      p.schedules!.fire(cron);
    } else p.time.fireNext();
    await settle();
  }
}

/**
 * Replay `events` (receive-time order) through the ports. The events received in one millisecond go
 * in together, with nothing run between them, then their promises run: one read of a socket
 * delivers its frames one after the other before any handler a frame started runs, so a live
 * strategy reading the book on the first frame of a read already sees the last one.
 */
export async function replay(events: AsyncIterable<RecordedEvent>, p: ReplayPorts, onEvent?: (ev: RecordedEvent, n: number) => void): Promise<ReplayCounts> {
  let n = 0;
  let batch: RecordedEvent[] = [];
  const drops = p.drops ?? [];
  let d = 0;
  // The drops before `t` (and at `t` itself when `atT`), each at its time, after what fell due before it.
  const drop = async (t: number, atT: boolean): Promise<void> => {
    while (d < drops.length && (drops[d]!.start < t || (atT && drops[d]!.start === t))) {
      const g = drops[d++]!;
      await runUntil(g.start, p);
      if (g.start > p.clock.now()) p.clock.set(g.start);
      p.stream.connectionDown(`recorded gap (${g.cause})`);
      // Back in the same millisecond: its end's timer already fired (while the stream was up).
      if (g.end <= g.start) p.stream.connectionUp();
      await settle();
    }
  };
  const flush = async (): Promise<void> => {
    const t = batch[0]!.t;
    await drop(t, false);
    await runUntil(t, p);
    if (t > p.clock.now()) p.clock.set(t);
    p.venue.advance(t);
    for (const ev of batch) {
      if (ev.k === 'snapshot') {
        const d = p.depth.snapshot(ev);
        p.venue.snapshot(ev.market, ev.t, d.bids, d.asks);
      } else if (ev.k === 'depth' || ev.k === 'trade' || ev.k === 'stats') p.stream.deliver(ev);
      // `open`, `close` and `gap` lines: the gap index (scheduleGaps, drops) already drives the connection.
      n++;
      onEvent?.(ev, n);
    }
    batch = [];
    await settle();
    await drop(t, true);
  };
  for await (const ev of events) {
    if (batch.length > 0 && ev.t !== batch[0]!.t) await flush();
    batch.push(ev);
  }
  if (batch.length > 0) await flush();
  return { events: n, lastT: p.clock.now() };
}
