/** Reading an HTTP request into a WireRequest: path, query, JSON or form body, headers, caller IP. */
import type { IncomingMessage } from 'node:http';
import { SimError } from '../errors.js';
import type { HttpMethod, WireRequest } from './route.js';

const MAX_BODY = 1_000_000;

function clientIp(req: IncomingMessage): string {
  const override = req.headers['x-sim-client-ip'];
  if (typeof override === 'string' && override) return override;
  const ip = req.socket.remoteAddress ?? '';
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip === '::1' ? '127.0.0.1' : ip;
}

export async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_BODY) throw new SimError(400, `request body larger than ${MAX_BODY} bytes`);
    chunks.push(b);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return {};
  const type = String(req.headers['content-type'] ?? '');
  if (type.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through to the error below
  }
  throw new SimError(400, 'request body must be a JSON object or x-www-form-urlencoded');
}

export function baseRequest(req: IncomingMessage, url: URL): Omit<WireRequest, 'params' | 'body'> {
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  return {
    method: (req.method ?? 'GET').toUpperCase() as HttpMethod,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers,
    ip: clientIp(req),
  };
}
