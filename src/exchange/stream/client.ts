/**
 * StreamClient: the exchange's socket.io market-data stream.
 *
 * - protocol 4 (`socket.io-client` 4.x, default) or 3 (`socket.io-client@2.5.0` alias);
 * - channels spread over several connections, at most `maxChannelsPerConnection` (50) each;
 * - `subscribe` is sent on every (re)connect for that connection's channels;
 * - reconnect is ours (capped exponential backoff with jitter, first retry at once);
 * - a watchdog marks a channel silent beyond its kind's limit stale and resubscribes it;
 * - payloads arrive on `Broadcaster (channel, data)`, are emitted raw as `message` and parsed into
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
import { type Clock, SystemClock } from '../../core/clock.js';
import { NetworkError, ParameterError } from '../../core/errors.js';
import { type Logger, silentLogger } from '../../core/logger.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import { type ChannelInfo, type ChannelKind, parseChannel } from './channels.js';
import { StreamConnection, type Timers } from './connection.js';
import { type MalformedKind, MalformedCounter } from './malformed.js';
import { dispatchParsed } from './dispatch.js';
import type { StreamClientEvents, StreamStats } from './events.js';
import { createParseCaches } from './parse.js';
import type { StreamProtocol } from './transport.js';

export interface StreamClientOptions {
  /** Base URL, e.g. `https://api.wallex.ir` or `http://127.0.0.1:8080`. */
  url: string;
  /** 4: socket.io-client 4.x (default); 3: socket.io-client 2.5.0 (Engine.IO 3). */
  protocol?: StreamProtocol;
  /** Default `/socket.io`. */
  path?: string;
  /** Default `['websocket']`. */
  transports?: string[];
  /** Default 50 (the exchange's guidance). */
  maxChannelsPerConnection?: number;
  /** Backoff, plus `stableAfterMs` (default 5000): uptime after which the attempt count resets. */
  reconnect?: BackoffOptions & { stableAfterMs?: number };
  /** Handshake timeout, ms. Default 10 000. */
  connectTimeoutMs?: number;
  /** Silence, per kind, after which a channel is stale and resubscribed. */
  staleAfterMs?: Partial<Record<ChannelKind, number>>;
  /** How often the watchdog looks. Default: a quarter of the shortest limit, within 50..1000 ms. */
  watchdogIntervalMs?: number;
  /** Parse the `sum` of depth levels too (one more Decimal per level). Default false. */
  depthSums?: boolean;
  clock?: Clock;
  logger?: Logger;
  timers?: Timers;
  /** Random source of the jitter (tests). */
  random?: () => number;
}

export const DEFAULT_STALE_AFTER_MS: Readonly<Record<ChannelKind, number>> = {
  depth: 10_000,
  trade: 60_000,
  marketCap: 60_000,
  price: 30_000,
};

interface ChannelState {
  info: ChannelInfo;
  conn: StreamConnection;
  /** Last valid message or (re)subscribe, ms: the watchdog measures silence from here. */
  since: number;
  stale: boolean;
}

const defaultTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout> | undefined),
};

export class StreamClient extends EventEmitter<StreamClientEvents> {
  private readonly channels = new Map<string, ChannelState>();
  private readonly connections: StreamConnection[] = [];
  private readonly malformedCounter: MalformedCounter;
  private readonly caches = createParseCaches();
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly timers: Timers;
  private readonly backoff: Backoff;
  private readonly maxPerConnection: number;
  private readonly staleAfter: Record<ChannelKind, number>;
  private readonly watchdogMs: number;
  private readonly depthSums: boolean;
  private started = false;
  private watchdogTimer: unknown;
  private waiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  private counters = { messages: 0, ignored: 0, reconnects: 0, resubscribes: 0, listenerErrors: 0 };

  constructor(private readonly options: StreamClientOptions) {
    super();
    if (typeof options.url !== 'string' || !/^(https?|wss?):\/\//.test(options.url)) {
      throw new ParameterError('url', options.url, 'an http(s) or ws(s) URL');
    }
    const protocol = options.protocol ?? 4;
    if (protocol !== 3 && protocol !== 4) throw new ParameterError('protocol', protocol, '3 or 4');
    this.maxPerConnection = options.maxChannelsPerConnection ?? 50;
    if (!Number.isInteger(this.maxPerConnection) || this.maxPerConnection < 1) {
      throw new ParameterError('maxChannelsPerConnection', this.maxPerConnection, 'an integer >= 1');
    }
    this.staleAfter = { ...DEFAULT_STALE_AFTER_MS, ...options.staleAfterMs };
    for (const [kind, ms] of Object.entries(this.staleAfter)) {
      if (!(ms > 0)) throw new ParameterError(`staleAfterMs.${kind}`, ms, 'a number of ms > 0');
    }
    const shortest = Math.min(...Object.values(this.staleAfter));
    this.watchdogMs = options.watchdogIntervalMs ?? Math.min(1000, Math.max(50, Math.floor(shortest / 4)));
    this.clock = options.clock ?? new SystemClock();
    this.logger = (options.logger ?? silentLogger).child({ component: 'stream' });
    this.timers = options.timers ?? defaultTimers;
    this.backoff = new Backoff(options.reconnect, options.random);
    this.depthSums = options.depthSums ?? false;
    this.malformedCounter = new MalformedCounter(this.logger);
  }

  /** Subscribe a channel (cleaned and validated; returns the clean name). Idempotent. */
  subscribe(channel: string): string {
    const info = parseChannel(channel);
    const existing = this.channels.get(info.channel);
    if (existing !== undefined) return info.channel;
    const conn = this.connectionWithRoom();
    this.channels.set(info.channel, { info, conn, since: this.clock.now(), stale: true });
    conn.add(info.channel);
    if (this.started) conn.start();
    return info.channel;
  }

  /** Stop a channel. A connection left without channels is closed. */
  unsubscribe(channel: string): void {
    const info = parseChannel(channel);
    const state = this.channels.get(info.channel);
    if (state === undefined) return;
    this.channels.delete(info.channel);
    state.conn.remove(info.channel);
    if (state.conn.channels.size === 0) state.conn.stop();
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
    for (const conn of this.connections) conn.stop();
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
    for (const conn of this.connections) if (conn.channels.size < this.maxPerConnection) return conn;
    const conn = new StreamConnection(this.connections.length, {
      socket: {
        url: this.options.url,
        protocol: this.options.protocol ?? 4,
        path: this.options.path ?? '/socket.io',
        transports: this.options.transports ?? ['websocket'],
        connectTimeoutMs: this.options.connectTimeoutMs ?? 10_000,
      },
      backoff: this.backoff,
      stableAfterMs: this.options.reconnect?.stableAfterMs ?? 5000,
      clock: this.clock,
      timers: this.timers,
      logger: this.logger,
      events: {
        up: (c, reconnect) => this.onUp(c, reconnect),
        down: (c, reason) => this.onDown(c, reason),
        message: (c, channel, data) => this.onMessage(c, channel, data),
        reconnectScheduled: (c, attempt, delayMs) => {
          this.counters.reconnects++;
          this.safeEmit('reconnectScheduled', c.index, attempt, delayMs);
        },
      },
    });
    this.connections.push(conn);
    return conn;
  }

  private onUp(conn: StreamConnection, reconnect: boolean): void {
    const now = this.clock.now();
    for (const ch of conn.channels) {
      const state = this.channels.get(ch);
      if (state !== undefined) state.since = now;
    }
    this.logger.info({ conn: conn.index, channels: conn.channels.size, reconnect }, 'stream connection up');
    this.safeEmit('connectionUp', conn.index);
    if (reconnect) {
      this.counters.resubscribes += conn.channels.size;
      this.safeEmit('resubscribed', [...conn.channels]);
    }
    this.settleWaiters();
  }

  private onDown(conn: StreamConnection, reason: string): void {
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
    if (state === undefined || state.conn !== conn) {
      this.counters.ignored++;
      return;
    }
    try {
      this.emit('message', channel, data);
      const parseError = dispatchParsed(this, state.info, data, this.caches, this.depthSums);
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
    }, this.watchdogMs);
  }

  /** Mark channels silent beyond their limit stale and resubscribe them (again every limit). */
  private checkSilence(): void {
    const now = this.clock.now();
    let resent: string[] | undefined;
    for (const [channel, state] of this.channels) {
      if (!state.conn.isUp || now - state.since < this.staleAfter[state.info.kind]) continue;
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
