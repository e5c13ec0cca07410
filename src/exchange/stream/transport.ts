/**
 * One socket.io connection, through either client generation, behind one small interface.
 *
 * - protocol 4: `socket.io-client` 4.x (Engine.IO 4).
 * - protocol 3: `socket.io-client@2.5.0`, installed as the npm alias `socket.io-client-v2`
 *   (Engine.IO 3, what the exchange's documentation asks for). It is CommonJS without types, so it
 *   is loaded with createRequire behind the minimal local type below, and only when used.
 *
 * Built-in reconnection is off in both (the StreamClient owns reconnects, backoff and
 * resubscription) and every socket gets its own engine connection (`forceNew`): socket.io would
 * otherwise multiplex sockets to the same URL over one connection, defeating the ≤ 50 channels per
 * connection limit.
 */
import { createRequire } from 'node:module';
import { io as ioV4 } from 'socket.io-client';

export type StreamProtocol = 3 | 4;

export interface SocketHandlers {
  connect(): void;
  /** The connection closed (by the server, the network, or a ping timeout). */
  disconnect(reason: string): void;
  /** Connecting failed (refused, timeout, handshake error). */
  error(message: string): void;
  /** A `Broadcaster` event: `(channel, data)`. */
  broadcast(channel: unknown, data: unknown): void;
}

export interface SocketOptions {
  url: string;
  protocol: StreamProtocol;
  /** Default `/socket.io`. */
  path: string;
  /** Default `['websocket']` (no long-polling phase). */
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

export function openSocket(options: SocketOptions, handlers: SocketHandlers): StreamSocket {
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

  if (options.protocol === 4) {
    const socket = ioV4(options.url, common);
    socket.on('connect', onConnect);
    socket.on('disconnect', onDisconnect);
    socket.on('connect_error', onError);
    socket.on('Broadcaster', onBroadcast);
    return {
      emit: (event, payload) => {
        socket.emit(event, payload);
      },
      close: () => {
        disposed = true;
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
  return {
    emit: (event, payload) => {
      socket.emit(event, payload);
    },
    close: () => {
      disposed = true;
      socket.off();
      socket.close();
    },
  };
}
