/**
 * One stream connection, through any of the exchange's routes, behind one small interface.
 *
 * - `ws`: the plain WebSocket the exchange's current documentation connects to (`wss://host/ws`),
 *   on the `ws` library. Frames are JSON arrays: `["subscribe", {"channel": …}]` out,
 *   `[channel, payload]` in. The server's ping frames are answered by `ws` itself (pong frames);
 *   each one is reported as a heartbeat (the exchange extends the connection's life per answer).
 *   The documentation says the server sends a PING every 20 s and counts the client's PONGs without
 *   showing their form, so an application-level ping is answered too (see `appPong`): a text frame
 *   `{"ping": x}` gets `{"pong": x}`, a bare `ping` / `PING` gets `pong` / `PONG`. It is a heartbeat,
 *   not a malformed frame.
 * - `socketio`, protocol 4: `socket.io-client` 4.x (Engine.IO 4).
 * - `socketio`, protocol 3: `socket.io-client@2.5.0`, installed as the npm alias
 *   `socket.io-client-v2` (Engine.IO 3, what the exchange's older documentation asks for). It is
 *   CommonJS without types, so it is loaded with createRequire behind the minimal local type below,
 *   and only when used. Engine.IO answers pings by itself; a heartbeat is reported per ping answered
 *   (protocol 4: the server's ping; protocol 3: the server's pong to the client's ping).
 *
 * Built-in socket.io reconnection is off (the StreamClient owns reconnects, backoff and
 * resubscription) and every socket gets its own engine connection (`forceNew`): socket.io would
 * otherwise multiplex sockets to the same URL over one connection, defeating the ≤ 50 channels per
 * connection limit.
 */
import { createRequire } from 'node:module';
import { io as ioV4 } from 'socket.io-client';
import WebSocket from 'ws';
import { ParameterError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';

export type StreamProtocol = 3 | 4;
/** The route a connection uses. */
export type StreamTransport = 'ws' | 'socketio';
/** What may be configured: a route, or `auto` (`/ws` first, socket.io when it cannot connect). */
export type StreamTransportSetting = StreamTransport | 'auto';

export function parseTransportSetting(value: unknown, field = 'transport'): StreamTransportSetting {
  if (value === 'auto' || value === 'ws' || value === 'socketio') return value;
  throw new ParameterError(field, value, 'ws, socketio or auto');
}

export interface SocketHandlers {
  connect(): void;
  /** The connection closed (by the server, the network, or a ping timeout). */
  disconnect(reason: string): void;
  /** Connecting failed (refused, timeout, handshake error). */
  error(message: string): void;
  /** A data message: `(channel, data)` (a `Broadcaster` event, or a `[channel, payload]` frame). */
  broadcast(channel: unknown, data: unknown): void;
  /** The server's ping was answered (one heartbeat). */
  heartbeat(): void;
  /** A frame that is not `[channel, payload]` JSON (plain WebSocket only); skipped. */
  malformed(detail: string): void;
}

export interface SocketOptions {
  url: string;
  transport: StreamTransport;
  protocol: StreamProtocol;
  /** socket.io path. Default `/socket.io`. */
  path: string;
  /** Path of the plain WebSocket. Default `/ws`. */
  wsPath: string;
  /** socket.io transports. Default `['websocket']` (no long-polling phase). */
  transports: string[];
  /** Connect (handshake) timeout, ms. */
  connectTimeoutMs: number;
}

export interface StreamSocket {
  emit(event: string, payload: unknown): void;
  /** Close without reconnecting; no handler is called afterwards. */
  close(): void;
}

/** The part of socket.io-client 2.x this module uses. */
interface V2Socket {
  on(event: string, fn: (...args: unknown[]) => void): unknown;
  emit(event: string, ...args: unknown[]): unknown;
  close(): unknown;
  off(): unknown;
  io: { on(event: string, fn: (...args: unknown[]) => void): unknown; off(event: string): unknown };
}
type V2Lookup = (url: string, opts: Record<string, unknown>) => V2Socket;

let v2Lookup: V2Lookup | undefined;
function loadV2(): V2Lookup {
  if (v2Lookup === undefined) {
    const require = createRequire(import.meta.url);
    v2Lookup = require('socket.io-client-v2') as V2Lookup;
  }
  return v2Lookup;
}

function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : String(err);
}

/** `http(s)://host[:port][/…]` or `ws(s)://…` to the plain WebSocket address `ws(s)://host[:port]/ws`. */
export function wsAddress(url: string, wsPath = '/ws'): string {
  const u = new URL(url);
  if (u.protocol === 'http:') u.protocol = 'ws:';
  else if (u.protocol === 'https:') u.protocol = 'wss:';
  else if (u.protocol !== 'ws:' && u.protocol !== 'wss:') throw new ParameterError('url', url, 'an http(s) or ws(s) URL');
  u.pathname = wsPath;
  u.search = '';
  u.hash = '';
  return u.toString();
}

export function openSocket(options: SocketOptions, handlers: SocketHandlers): StreamSocket {
  return options.transport === 'ws' ? openWs(options, handlers) : openSocketIo(options, handlers);
}

const TEXT = new TextDecoder();

/**
 * A plain WebSocket has no heartbeat timeout of its own (socket.io has `pingTimeout`): a connection
 * whose peer vanished without closing would look open forever. Once the server has pinged twice, a
 * silence (no ping, no frame) longer than DEAD_AFTER_PINGS times the longest gap between its pings
 * (at least DEAD_MIN_MS) ends the connection, and the owner reconnects. A server that never pings is
 * left alone. A check that runs late by more than half that limit means this process was stalled (a
 * long GC pause, a starved CPU): the frames that came meanwhile are still unread, so the silence is
 * ours, and that check is skipped (the next one, after they are read, judges the server).
 */
const DEAD_AFTER_PINGS = 2.5;
const DEAD_MIN_MS = 1000;

/**
 * The answer to an application-level ping on `/ws`, or undefined when the frame is not one:
 * `{"ping": x}` (the only key) gives `{"pong": x}`; the bare text `ping` / `PING` gives `pong` /
 * `PONG`. `parsed` is the frame's JSON (undefined: the text is not JSON).
 */
export function appPong(text: string, parsed: unknown): string | undefined {
  const t = text.trim();
  if (t === 'ping' || t === 'PING') return t === 'ping' ? 'pong' : 'PONG';
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const keys = Object.keys(parsed);
  if (keys.length !== 1) return undefined;
  if (keys[0] === 'ping') return JSON.stringify({ pong: (parsed as { ping: unknown }).ping });
  if (keys[0] === 'PING') return JSON.stringify({ PONG: (parsed as { PING: unknown }).PING });
  return undefined;
}

function openWs(options: SocketOptions, handlers: SocketHandlers): StreamSocket {
  let disposed = false;
  let opened = false;
  let lastError: string | undefined;
  let deadReason: string | undefined;
  let lastSeen = 0;
  let lastPing = 0;
  let pingGap = 0;
  let watch: ReturnType<typeof setInterval> | undefined;
  let watchEveryMs = 0;
  let lastCheck = 0;
  const ws = new WebSocket(wsAddress(options.url, options.wsPath), {
    handshakeTimeout: options.connectTimeoutMs,
    perMessageDeflate: false,
  });
  const stopWatch = () => {
    if (watch !== undefined) clearInterval(watch);
    watch = undefined;
  };
  const checkAlive = () => {
    if (pingGap === 0) return;
    const limit = Math.max(DEAD_MIN_MS, pingGap * DEAD_AFTER_PINGS);
    const now = Date.now();
    const late = now - lastCheck - watchEveryMs;
    lastCheck = now;
    if (late > limit / 2) return;
    const silent = now - lastSeen;
    if (silent <= limit) return;
    stopWatch();
    deadReason = `no ping or frame from the server for ${silent} ms (it pinged every ${Math.round(pingGap)} ms)`;
    ws.terminate();
  };
  ws.on('open', () => {
    opened = true;
    lastSeen = Date.now();
    if (!disposed) handlers.connect();
  });
  const onPing = () => {
    const t = Date.now();
    lastSeen = t;
    if (lastPing > 0) pingGap = Math.max(pingGap, t - lastPing);
    lastPing = t;
    if (pingGap > 0 && watch === undefined && !disposed) {
      watchEveryMs = Math.max(50, Math.min(1000, pingGap / 2));
      lastCheck = t;
      watch = setInterval(checkAlive, watchEveryMs);
      watch.unref();
    }
    if (!disposed) handlers.heartbeat();
  };
  // `ws` has already queued the pong frame (autoPong).
  ws.on('ping', onPing);
  ws.on('message', (raw: WebSocket.RawData) => {
    lastSeen = Date.now();
    if (disposed) return;
    const text = typeof raw === 'string' ? raw : TEXT.decode(Array.isArray(raw) ? Buffer.concat(raw) : (raw as Buffer));
    const bare = appPong(text, undefined);
    if (bare !== undefined) {
      if (ws.readyState === WebSocket.OPEN) ws.send(bare);
      onPing();
      return;
    }
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      handlers.malformed(`frame is not JSON: ${text.length > 80 ? text.slice(0, 80) + '…' : text}`);
      return;
    }
    const answer = appPong(text, frame);
    if (answer !== undefined) {
      if (ws.readyState === WebSocket.OPEN) ws.send(answer);
      onPing();
      return;
    }
    if (!Array.isArray(frame) || frame.length < 2) {
      const shown = JSON.stringify(frame) ?? String(frame);
      handlers.malformed(`frame is not [channel, payload]: ${shown.length > 80 ? shown.slice(0, 80) + '…' : shown}`);
      return;
    }
    handlers.broadcast(frame[0], frame[1]);
  });
  ws.on('error', (err: Error) => {
    lastError = describeError(err);
  });
  ws.on('close', (code: number, reason: Buffer) => {
    stopWatch();
    if (disposed) return;
    disposed = true;
    if (deadReason !== undefined) handlers.disconnect(deadReason);
    else if (opened) handlers.disconnect(`closed by the server (${code}${reason.length > 0 ? ` ${reason.toString()}` : ''})`);
    else handlers.error(lastError ?? `closed before the handshake (${code})`);
  });
  return {
    emit: (event, payload) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify([event, payload]));
    },
    close: () => {
      stopWatch();
      disposed = true;
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else if (ws.readyState === WebSocket.OPEN) ws.close(1000, 'client closed');
    },
  };
}

function openSocketIo(options: SocketOptions, handlers: SocketHandlers): StreamSocket {
  let disposed = false;
  const common = {
    path: options.path,
    transports: options.transports,
    reconnection: false,
    forceNew: true,
    multiplex: false,
    timeout: options.connectTimeoutMs,
  };
  const onConnect = (): void => {
    if (!disposed) handlers.connect();
  };
  const onDisconnect = (reason: unknown): void => {
    if (!disposed) handlers.disconnect(String(reason));
  };
  const onError = (err: unknown): void => {
    if (!disposed) handlers.error(describeError(err));
  };
  const onBroadcast = (channel: unknown, data: unknown): void => {
    if (!disposed) handlers.broadcast(channel, data);
  };
  const onHeartbeat = (): void => {
    if (!disposed) handlers.heartbeat();
  };

  if (options.protocol === 4) {
    const socket = ioV4(options.url, common);
    socket.on('connect', onConnect);
    socket.on('disconnect', onDisconnect);
    socket.on('connect_error', onError);
    socket.on('Broadcaster', onBroadcast);
    socket.io.on('ping', onHeartbeat);
    return {
      emit: (event, payload) => {
        socket.emit(event, payload);
      },
      close: () => {
        disposed = true;
        socket.io.off('ping', onHeartbeat);
        socket.removeAllListeners();
        socket.disconnect();
      },
    };
  }

  const socket = loadV2()(options.url, common);
  socket.on('connect', onConnect);
  socket.on('disconnect', onDisconnect);
  socket.on('connect_error', onError);
  socket.on('connect_timeout', () => onError('connect timeout'));
  socket.on('Broadcaster', onBroadcast as (...args: unknown[]) => void);
  socket.io.on('pong', onHeartbeat);
  return {
    emit: (event, payload) => {
      socket.emit(event, payload);
    },
    close: () => {
      disposed = true;
      socket.io.off('pong');
      socket.off();
      socket.close();
    },
  };
}

/**
 * Which route a client's connections use. A fixed setting is used as is. `auto` tries `ws` until
 * a connection has been up on it (then keeps it) or until connecting over it fails (then uses
 * socket.io from there on); the choice is logged once.
 */
export class TransportChoice {
  private decided: StreamTransport | undefined;
  private announced = false;

  constructor(
    readonly setting: StreamTransportSetting,
    private readonly logger: Logger,
    private readonly describe: (t: StreamTransport) => string,
  ) {
    if (setting !== 'auto') this.decided = setting;
  }

  /** The route the next connection attempt uses. */
  get current(): StreamTransport {
    return this.decided ?? 'ws';
  }

  /** The route in use once known (`undefined` while `auto` has not connected yet). */
  get inUse(): StreamTransport | undefined {
    return this.announced ? this.decided : undefined;
  }

  /** A connection came up over `t`. */
  connected(t: StreamTransport): void {
    this.decided ??= t;
    if (this.announced) return;
    this.announced = true;
    this.logger.info(
      { transport: t, setting: this.setting, address: this.describe(t) },
      `stream transport in use: ${t === 'ws' ? 'plain WebSocket' : 'socket.io'}`,
    );
  }

  /**
   * Connecting over `t` failed. True when the attempt should be repeated at once over the other
   * route: `auto` has just switched to socket.io (or had already, and this attempt still used ws).
   */
  failed(t: StreamTransport, reason: string): boolean {
    if (this.setting !== 'auto' || t !== 'ws') return false;
    if (this.decided === undefined) {
      this.decided = 'socketio';
      this.logger.warn({ address: this.describe('ws'), reason }, 'stream: the plain WebSocket could not connect; falling back to socket.io');
      return true;
    }
    return this.decided !== 'ws';
  }
}
