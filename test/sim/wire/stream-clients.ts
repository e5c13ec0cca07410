/** Raw socket.io clients of both protocols for stream tests: collect `Broadcaster` messages per channel. */
import { createRequire } from 'node:module';
import { io as ioV4 } from 'socket.io-client';

interface AnySocket {
  on(event: string, fn: (...args: unknown[]) => void): unknown;
  emit(event: string, ...args: unknown[]): unknown;
  close(): unknown;
}

type V2Lookup = (url: string, opts: Record<string, unknown>) => AnySocket;
const requireCjs = createRequire(import.meta.url);

export interface TestStream {
  messages: [string, unknown][];
  subscribe(channel: string): void;
  /** Resolves with the oldest message of `channel` not yet taken (waiting for one if none is queued). */
  next(channel: string, timeoutMs?: number): Promise<unknown>;
  connected: Promise<void>;
  disconnected: Promise<string>;
  close(): void;
}

export function openStream(url: string, protocol: 3 | 4): TestStream {
  const opts = { path: '/socket.io', transports: ['websocket'], reconnection: false, forceNew: true };
  const socket: AnySocket = protocol === 4 ? (ioV4(url, opts) as unknown as AnySocket) : (requireCjs('socket.io-client-v2') as V2Lookup)(url, opts);
  const messages: [string, unknown][] = [];
  const waiters: { channel: string; resolve: (d: unknown) => void }[] = [];
  const unread = new Map<string, unknown[]>();
  socket.on('Broadcaster', (...args: unknown[]) => {
    const [channel, data] = args as [string, unknown];
    messages.push([channel, data]);
    const i = waiters.findIndex((w) => w.channel === channel);
    if (i >= 0) waiters.splice(i, 1)[0]!.resolve(data);
    else unread.set(channel, [...(unread.get(channel) ?? []), data]);
  });
  const connected = new Promise<void>((resolve, reject) => {
    socket.on('connect', () => resolve());
    socket.on('connect_error', (e) => reject(e instanceof Error ? e : new Error(String(e))));
  });
  const disconnected = new Promise<string>((resolve) => socket.on('disconnect', (reason) => resolve(String(reason))));
  return {
    messages,
    connected,
    disconnected,
    subscribe: (channel) => void socket.emit('subscribe', { channel }),
    next: (channel, timeoutMs = 5000) =>
      new Promise((resolve, reject) => {
        const queued = unread.get(channel);
        if (queued && queued.length > 0) return resolve(queued.shift());
        const t = setTimeout(() => reject(new Error(`no message on ${channel} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ channel, resolve: (d) => (clearTimeout(t), resolve(d)) });
      }),
    close: () => void socket.close(),
  };
}
