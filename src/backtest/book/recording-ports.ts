/**
 * The market-data ports of a book backtest, over a recording (`mizan record`, src/record/format.ts):
 *  - `RecordingStream`, the StreamPort the market-data engine listens to: each recorded frame is
 *    parsed by the stream client's own code (exchange/stream/dispatch.ts) and emitted as the same
 *    events the live StreamClient emits; a frame that does not parse is counted and skipped, as live;
 *    a recorded connection gap is a `connectionDown` at its start and a `connectionUp` at its end.
 *  - `RecordingDepth`, the DepthSource: a REST depth request is answered by the market's next
 *    recorded snapshot (the recorder takes one at its start and after each reconnect), never by a
 *    book made up from the frames: until that snapshot the engine's book stays as unhealthy as it
 *    was live.
 */
import { EventEmitter } from 'eventemitter3';
import type { Logger } from '../../core/logger.js';
import type { DepthSnapshot } from '../../core/types/market.js';
import { parseDepth as parseRestDepth } from '../../exchange/parse/market.js';
import { parseChannel, type ChannelInfo } from '../../exchange/stream/channels.js';
import { dispatchParsed } from '../../exchange/stream/dispatch.js';
import type { StreamClientEvents } from '../../exchange/stream/events.js';
import { createParseCaches } from '../../exchange/stream/parse.js';
import type { DepthSource, StreamPort } from '../../market/ports.js';
import type { RecordedEvent } from '../../record/format.js';

/** The channel a recorded frame came on. */
function channelOf(ev: RecordedEvent): string | undefined {
  if (ev.k === 'depth') return `${ev.market}@${ev.side === 'sell' ? 'sellDepth' : 'buyDepth'}`;
  if (ev.k === 'trade') return `${ev.market}@trade`;
  if (ev.k === 'stats') return `${ev.market}@marketCap`;
  return undefined;
}

export class RecordingStream extends EventEmitter<StreamClientEvents> implements StreamPort {
  /** The engine listens to `depthRaw`, as it does live (its book parses the levels itself). */
  readonly emitsRawDepth = true;
  /** Frames that did not parse (skipped). */
  malformed = 0;
  private readonly subscribed = new Set<string>();
  private readonly infos = new Map<string, ChannelInfo>();
  private readonly caches = createParseCaches();
  private down = false;
  /** Receive time of the frame being delivered. */
  private lastT = 0;

  constructor(private readonly logger: Logger) {
    super();
  }

  subscribe(channel: string): void {
    this.subscribed.add(parseChannel(channel).channel);
  }

  unsubscribe(channel: string): void {
    this.subscribed.delete(parseChannel(channel).channel);
  }

  /**
   * One recorded frame as the stream client would deliver it; returns the parsed frame's channel
   * info when it was delivered. Frames of channels nobody subscribed are dropped, as live.
   */
  deliver(ev: RecordedEvent): boolean {
    const channel = channelOf(ev);
    if (channel === undefined || !this.subscribed.has(channel)) return false;
    let info = this.infos.get(channel);
    if (!info) this.infos.set(channel, (info = parseChannel(channel)));
    this.lastT = ev.t;
    this.emit('message', channel, ev.d);
    const err = dispatchParsed(this, info, ev.d, this.caches, false);
    if (err !== undefined) {
      this.malformed++;
      this.logger.warn({ channel, t: ev.t, err: err instanceof Error ? err.message : String(err) }, 'recorded frame malformed: skipped');
      return false;
    }
    return true;
  }

  /** A depth frame whose levels' values are not numbers (a listener of `depthRaw` found it): counted and logged as skipped. */
  refused(symbol: string, side: 'bid' | 'ask', err: string): void {
    this.malformed++;
    this.logger.warn({ channel: `${symbol}@${side === 'ask' ? 'sellDepth' : 'buyDepth'}`, t: this.lastT, err }, 'recorded frame malformed: skipped');
  }

  /** The connection dropped (a recorded gap starts): every book goes stale. */
  connectionDown(reason: string): void {
    if (this.down) return;
    this.down = true;
    this.emit('connectionDown', 0, reason);
  }

  /** The connection is back (the gap ends): the engine asks for snapshots. */
  connectionUp(): void {
    if (!this.down) return;
    this.down = false;
    this.emit('connectionUp', 0);
  }
}

interface Waiter {
  resolve(d: DepthSnapshot): void;
  reject(err: Error): void;
}

export class RecordingDepth implements DepthSource {
  private readonly waiting = new Map<string, Waiter[]>();

  /** Requests still waiting for a snapshot. */
  get pending(): number {
    let n = 0;
    for (const w of this.waiting.values()) n += w.length;
    return n;
  }

  getDepth(symbol: string): Promise<DepthSnapshot> {
    return new Promise((resolve, reject) => {
      let list = this.waiting.get(symbol);
      if (!list) this.waiting.set(symbol, (list = []));
      list.push({ resolve, reject });
    });
  }

  /**
   * A recorded REST snapshot (`d`: the body as received). Answers the market's waiting requests;
   * returns the parsed book (for the venue), or throws naming the line when the body is not a depth.
   */
  snapshot(ev: RecordedEvent): DepthSnapshot {
    const body = ev.d as { result?: unknown } | null;
    const depth = parseRestDepth(body && typeof body === 'object' && 'result' in body ? body.result : body, ev.market);
    const list = this.waiting.get(ev.market);
    if (list) {
      this.waiting.delete(ev.market);
      for (const w of list) w.resolve(depth);
    }
    return depth;
  }

  /** The recording ended: every waiting request fails (the engine logs a failed resync). */
  end(): void {
    for (const [symbol, list] of this.waiting) for (const w of list) w.reject(new Error(`the recording has no snapshot of ${symbol} after this time`));
    this.waiting.clear();
  }
}
