/**
 * A REST proxy on 127.0.0.1 in front of the simulator's wire server, for answers the simulator
 * never gives: each request is handed to `route`, which forwards it (optionally rewriting the
 * answer) or answers it itself. Streams do not pass here (point `exchange.stream.url` at the
 * simulator itself).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface ProxiedRequest {
  method: string;
  /** Path and query. */
  url: string;
  body: string;
}

interface Answer {
  status: number;
  body: string;
}

/** What to do with one request: forward it (`rewrite` may change the answer) or answer it here. */
export type Route = (req: ProxiedRequest) => { answer: Answer } | { rewrite?: (upstream: Answer) => Answer } | undefined;

export interface RewriteProxy {
  url: string;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

export async function startRewriteProxy(target: string, route: Route): Promise<RewriteProxy> {
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const r: ProxiedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', body };
      const decision = route(r) ?? {};
      let answer: Answer;
      if ('answer' in decision) {
        answer = decision.answer;
      } else {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (typeof v === 'string' && k !== 'host' && k !== 'content-length' && k !== 'connection') headers[k] = v;
        const up = await fetch(`${target}${r.url}`, { method: r.method, headers, ...(body && r.method !== 'GET' && r.method !== 'HEAD' ? { body } : {}) });
        answer = { status: up.status, body: await up.text() };
        if (decision.rewrite) answer = decision.rewrite(answer);
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body);
    })().catch((err: unknown) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
