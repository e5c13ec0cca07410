/**
 * One of the StreamClient's connections: a socket plus the channels assigned to it (at most
 * `maxChannelsPerConnection`). It subscribes its channels on every (re)connect and reconnects by
 * itself when the socket drops or fails to connect:
 * - after a drop of a connection that was up, attempt 0: the replacement opens at once;
 * - each further failure waits the Backoff delay of the next attempt (capped, jittered);
 * - the attempt counter returns to 0 only after a connection stayed up `stableAfterMs`, so a server
 *   that accepts and drops at once is not hammered.
 *
 * Lifetime: the exchange cuts a connection `cutAfterMs` (30 min) after it opened, plus `extendMs`
 * (30 s) per ping answered, counting at most `maxExtensions` (100) answers. The connection tracks
 * that deadline (`deadline`, reported through `events.lifetime` whenever it moves) so its owner can
 * replace it before the cut.
 */
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import type { Timeouts as Timers } from '../../core/timers.js';
import type { Backoff } from './backoff.js';
import { openSocket, type SocketOptions, type StreamSocket, type StreamTransport, type TransportChoice } from './transport.js';

/** One-shot timers (reconnect waits, lifetimes): the core's port, one definition for every module. */
export type { Timers };

interface ConnectionEvents {
  up(conn: StreamConnection, reconnect: boolean): void;
  down(conn: StreamConnection, reason: string): void;
  message(conn: StreamConnection, channel: unknown, data: unknown): void;
  reconnectScheduled(conn: StreamConnection, attempt: number, delayMs: number, reason: string): void;
  /** A frame that is not `[channel, payload]` (plain WebSocket). */
  malformedFrame?(conn: StreamConnection, detail: string): void;
  /** The connection's deadline moved (a ping was answered). */
  lifetime?(conn: StreamConnection): void;
}

/** The server's rule for how long a connection may live. */
export interface LifetimeRule {
  /** Life of a connection that answers no ping, ms (the exchange: 30 min). */
  cutAfterMs: number;
  /** Added per ping answered, ms (the exchange: 30 s). */
  extendMs: number;
  /** Answers that count (the exchange: 100). */
  maxExtensions: number;
}

export const EXCHANGE_LIFETIME: Readonly<LifetimeRule> = { cutAfterMs: 30 * 60_000, extendMs: 30_000, maxExtensions: 100 };

export interface ConnectionDeps {
  /** Socket options; `transport` is taken from `choice` on every attempt. */
  socket: Omit<SocketOptions, 'transport'>;
  choice: TransportChoice;
  /** Undefined: no lifetime tracking. */
  lifetime?: LifetimeRule;
  backoff: Backoff;
  stableAfterMs: number;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  events: ConnectionEvents;
}

type State = 'idle' | 'connecting' | 'up' | 'waiting' | 'closed';

export class StreamConnection {
  readonly channels = new Set<string>();
  private socket: StreamSocket | undefined;
  private state: State = 'idle';
  private attempt = 0;
  private upSince = 0;
  private everUp = false;
  private timer: unknown;
  private answered = 0;
  private deadlineMs: number | undefined;
  private usedTransport: StreamTransport | undefined;
  private readonly onBroadcast: (channel: unknown, data: unknown) => void;

  constructor(
    readonly index: number,
    private readonly deps: ConnectionDeps,
  ) {
    this.onBroadcast = (channel, data) => deps.events.message(this, channel, data);
  }

  get isUp(): boolean {
    return this.state === 'up';
  }

  get isOpen(): boolean {
    return this.state !== 'idle' && this.state !== 'closed';
  }

  /** The route of the current (or last) socket. */
  get transport(): StreamTransport | undefined {
    return this.usedTransport;
  }

  /** When the server will cut this connection (ms), while up and tracked. */
  get deadline(): number | undefined {
    return this.state === 'up' ? this.deadlineMs : undefined;
  }

  /** Since when the connection is up (ms). */
  get upAt(): number {
    return this.upSince;
  }

  /** Pings answered on the current socket. */
  get pingsAnswered(): number {
    return this.answered;
  }

  /** Open the socket now (no-op when already open or connecting). */
  start(): void {
    if (this.state === 'connecting' || this.state === 'up' || this.state === 'waiting') return;
    this.open();
  }

  add(channel: string): void {
    this.channels.add(channel);
    if (this.state === 'up') this.socket?.emit('subscribe', { channel });
  }

  remove(channel: string): void {
    if (!this.channels.delete(channel)) return;
    if (this.state === 'up') this.socket?.emit('unsubscribe', { channel });
  }

  /** Send `subscribe` again (watchdog). False when the connection is not up. */
  resubscribe(channel: string): boolean {
    if (this.state !== 'up' || !this.channels.has(channel)) return false;
    this.socket?.emit('subscribe', { channel });
    return true;
  }

  /** Close the socket and stop reconnecting. `start()` may open it again. */
  stop(): void {
    this.deps.timers.clearTimeout(this.timer);
    this.timer = undefined;
    const socket = this.socket;
    this.socket = undefined;
    this.state = 'closed';
    socket?.close();
  }

  private open(): void {
    this.state = 'connecting';
    const transport = this.deps.choice.current;
    this.usedTransport = transport;
    this.socket = openSocket(
      { ...this.deps.socket, transport },
      {
        connect: () => this.handleConnect(),
        disconnect: (reason) => this.handleLost(reason, true),
        error: (message) => this.handleLost(message, false),
        broadcast: this.onBroadcast,
        heartbeat: () => this.handleHeartbeat(),
        malformed: (detail) => this.deps.events.malformedFrame?.(this, detail),
      },
    );
  }

  private handleHeartbeat(): void {
    if (this.state !== 'up') return;
    const rule = this.deps.lifetime;
    if (rule === undefined || this.answered >= rule.maxExtensions) return;
    this.answered++;
    this.deadlineMs = this.upSince + rule.cutAfterMs + rule.extendMs * this.answered;
    this.deps.events.lifetime?.(this);
  }

  private handleConnect(): void {
    if (this.state !== 'connecting') return;
    this.state = 'up';
    this.upSince = this.deps.clock.now();
    this.answered = 0;
    this.deadlineMs = this.deps.lifetime === undefined ? undefined : this.upSince + this.deps.lifetime.cutAfterMs;
    if (this.usedTransport !== undefined) this.deps.choice.connected(this.usedTransport);
    const reconnect = this.everUp;
    this.everUp = true;
    const socket = this.socket;
    for (const channel of this.channels) socket?.emit('subscribe', { channel });
    this.deps.events.up(this, reconnect);
  }

  private handleLost(reason: string, wasDisconnect: boolean): void {
    if (this.state !== 'up' && this.state !== 'connecting') return;
    const wasUp = this.state === 'up';
    const socket = this.socket;
    this.socket = undefined;
    this.state = 'waiting';
    socket?.close();
    if (wasUp) {
      if (this.deps.clock.now() - this.upSince >= this.deps.stableAfterMs) this.attempt = 0;
      this.deps.logger.warn({ conn: this.index, reason }, 'stream connection lost');
      this.deps.events.down(this, reason);
      // A listener may have stopped this connection (a rotation promoted its replacement).
      if ((this.state as State) !== 'waiting') return;
    } else {
      this.deps.logger.debug({ conn: this.index, reason, disconnect: wasDisconnect, transport: this.usedTransport }, 'stream connect failed');
      if (this.usedTransport !== undefined && this.deps.choice.failed(this.usedTransport, reason)) {
        // `auto`: /ws is not there; socket.io at once, no backoff.
        this.open();
        return;
      }
    }
    const attempt = this.attempt++;
    const delay = this.deps.backoff.delay(attempt);
    this.deps.events.reconnectScheduled(this, attempt, delay, reason);
    this.timer = this.deps.timers.setTimeout(() => {
      this.timer = undefined;
      if (this.state === 'waiting') this.open();
    }, delay);
  }
}
