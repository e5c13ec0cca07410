/**
 * PrivateStreamClient: the account's own activity on the exchange's stream. It subscribes
 * `<stream_key>` (orderSaved, balanceUpdated) and `<stream_key>@tradeDetails` (fills) on one
 * connection of its own, on every (re)connect, and emits typed `orderSaved`, `tradeDetails` and
 * `balanceUpdated` events. A malformed message is counted, logged once per kind and skipped, as on
 * the public channels.
 *
 * The stream key comes from the exchange's web login, not from an API key, and is a secret like
 * the API key: it is sent only inside `subscribe`. Log lines, errors and events name the channels
 * `<stream_key>` and `<stream_key>@tradeDetails`; a detail that would echo the key has it replaced.
 *
 * Health: a private channel is silent whenever the account does nothing, so silence says nothing
 * (no watchdog). The stream is `up` while the connection is up and subscribed; `down` when it drops
 * (updates sent meanwhile are lost: the order tracker polls then).
 *
 * Transport and lifetime as the public StreamClient: `ws`, `socketio` or `auto`; the connection is
 * replaced make-before-break before the server's lifetime cut (the replacement subscribes both
 * channels, the two streams are matched message by message, then the old one closes), so a
 * long-running bot neither misses nor repeats an update at the cut, and sees no `down`.
 */
import { EventEmitter } from 'eventemitter3';
import { type Clock, SystemClock } from '../../core/clock.js';
import { ParameterError } from '../../core/errors.js';
import { type Logger, silentLogger } from '../../core/logger.js';
import type { Balance } from '../../core/types/account.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import { type LifetimeRule, StreamConnection, type Timers } from './connection.js';
import { MalformedCounter, type MalformedKind } from './malformed.js';
import { defaultTimers, resolveLifetime } from './options.js';
import { PrivatePayloadError, parsePrivateMessage, type PrivateOrderUpdate, type PrivateTrade } from './private-parse.js';
import { type RotatingChannel, Rotation } from './rotation.js';
import { parseTransportSetting, type StreamProtocol, type StreamTransport, type StreamTransportSetting, TransportChoice, wsAddress } from './transport.js';

/** How the private channels appear in logs, errors and events. */
const REDACTED_CHANNEL = '<stream_key>';
const REDACTED_TRADE_CHANNEL = '<stream_key>@tradeDetails';

export interface PrivateStreamOptions {
  /** Base URL of the stream, e.g. `https://api.wallex.ir` or `http://127.0.0.1:8080`. */
  url: string;
  /** The account's stream key (from the web login). Never logged. */
  streamKey: string;
  /** `ws`, `socketio` or `auto` (default: `/ws`, socket.io when it cannot connect). */
  transport?: StreamTransportSetting;
  protocol?: StreamProtocol;
  path?: string;
  wsPath?: string;
  transports?: string[];
  /** The server's connection lifetime rule (default: the exchange's); `false`: not tracked. */
  lifetime?: Partial<LifetimeRule> | false;
  /** How long before the cut the connection is replaced, ms. Default min(60 000, cutAfterMs / 4). */
  lifetimeLeadMs?: number;
  /** Longest the overlap of a replacement may take once it is up, ms (connecting is bounded by connectTimeoutMs). Default 5000. */
  handoverTimeoutMs?: number;
  connectTimeoutMs?: number;
  reconnect?: BackoffOptions & { stableAfterMs?: number };
  clock?: Clock;
  logger?: Logger;
  timers?: Timers;
  random?: () => number;
}

export interface PrivateStreamEvents {
  orderSaved: (order: PrivateOrderUpdate) => void;
  tradeDetails: (trade: PrivateTrade) => void;
  /** The assets whose balance changed (value includes locked). */
  balanceUpdated: (balances: Balance[], timestamp: number) => void;
  /** Connected and subscribed; `reconnect` after a drop. */
  up: (reconnect: boolean) => void;
  /** The connection dropped: updates until the next `up` are lost. */
  down: (reason: string) => void;
  malformed: (kind: MalformedKind, detail: string) => void;
}

export interface PrivateStreamStats {
  messages: number;
  orderSaved: number;
  tradeDetails: number;
  balanceUpdated: number;
  malformedTotal: number;
  malformed: Partial<Record<MalformedKind, number>>;
  ignored: number;
  reconnects: number;
  /** Connections replaced before the server's cut. */
  rotations: number;
  listenerErrors: number;
  up: boolean;
}

const KEY_RE = /^[\x21-\x3f\x41-\x7e]{6,87}$/;

/** Checks a stream key's form; the error never contains the value. */
export function validateStreamKey(key: unknown): string {
  if (typeof key !== 'string' || !KEY_RE.test(key)) {
    const shown = typeof key === 'string' ? `a string of ${key.length} characters (value hidden)` : typeof key;
    throw new ParameterError('streamKey', shown, '6 to 87 printable ASCII characters without "@" or spaces');
  }
  return key;
}

export class PrivateStreamClient extends EventEmitter<PrivateStreamEvents> {
  private readonly key: string;
  private readonly tradeChannel: string;
  private conn: StreamConnection;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly timers: Timers;
  private readonly malformedCounter: MalformedCounter;
  private readonly choice: TransportChoice;
  private readonly makeConnection: () => StreamConnection;
  private readonly lifetimeLeadMs: number;
  private readonly handoverTimeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly states: RotatingChannel[];
  private rotation: Rotation<RotatingChannel> | undefined;
  private ageTimer: unknown;
  private closed = false;
  private counters = { messages: 0, orderSaved: 0, tradeDetails: 0, balanceUpdated: 0, ignored: 0, reconnects: 0, rotations: 0, listenerErrors: 0 };
  private waiters: (() => void)[] = [];

  constructor(options: PrivateStreamOptions) {
    super();
    if (typeof options.url !== 'string' || !/^(https?|wss?):\/\//.test(options.url)) throw new ParameterError('url', options.url, 'an http(s) or ws(s) URL');
    const protocol = options.protocol ?? 4;
    if (protocol !== 3 && protocol !== 4) throw new ParameterError('protocol', protocol, '3 or 4');
    this.key = validateStreamKey(options.streamKey);
    this.tradeChannel = `${this.key}@tradeDetails`;
    this.clock = options.clock ?? new SystemClock();
    this.logger = (options.logger ?? silentLogger).child({ component: 'private-stream' });
    this.malformedCounter = new MalformedCounter(this.logger);
    this.timers = options.timers ?? defaultTimers;
    const lifetime = resolveLifetime(options.lifetime);
    const url = options.url;
    const path = options.path ?? '/socket.io';
    const wsPath = options.wsPath ?? '/ws';
    this.choice = new TransportChoice(parseTransportSetting(options.transport ?? 'auto'), this.logger, (t) =>
      t === 'ws' ? wsAddress(url, wsPath) : `${url.replace(/\/$/, '')}${path}`,
    );
    this.lifetimeLeadMs = options.lifetimeLeadMs ?? Math.min(60_000, (lifetime?.cutAfterMs ?? 240_000) / 4);
    this.handoverTimeoutMs = options.handoverTimeoutMs ?? 5000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    const backoff = new Backoff(options.reconnect ?? {}, options.random);
    this.makeConnection = () => {
      const conn: StreamConnection = new StreamConnection(0, {
        socket: {
          url,
          protocol,
          path,
          wsPath,
          transports: options.transports ?? ['websocket'],
          connectTimeoutMs: this.connectTimeoutMs,
        },
        choice: this.choice,
        ...(lifetime !== undefined ? { lifetime } : {}),
        backoff,
        stableAfterMs: options.reconnect?.stableAfterMs ?? 5000,
        clock: this.clock,
        timers: this.timers,
        logger: this.logger,
        events: {
          up: (c, reconnect) => (c === this.conn ? this.onUp(reconnect) : this.rotation?.nextUp()),
          down: (c, reason) => (c === this.conn ? this.onDown(reason) : this.rotation?.abort()),
          message: (c, channel, data) => this.onMessage(c, channel, data),
          reconnectScheduled: () => void this.counters.reconnects++,
          malformedFrame: (_c, detail) => {
            this.counters.messages++;
            const safe = this.redact(detail);
            this.safeEmit('malformed', 'privateEnvelope', this.malformedCounter.record('privateEnvelope', REDACTED_CHANNEL, new Error(safe)));
          },
          lifetime: (c) => {
            if (c === this.conn && this.rotation === undefined) this.scheduleAge();
          },
        },
      });
      conn.add(this.key);
      conn.add(this.tradeChannel);
      return conn;
    };
    this.conn = this.makeConnection();
    this.states = [
      { info: { channel: this.key }, conn: this.conn },
      { info: { channel: this.tradeChannel }, conn: this.conn },
    ];
  }

  /** The route in use (`undefined` until the connection has been up). */
  get transport(): StreamTransport | undefined {
    return this.choice.inUse;
  }

  get isUp(): boolean {
    return this.conn.isUp;
  }

  /** Open the connection; resolves once it is up and subscribed. */
  connect(): Promise<void> {
    this.conn.start();
    if (this.conn.isUp) return Promise.resolve();
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  close(): void {
    this.closed = true;
    this.timers.clearTimeout(this.ageTimer);
    this.ageTimer = undefined;
    this.rotation?.abort();
    this.conn.stop();
    this.waiters = [];
  }

  /**
   * Replace the connection make-before-break (done by itself before the server's cut). Resolves
   * true when the replacement took over, false when it could not (the old connection stays).
   */
  rotate(): Promise<boolean> {
    if (this.closed || !this.conn.isUp || this.rotation !== undefined) return Promise.resolve(false);
    this.timers.clearTimeout(this.ageTimer);
    this.ageTimer = undefined;
    const old = this.conn;
    return new Promise<boolean>((resolve) => {
      const rotation = new Rotation<RotatingChannel>(old, this.makeConnection(), {
        timers: this.timers,
        now: () => this.clock.now(),
        connectTimeoutMs: this.connectTimeoutMs,
        timeoutMs: this.handoverTimeoutMs,
        quietMs: Math.min(1000, this.handoverTimeoutMs / 2),
        deliver: (_state, channel, data) => this.handle(channel, data),
        done: (r, replaced) => {
          this.rotation = undefined;
          if (replaced) {
            this.conn = r.next;
            for (const st of this.states) st.conn = r.next;
            this.counters.rotations++;
          }
          this.logger.info({ replaced }, 'private stream connection rotated');
          if (!this.closed) this.scheduleAge(!replaced);
          resolve(replaced);
        },
      });
      this.rotation = rotation;
      rotation.begin(this.states);
    });
  }

  /** Arm the replacement `lifetimeLeadMs` before the connection's deadline. */
  private scheduleAge(retry = false): void {
    this.timers.clearTimeout(this.ageTimer);
    this.ageTimer = undefined;
    const deadline = this.conn.deadline;
    if (deadline === undefined) return;
    let delay = deadline - this.lifetimeLeadMs - this.clock.now();
    if (retry) delay = Math.max(delay, Math.min(1000, this.lifetimeLeadMs / 4));
    this.ageTimer = this.timers.setTimeout(
      () => {
        this.ageTimer = undefined;
        void this.rotate();
      },
      Math.max(0, delay),
    );
  }

  stats(): PrivateStreamStats {
    return {
      ...this.counters,
      malformed: this.malformedCounter.snapshot(),
      malformedTotal: this.malformedCounter.total,
      up: this.conn.isUp,
    };
  }

  /** Replace the key wherever it appears (a payload or reason that echoes it). */
  redact(text: string): string {
    return text.includes(this.key) ? text.split(this.key).join(REDACTED_CHANNEL) : text;
  }

  private onUp(reconnect: boolean): void {
    this.scheduleAge();
    this.logger.info({ channels: [REDACTED_CHANNEL, REDACTED_TRADE_CHANNEL], reconnect }, 'private stream subscribed');
    this.safeEmit('up', reconnect);
    for (const w of this.waiters.splice(0)) w();
  }

  private onDown(reason: string): void {
    this.timers.clearTimeout(this.ageTimer);
    this.ageTimer = undefined;
    const rotation = this.rotation;
    if (rotation?.next.isUp) {
      // The replacement is up and subscribed: it takes over, nothing is lost.
      this.logger.info({ reason: this.redact(reason) }, 'private stream connection dropped during rotation; replacement takes over');
      rotation.complete();
      return;
    }
    rotation?.abort();
    this.logger.warn({ reason: this.redact(reason) }, 'private stream down: order updates fall back to polling');
    this.safeEmit('down', this.redact(reason));
  }

  private onMessage(conn: StreamConnection, channel: unknown, data: unknown): void {
    this.counters.messages++;
    if (channel !== this.key && channel !== this.tradeChannel) {
      this.counters.ignored++;
      return;
    }
    const state = this.states[channel === this.key ? 0 : 1]!;
    const handover = state.handover;
    if (handover !== undefined) {
      if (conn === state.conn) {
        const { deliver, then } = handover.fromOld(data);
        if (deliver) this.handle(channel, data);
        if (then !== undefined) for (const d of then) this.handle(channel, d);
      } else if (conn === state.next) {
        for (const d of handover.fromNew(data)) this.handle(channel, d);
      } else {
        this.counters.ignored++;
        return;
      }
      this.rotation?.check();
      return;
    }
    if (conn !== this.conn) {
      this.counters.ignored++;
      return;
    }
    this.handle(channel, data);
  }

  /** Parse and emit one message of a private channel. */
  private handle(channel: string, data: unknown): void {
    let msg;
    try {
      msg = parsePrivateMessage(data, channel === this.tradeChannel, this.clock.now());
    } catch (err) {
      const kind: MalformedKind = err instanceof PrivatePayloadError ? err.kind : 'privateEnvelope';
      const safe = new Error(this.redact(err instanceof Error ? err.message : String(err)));
      const detail = this.malformedCounter.record(kind, channel === this.key ? REDACTED_CHANNEL : REDACTED_TRADE_CHANNEL, safe);
      this.safeEmit('malformed', kind, detail);
      return;
    }
    this.counters[msg.kind]++;
    if (msg.kind === 'orderSaved') this.safeEmit('orderSaved', msg.order);
    else if (msg.kind === 'tradeDetails') this.safeEmit('tradeDetails', msg.trade);
    else this.safeEmit('balanceUpdated', msg.balances, msg.timestamp);
  }

  private safeEmit<E extends keyof PrivateStreamEvents>(event: E, ...args: Parameters<PrivateStreamEvents[E]>): void {
    try {
      (this.emit as (e: E, ...a: Parameters<PrivateStreamEvents[E]>) => boolean)(event, ...args);
    } catch (err) {
      this.counters.listenerErrors++;
      this.logger.error({ event, err: this.redact(err instanceof Error ? err.message : String(err)) }, 'private stream listener threw');
    }
  }
}
