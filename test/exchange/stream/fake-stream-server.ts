/**
 * A small fake of the exchange's stream for these tests: a socket.io 4 server with
 * `allowEIO3: true` (so both client generations connect) on 127.0.0.1, port 0. `subscribe {channel}`
 * joins the room of that channel; `broadcast` sends `Broadcaster (channel, data)` to the room.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { waitFor as waitForCondition } from '../../support/wait-for.js';

export interface FakeStreamServer {
  url: string;
  io: Server;
  /** Channels subscribed per connected socket id. */
  subscriptions(): Map<string, Set<string>>;
  /** How many `subscribe` events arrived for a channel, over all sockets. */
  subscribeCount(channel: string): number;
  /** Engine.IO protocol (3 or 4) of every connection accepted, in order. */
  protocols(): number[];
  /** Total connections accepted so far. */
  connectionsAccepted(): number;
  broadcast(channel: string, data: unknown): void;
  /** While set, handshakes are refused (the client sees connect_error). */
  refuse(on: boolean): void;
  stop(): Promise<void>;
}

export async function startFakeStreamServer(): Promise<FakeStreamServer> {
  const http: HttpServer = createServer();
  const io = new Server(http, { allowEIO3: true, serveClient: false });
  const subs = new Map<string, Set<string>>();
  const counts = new Map<string, number>();
  let accepted = 0;
  const protocols: number[] = [];
  let refusing = false;
  io.use((_socket, next) => (refusing ? next(new Error('refused by test')) : next()));
  io.on('connection', (socket) => {
    accepted++;
    protocols.push(socket.conn.protocol);
    const mine = new Set<string>();
    subs.set(socket.id, mine);
    socket.on('subscribe', (msg: { channel?: unknown }) => {
      if (typeof msg?.channel !== 'string') return;
      mine.add(msg.channel);
      counts.set(msg.channel, (counts.get(msg.channel) ?? 0) + 1);
      void socket.join(msg.channel);
    });
    socket.on('unsubscribe', (msg: { channel?: unknown }) => {
      if (typeof msg?.channel !== 'string') return;
      mine.delete(msg.channel);
      void socket.leave(msg.channel);
    });
    socket.on('disconnect', () => subs.delete(socket.id));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    io,
    subscriptions: () => subs,
    subscribeCount: (channel) => counts.get(channel) ?? 0,
    connectionsAccepted: () => accepted,
    protocols: () => protocols,
    broadcast: (channel, data) => {
      io.to(channel).emit('Broadcaster', channel, data);
    },
    refuse: (on) => {
      refusing = on;
    },
    stop: async () => {
      io.disconnectSockets(true);
      await io.close();
    },
  };
}

/** Poll until `check` holds (no timing assertion: only a generous upper bound). */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  await waitForCondition(check, { what, timeout: timeoutMs, interval: 10 });
}
