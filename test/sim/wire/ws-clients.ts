/** A raw plain-WebSocket client for stream tests: `[channel, payload]` frames collected per channel. */
import WebSocket from 'ws';

export interface TestWs {
  socket: WebSocket;
  /** Every frame's text, in order. */
  frames: string[];
  subscribe(channel: string): void;
  unsubscribe(channel: string): void;
  /** Resolves with the oldest payload of `channel` not yet taken (waiting for one if none is queued). */
  next(channel: string, timeoutMs?: number): Promise<unknown>;
  opened: Promise<void>;
  /**
   * Resolves with the close code and the ms from the connection attempt to the close: at least the
   * connection's life on the server (accepted after the attempt). Timed from the client's `open`
   * event instead, a loaded machine that delivers that event late made a cut at the server's 600 ms
   * look like 564 ms.
   */
  closed: Promise<{ code: number; lifeMs: number }>;
  pings(): number;
  close(): void;
}

export function openWs(url: string, options: { autoPong?: boolean } = {}): TestWs {
  const attemptedAt = Date.now();
  const socket = new WebSocket(url, { autoPong: options.autoPong ?? true });
  const frames: string[] = [];
  const waiters: { channel: string; resolve: (d: unknown) => void }[] = [];
  const unread = new Map<string, unknown[]>();
  let pings = 0;
  socket.on('ping', () => pings++);
  socket.on('message', (raw) => {
    const text = raw.toString();
    frames.push(text);
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    if (!Array.isArray(frame)) return;
    const [channel, data] = frame as [string, unknown];
    const i = waiters.findIndex((w) => w.channel === channel);
    if (i >= 0) waiters.splice(i, 1)[0]!.resolve(data);
    else unread.set(channel, [...(unread.get(channel) ?? []), data]);
  });
  const opened = new Promise<void>((resolve, reject) => {
    socket.on('open', () => resolve());
    socket.on('error', reject);
  });
  const closed = new Promise<{ code: number; lifeMs: number }>((resolve) => socket.on('close', (code) => resolve({ code, lifeMs: Date.now() - attemptedAt })));
  const send = (frame: unknown) => socket.send(JSON.stringify(frame));
  return {
    socket,
    frames,
    opened,
    closed,
    pings: () => pings,
    subscribe: (channel) => send(['subscribe', { channel }]),
    unsubscribe: (channel) => send(['unsubscribe', { channel }]),
    next: (channel, timeoutMs = 5000) =>
      new Promise((resolve, reject) => {
        const queued = unread.get(channel);
        if (queued && queued.length > 0) return resolve(queued.shift());
        const t = setTimeout(() => reject(new Error(`no message on ${channel} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ channel, resolve: (d) => (clearTimeout(t), resolve(d)) });
      }),
    close: () => socket.terminate(),
  };
}
