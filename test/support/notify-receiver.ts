/**
 * Test receivers for notifications: an HTTP server on 127.0.0.1 (ephemeral port) that records every
 * request and answers as `answer` says (a status and body, or never), and a TCP proxy in front of a
 * stream that can cut every connection and refuse new ones for a while (a real disconnection).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  json: Record<string, unknown>;
  /** Wall time the request was complete (ms). */
  at: number;
  /** The status answered (undefined while hanging). */
  status?: number;
}

/** How to answer a request: status and body, or 'hang' (never answer; the socket stays open). */
export type Answer = { status: number; body?: string } | 'hang';

export interface Receiver {
  url: string;
  requests: Received[];
  on(path: string): Received[];
  /** How many client connections are open now (0 once every sender has gone). */
  connections(): Promise<number>;
  close(): Promise<void>;
}

export async function startReceiver(answer: (req: Received, nth: number) => Answer): Promise<Receiver> {
  const requests: Received[] = [];
  const counts = new Map<string, number>();
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        // recorded as text
      }
      const r: Received = { path: req.url ?? '', headers: req.headers, body, json, at: Date.now() };
      requests.push(r);
      const nth = (counts.get(r.path) ?? 0) + 1;
      counts.set(r.path, nth);
      const a = answer(r, nth);
      if (a === 'hang') {
        open.add(res);
        return;
      }
      r.status = a.status;
      res.writeHead(a.status, { 'content-type': 'application/json' });
      res.end(a.body ?? '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    on: (path) => requests.filter((r) => r.path === path),
    connections: () => new Promise<number>((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n)))),
    close: () =>
      new Promise<void>((r) => {
        for (const res of open) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface StreamProxy {
  url: string;
  /** Where to forward (set when known: connections wait until then). */
  setTarget(host: string, port: number): void;
  /** Close every connection and refuse new ones for `ms`. */
  cut(ms: number): void;
  close(): Promise<void>;
}

export async function startStreamProxy(): Promise<StreamProxy> {
  let target: { host: string; port: number } | undefined;
  let refuseUntil = 0;
  const waiting: (() => void)[] = [];
  const sockets = new Set<Socket>();
  const server = createTcpServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (Date.now() < refuseUntil) {
      client.destroy();
      return;
    }
    const go = () => {
      if (client.destroyed) return;
      const up = connect(target!.port, target!.host);
      sockets.add(up);
      up.on('close', () => (sockets.delete(up), client.destroy()));
      up.on('error', () => up.destroy());
      client.on('close', () => up.destroy());
      client.pipe(up);
      up.pipe(client);
    };
    if (target) go();
    else waiting.push(go);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    setTarget(host, p) {
      target = { host, port: p };
      for (const w of waiting.splice(0)) w();
    },
    cut(ms) {
      refuseUntil = Date.now() + ms;
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
