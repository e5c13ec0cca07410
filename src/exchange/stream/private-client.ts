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
 */
import { EventEmitter } from 'eventemitter3';
import { type Clock, SystemClock } from '../../core/clock.js';
import { ParameterError } from '../../core/errors.js';
import { type Logger, silentLogger } from '../../core/logger.js';
import type { Balance } from '../../core/types/account.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import { StreamConnection, type Timers } from './connection.js';
import { MalformedCounter, type MalformedKind } from './malformed.js';
import { defaultTimers } from './options.js';
import { PrivatePayloadError, parsePrivateMessage, type PrivateOrderUpdate, type PrivateTrade } from './private-parse.js';
import type { StreamProtocol } from './transport.js';

/** How the private channels appear in logs, errors and events. */
export const REDACTED_CHANNEL = '<stream_key>';
export const REDACTED_TRADE_CHANNEL = '<stream_key>@tradeDetails';

export interface PrivateStreamOptions {
  /** Base URL of the stream, e.g. `https://api.wallex.ir` or `http://127.0.0.1:8080`. */
  url: string;
  /** The account's stream key (from the web login). Never logged. */
  streamKey: string;
  protocol?: StreamProtocol;
  path?: string;
  transports?: string[];
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
  private readonly conn: StreamConnection;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly malformedCounter: MalformedCounter;
  private counters = { messages: 0, orderSaved: 0, tradeDetails: 0, balanceUpdated: 0, ignored: 0, reconnects: 0, listenerErrors: 0 };
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
    this.conn = new StreamConnection(0, {
      socket: {
        url: options.url,
        protocol,
        path: options.path ?? '/socket.io',
        transports: options.transports ?? ['websocket'],
        connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      },
      backoff: new Backoff(options.reconnect ?? {}, options.random),
      stableAfterMs: options.reconnect?.stableAfterMs ?? 5000,
      clock: this.clock,
      timers: options.timers ?? defaultTimers,
      logger: this.logger,
      events: {
        up: (_c, reconnect) => this.onUp(reconnect),
        down: (_c, reason) => this.onDown(reason),
        message: (_c, channel, data) => this.onMessage(channel, data),
        reconnectScheduled: () => void this.counters.reconnects++,
      },
    });
    this.conn.add(this.key);
    this.conn.add(this.tradeChannel);
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
    this.conn.stop();
    this.waiters = [];
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
    this.logger.info({ channels: [REDACTED_CHANNEL, REDACTED_TRADE_CHANNEL], reconnect }, 'private stream subscribed');
    this.safeEmit('up', reconnect);
    for (const w of this.waiters.splice(0)) w();
  }

  private onDown(reason: string): void {
    this.logger.warn({ reason: this.redact(reason) }, 'private stream down: order updates fall back to polling');
    this.safeEmit('down', this.redact(reason));
  }

  private onMessage(channel: unknown, data: unknown): void {
    this.counters.messages++;
    if (channel !== this.key && channel !== this.tradeChannel) {
      this.counters.ignored++;
      return;
    }
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
