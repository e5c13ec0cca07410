/**
 * How the REST client's bytes reach the exchange. Two transports behind one shape, so HttpCore
 * maps statuses, bodies and failures the same way whichever sent the call:
 *
 * - `kyTransport`: ky over the runtime's fetch (undici). Every call that is not an order call.
 * - `nodeHttpTransport`: `node:http` / `node:https` with a keep-alive agent. The order calls
 *   (spot create and cancel, instant orders, margin opens): the one place where the time from a
 *   decision to the request leaving counts. Measured on loopback (`bench/execution.ts`), ky's
 *   Request construction and clone plus fetch cost about 0.3-0.5 ms per call at the median and
 *   several ms at p99; a direct request on a kept-alive socket costs about 0.05 ms. Nothing is
 *   retried here: retries, timeouts and errors stay HttpCore's.
 *
 * The agent keeps at most `maxSockets` connections to the exchange and closes an idle one a second
 * before the server's announced keep-alive timeout (Node's agent reads the `Keep-Alive: timeout=N`
 * hint), so a create is rarely written to a socket the server is closing. If it is, the failure is
 * a network error like any other and the order's outcome is resolved by looking its client id up.
 */
import http from 'node:http';
import https from 'node:https';
import type { KyInstance } from 'ky';

type TransportMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HeaderReader {
  get(name: string): string | null;
}

interface TransportRequest {
  method: TransportMethod;
  /** Path starting with `/`, path parameters already encoded. */
  path: string;
  /** Query parameters, values already strings. */
  query: Record<string, string>;
  headers: Record<string, string>;
  /** A JSON body, serialised by the transport (content-type application/json). */
  json?: unknown;
  signal: AbortSignal;
}

interface TransportResponse {
  status: number;
  headers: HeaderReader;
  text: string;
}

export interface Transport {
  readonly name: string;
  send(req: TransportRequest): Promise<TransportResponse>;
  /** Close idle connections (the process may exit with them open: they do not hold it). */
  close(): void;
}

export function kyTransport(client: KyInstance): Transport {
  return {
    name: 'ky',
    async send(req) {
      const res = await client(req.path.replace(/^\//, ''), {
        method: req.method,
        headers: req.headers,
        searchParams: req.query,
        signal: req.signal,
        ...(req.json !== undefined ? { json: req.json } : {}),
      });
      return { status: res.status, headers: res.headers, text: await res.text() };
    },
    close() {},
  };
}

export interface NodeHttpTransportOptions {
  /** Connections kept to the exchange. Default 8 (order calls are at most 20 per 10 s). */
  maxSockets?: number;
}

/** Response headers of node:http as a `get(name)` reader (names are lower-cased by node). */
class IncomingHeaders implements HeaderReader {
  constructor(private readonly raw: http.IncomingHttpHeaders) {}
  get(name: string): string | null {
    const v = this.raw[name.toLowerCase()];
    if (v === undefined) return null;
    return Array.isArray(v) ? v.join(', ') : v;
  }
}

export function nodeHttpTransport(baseUrl: string, options: NodeHttpTransportOptions = {}): Transport {
  const base = new URL(baseUrl);
  const secure = base.protocol === 'https:';
  const lib = secure ? https : http;
  const agent = new lib.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 8, scheduling: 'lifo' });
  const prefix = base.pathname.replace(/\/$/, '');
  const host = base.hostname.replace(/^\[|\]$/g, '');
  const port = base.port === '' ? (secure ? 443 : 80) : Number(base.port);
  return {
    name: 'node-http',
    send(req) {
      let path = prefix + req.path;
      const keys = Object.keys(req.query);
      if (keys.length > 0) path += `?${new URLSearchParams(req.query).toString()}`;
      const headers: Record<string, string | number> = { ...req.headers };
      let body: string | undefined;
      if (req.json !== undefined) {
        body = JSON.stringify(req.json);
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      return new Promise<TransportResponse>((resolve, reject) => {
        const r = lib.request({ agent, host, port, path, method: req.method, headers, signal: req.signal }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: new IncomingHeaders(res.headers), text: Buffer.concat(chunks).toString('utf8') }),
          );
        });
        r.on('error', reject);
        r.end(body);
      });
    },
    close() {
      agent.destroy();
    },
  };
}
