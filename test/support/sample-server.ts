/**
 * A node:http server on 127.0.0.1 (port 0) that answers method + path with a sample payload from
 * test/fixtures/exchange-samples (normalized to strict JSON, number literals kept as written) or an
 * inline body / raw text / status / headers, and records every request it received (method, path,
 * query, lower-cased headers, body) so tests can assert what the client sent.
 *
 * A route may answer with a sequence: each request takes the next reply, the last one repeats
 * (e.g. `[{status: 429}, {sample: '...'}]`). `hang: true` never answers (timeout tests).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sampleJson } from './samples.js';

export interface SampleReply {
  /** A file name in exchange-samples. */
  sample?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (malformed JSON, HTML pages). */
  raw?: string;
  status?: number;
  headers?: Record<string, string>;
  /** Wait before answering. */
  delayMs?: number;
  /** Never answer. */
  hang?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | undefined>;
  /** Parsed JSON body, the raw text when it was not JSON, undefined when empty. */
  body: unknown;
}

export class SampleServer {
  readonly requests: RecordedRequest[] = [];
  private readonly routes = new Map<string, SampleReply[]>();
  private readonly server: http.Server;
  private port = 0;

  constructor() {
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Answer `method path` (path without query) with one reply or a sequence. Replaces any earlier route. */
  route(method: string, path: string, reply: SampleReply | SampleReply[]): this {
    this.routes.set(`${method.toUpperCase()} ${path}`, Array.isArray(reply) ? [...reply] : [reply]);
    return this;
  }

  /** Requests received for `method path`. */
  received(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method.toUpperCase() && r.path === path);
  }

  reset(): void {
    this.requests.length = 0;
    this.routes.clear();
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let body: unknown;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const headers: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const method = (req.method ?? 'GET').toUpperCase();
    this.requests.push({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body });

    const queue = this.routes.get(`${method} ${url.pathname}`);
    const reply: SampleReply = queue
      ? queue.length > 1
        ? (queue.shift() as SampleReply)
        : (queue[0] as SampleReply)
      : { status: 404, body: { success: false, code: 404, message: `no sample route for ${method} ${url.pathname}`, result: {} } };
    if (reply.hang) return;
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    let payload: string;
    let type = 'application/json';
    if (reply.raw !== undefined) {
      payload = reply.raw;
      type = reply.raw.trimStart().startsWith('<') ? 'text/html' : 'application/json';
    } else if (reply.sample !== undefined) payload = sampleJson(reply.sample);
    else payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
    res.writeHead(reply.status ?? 200, { 'content-type': type, ...reply.headers });
    res.end(payload);
  }
}

export async function startSampleServer(): Promise<SampleServer> {
  return new SampleServer().start();
}
