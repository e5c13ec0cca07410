/**
 * StreamClient: the exchange's market-data stream.
 *
 * - transport `ws` (the plain WebSocket at `/ws`), `socketio` (protocol 4, `socket.io-client` 4.x,
 *   default, or 3, the `socket.io-client@2.5.0` alias), or `auto` (default: `/ws`, falling back to
 *   socket.io when it cannot connect; the route in use is logged once);
 * - each connection is replaced make-before-break before the server's lifetime cut (30 min, plus
 *   30 s per ping answered, at most 100 answers) and, optionally, after `rotateAfterMs`;
 * - channels spread over several connections, at most `maxChannelsPerConnection` (50) each;
 * - `subscribe` is sent on every (re)connect for that connection's channels;
 * - reconnect is ours (capped exponential backoff with jitter, first retry at once);
 * - a watchdog marks a channel silent beyond its kind's limit stale and resubscribes it;
 * - payloads arrive as `Broadcaster (channel, data)` or `[channel, data]` frames, are emitted raw as `message` and parsed into
 *   `depth` / `trade` / `marketCap` / `price` (parsing is skipped while nobody listens to that event);
 * - a malformed payload is counted, logged once per kind, reported as `malformed` and skipped.
 *
 * Staleness: a channel is stale from subscribe until its first valid message, after its connection
 * drops (`channelStale(ch, 'disconnected')`, right before `connectionDown`), and when silent too long
 * (`'silent'`). `channelFresh` follows the first valid message after that, emitted after the typed
 * event so a book that applied the snapshot is current when it hears "fresh". Depth messages are full
 * snapshots of one side, so that first message is all a book needs to be whole again.
 */
import { EventEmitter } from 'eventemitter3';
import type { Clock } from '../../core/clock.js';
import { NetworkError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { AgeTimers } from './age-timers.js';
import { Backoff } from './backoff.js';
import { parseChannel } from './channels.js';
import { StreamConnection, type Timers } from './connection.js';
import { type MalformedKind, MalformedCounter } from './malformed.js';
import { dispatchParsed } from './dispatch.js';
import type { StreamClientEvents, StreamStats } from './events.js';
import { createParseCaches } from './parse.js';
import { type ChannelState, Rotation } from './rotation.js';
import { type ResolvedStreamOptions, type StreamClientOptions, resolveOptions } from './options.js';
import { type StreamTransport, TransportChoice, wsAddress } from './transport.js';

export class StreamClient extends EventEmitter<StreamClientEvents> {
  /** Emits `depthRaw` (unparsed levels): the market-data engine listens to it instead of `depth`. */
  readonly emitsRawDepth = true;
  private readonly channels = new Map<string, ChannelState>();
  private readonly connections: StreamConnection[] = [];
  private readonly malformedCounter: MalformedCounter;
  private readonly caches = createParseCaches();
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly timers: Timers;
  private readonly backoff: Backoff;
  private readonly options: ResolvedStreamOptions;
  private readonly choice: TransportChoice;
  private started = false;
  private watchdogTimer: unknown;
  private readonly rotations = new Map<number, Rotation>();
  private readonly ageTimers: AgeTimers;
  private waiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  private counters = { messages: 0, ignored: 0, reconnects: 0, resubscribes: 0, listenerErrors: 0 };

  constructor(options: StreamClientOptions) {
    super();
    this.options = resolveOptions(options);
    this.clock = this.options.clock;
    this.logger = this.options.logger.child({ component: 'stream' });
    this.timers = this.options.timers;
    this.backoff = new Backoff(this.options.reconnect, this.options.random);
    this.malformedCounter = new MalformedCounter(this.logger);
    const { url, path, wsPath } = this.options;
    this.choice = new TransportChoice(this.options.transport, this.logger, (t) => (t === 'ws' ? wsAddress(url, wsPath) : `${url.replace(/\/$/, '')}${path}`));
    this.ageTimers = new AgeTimers(this.clock, this.timers, this.options, (conn) => {
      if (this.isCurrent(conn)) void this.rotate(conn.index);
    });
  }

  /** The route in use (`undefined` until a connection has been up). */
  get transport(): StreamTransport | undefined {
    return this.choice.inUse;
  }

  /** Subscribe a channel (cleaned and validated; returns the clean name). Idempotent. */
  subscribe(channel: string): string {
    const info = parseChannel(channel);
    const existing = this.channels.get(info.channel);
    if (existing !== undefined) return info.channel;
    const conn = this.connectionWithRoom();
    const state: ChannelState = { info, conn, since: this.clock.now(), stale: true };
    this.channels.set(info.channel, state);
    conn.add(info.channel);
    this.rotations.get(conn.index)?.add(state);
    if (this.started) conn.start();
    return info.channel;
  }

  /** Stop a channel. A connection left without channels is closed. */
  unsubscribe(channel: string): void {
    const info = parseChannel(channel);
    const state = this.channels.get(info.channel);
    if (state === undefined) return;
    this.channels.delete(info.channel);
    const rotation = this.rotations.get(state.conn.index);
    rotation?.remove(info.channel);
    state.conn.remove(info.channel);
    if (state.conn.channels.size === 0) {
      rotation?.abort();
      this.ageTimers.clear(state.conn);
      state.conn.stop();
    }
  }

  /** Open the connections. Resolves once every connection with channels has been up. */
  connect(): Promise<void> {
    this.started = true;
    for (const conn of this.connections) if (conn.channels.size > 0) conn.start();
    this.scheduleWatchdog();
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.settleWaiters();
    });
  }

  /** Close every connection and stop all timers. */
  close(): void {
    this.started = false;
    this.timers.clearTimeout(this.watchdogTimer);
    this.watchdogTimer = undefined;
    for (const rotation of [...this.rotations.values()]) rotation.abort();
    for (const conn of this.connections) {
      this.ageTimers.clear(conn);
      conn.stop();
    }
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(new NetworkError('stream client closed before every connection was up'));
  }

  isStale(channel: string): boolean {
    return this.channels.get(parseChannel(channel).channel)?.stale ?? true;
  }

  /** Channels per connection index (closed connections included, with their channels, if any). */
  connectionChannels(): string[][] {
    return this.connections.map((c) => [...c.channels]);
  }

  stats(): StreamStats {
    let stale = 0;
    for (const s of this.channels.values()) if (s.stale) stale++;
    return {
      ...this.counters,
      malformed: this.malformedCounter.snapshot(),
      malformedTotal: this.malformedCounter.total,
      channels: this.channels.size,
      staleChannels: stale,
      connections: this.connections.filter((c) => c.isOpen).length,
      connectionsUp: this.connections.filter((c) => c.isUp).length,
    };
  }

  private connectionWithRoom(): StreamConnection {
    for (const conn of this.connections) if (conn.channels.size < this.options.maxChannelsPerConnection) return conn;
    const conn = this.newConnection(this.connections.length);
    this.connections.push(conn);
    return conn;
  }

  private newConnection(index: number): StreamConnection {
    return new StreamConnection(index, {
      socket: {
        url: this.options.url,
        protocol: this.options.protocol,
        path: this.options.path,
        wsPath: this.options.wsPath,
        transports: this.options.transports,
        connectTimeoutMs: this.options.connectTimeoutMs,
      },
      choice: this.choice,
      ...(this.options.lifetime !== undefined ? { lifetime: this.options.lifetime } : {}),
      backoff: this.backoff,
      stableAfterMs: this.options.reconnect.stableAfterMs ?? 5000,
      clock: this.clock,
      timers: this.timers,
      logger: this.logger,
      events: {
        up: (c, reconnect) => (this.isCurrent(c) ? this.onUp(c, reconnect) : this.rotations.get(c.index)?.nextUp()),
        down: (c, reason) => (this.isCurrent(c) ? this.onDown(c, reason) : this.rotations.get(c.index)?.abort()),
        message: (c, channel, data) => this.onMessage(c, channel, data),
        reconnectScheduled: (c, attempt, delayMs) => {
          this.counters.reconnects++;
          this.safeEmit('reconnectScheduled', c.index, attempt, delayMs);
        },
        malformedFrame: (_c, detail) => {
          this.counters.messages++;
          this.reportMalformed('envelope', undefined, detail);
        },
        lifetime: (c) => {
          if (this.isCurrent(c) && !this.rotations.has(c.index)) this.ageTimers.schedule(c);
        },
      },
    });
  }

  private isCurrent(conn: StreamConnection): boolean {
    return this.connections[conn.index] === conn;
  }

  /**
   * Replace connection `index` make-before-break. Resolves true when the replacement took over,
   * false when the connection was not up or the replacement failed (the old one then stays).
   */
  rotate(index: number): Promise<boolean> {
    const old = this.connections[index];
    if (old === undefined || !old.isUp || this.rotations.has(index) || !this.started) return Promise.resolve(false);
    this.ageTimers.clear(old);
    return new Promise<boolean>((resolve) => {
      const rotation = new Rotation(old, this.newConnection(index), {
        timers: this.timers,
        now: () => this.clock.now(),
        connectTimeoutMs: this.options.connectTimeoutMs,
        timeoutMs: this.options.handoverTimeoutMs,
        quietMs: Math.min(1000, this.options.handoverTimeoutMs / 2),
        deliver: (state, channel, data) => this.deliver(state, channel, data),
        done: (r, replaced) => {
          this.rotations.delete(index);
          if (replaced) {
            this.connections[index] = r.next;
            this.ageTimers.schedule(r.next);
          } else if (this.isCurrent(r.old) && r.old.isUp) {
            this.ageTimers.schedule(r.old, true);
          }
          this.logger.info({ conn: index, replaced }, 'stream connection rotated');
          this.safeEmit('rotated', index, replaced);
          resolve(replaced);
        },
      });
      this.rotations.set(index, rotation);
      const states: ChannelState[] = [];
      for (const ch of old.channels) {
        const state = this.channels.get(ch);
        if (state !== undefined) states.push(state);
      }
      rotation.begin(states);
    });
  }

  private onUp(conn: StreamConnection, reconnect: boolean): void {
    const now = this.clock.now();
    for (const ch of conn.channels) {
      const state = this.channels.get(ch);
      if (state !== undefined) state.since = now;
    }
    this.logger.info({ conn: conn.index, channels: conn.channels.size, reconnect }, 'stream connection up');
    this.ageTimers.schedule(conn);
    this.safeEmit('connectionUp', conn.index);
    if (reconnect) {
      this.counters.resubscribes += conn.channels.size;
      this.safeEmit('resubscribed', [...conn.channels]);
    }
    this.settleWaiters();
  }

  private onDown(conn: StreamConnection, reason: string): void {
    this.ageTimers.clear(conn);
    const rotation = this.rotations.get(conn.index);
    if (rotation?.next.isUp) {
      // The replacement is already up and subscribed: it takes over, nothing went stale.
      this.logger.info({ conn: conn.index, reason }, 'connection dropped during rotation; replacement takes over');
      rotation.complete();
      return;
    }
    rotation?.abort();
    for (const ch of conn.channels) {
      const state = this.channels.get(ch);
      if (state === undefined || state.stale) continue;
      state.stale = true;
      this.safeEmit('channelStale', ch, 'disconnected');
    }
    this.safeEmit('connectionDown', conn.index, reason);
  }

  /** The message path: keep it lean (no allocation beyond the parsed result). */
  private onMessage(conn: StreamConnection, channel: unknown, data: unknown): void {
    this.counters.messages++;
    if (typeof channel !== 'string') {
      this.reportMalformed('envelope', channel, 'Broadcaster channel is not a string');
      return;
    }
    const state = this.channels.get(channel);
    if (state === undefined) {
      this.counters.ignored++;
      return;
    }
    if (state.handover !== undefined) return this.onHandoverMessage(state, conn, channel, data);
    if (state.conn !== conn) {
      this.counters.ignored++;
      return;
    }
    this.deliver(state, channel, data);
  }

  private onHandoverMessage(state: ChannelState, conn: StreamConnection, channel: string, data: unknown): void {
    const handover = state.handover;
    if (handover === undefined) return;
    if (conn === state.conn) {
      const { deliver, then } = handover.fromOld(data);
      if (deliver) this.deliver(state, channel, data);
      if (then !== undefined) for (const d of then) this.deliver(state, channel, d);
    } else if (conn === state.next) {
      for (const d of handover.fromNew(data)) this.deliver(state, channel, d);
    } else {
      this.counters.ignored++;
      return;
    }
    this.rotations.get(state.conn.index)?.check();
  }

  /** Emit one payload of a channel: raw, parsed, then fresh. */
  private deliver(state: ChannelState, channel: string, data: unknown): void {
    try {
      this.emit('message', channel, data);
      const parseError = dispatchParsed(this, state.info, data, this.caches, this.options.depthSums);
      if (parseError !== undefined) {
        this.reportMalformed(state.info.kind, channel, parseError);
        return;
      }
    } catch (err) {
      this.listenerThrew('message', err);
    }
    state.since = this.clock.now();
    if (state.stale) {
      state.stale = false;
      this.safeEmit('channelFresh', channel);
    }
  }

  private reportMalformed(kind: MalformedKind, channel: unknown, err: unknown): void {
    const detail = this.malformedCounter.record(kind, channel, err);
    this.safeEmit('malformed', kind, detail);
  }

  /** Emit without letting a listener's exception escape into the socket's event loop. */
  private safeEmit<E extends keyof StreamClientEvents>(event: E, ...args: Parameters<StreamClientEvents[E]>): void {
    try {
      (this.emit as (e: E, ...a: Parameters<StreamClientEvents[E]>) => boolean)(event, ...args);
    } catch (err) {
      this.listenerThrew(event, err);
    }
  }

  private listenerThrew(event: string, err: unknown): void {
    this.counters.listenerErrors++;
    this.logger.error({ event, err: err instanceof Error ? err.message : String(err) }, 'stream listener threw');
  }

  private scheduleWatchdog(): void {
    if (this.watchdogTimer !== undefined || !this.started) return;
    this.watchdogTimer = this.timers.setTimeout(() => {
      this.watchdogTimer = undefined;
      this.checkSilence();
      this.scheduleWatchdog();
    }, this.options.watchdogIntervalMs);
  }

  /** Mark channels silent beyond their limit stale and resubscribe them (again every limit). */
  private checkSilence(): void {
    const now = this.clock.now();
    let resent: string[] | undefined;
    for (const [channel, state] of this.channels) {
      if (!state.conn.isUp || now - state.since < this.options.staleAfterMs[state.info.kind]) continue;
      state.since = now;
      if (!state.stale) {
        state.stale = true;
        this.safeEmit('channelStale', channel, 'silent');
      }
      if (state.conn.resubscribe(channel)) (resent ??= []).push(channel);
    }
    if (resent !== undefined) {
      this.counters.resubscribes += resent.length;
      this.logger.info({ channels: resent }, 'silent channels resubscribed');
      this.safeEmit('resubscribed', resent);
    }
  }

  private settleWaiters(): void {
    if (this.waiters.length === 0) return;
    for (const conn of this.connections) if (conn.channels.size > 0 && !conn.isUp) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.resolve();
  }
}
