/**
 * The bot's HTTP + WebSocket API (fastify 5 and @fastify/websocket), over the bot control port.
 *
 * Security, in the order a request meets it (one onRequest hook, guard.ts, for every route, the
 * stream and unknown paths alike):
 * 1. a browser Origin other than the server's own (or one listed in `origins`) gets 403. CORS is off
 *    unless `origins` lists an origin (exact match): its requests get Access-Control-Allow-Origin, its
 *    preflights are answered (204, no token: a browser sends none on them), so a dashboard served by
 *    another bot can read this one; the stream accepts the same origins;
 * (the dashboard's files, `/` and `/dashboard/*`, need no token: the page asks for it);
 * 2. no token, or a wrong one, gets 401 and counts as a failure of its client address (logged with
 *    the address, never the token); after too many, that address's failures get 429 until its window
 *    ends. A valid token is always served, whatever others sent: nobody locks the operator out. The
 *    address is the connection's, or with `trustProxy` the last X-Forwarded-For entry (the one the
 *    proxy in front appended; what a client writes in front of it is not believed);
 * 3. a control route with the read-only token gets 403.
 * Connections are limited: `maxWebSocketClients` streams at once (the next one is closed with 1013),
 * `headersTimeoutMs` to send the headers and `requestTimeoutMs` the whole request (else 408 and the
 * connection is closed), so slow clients cannot hold sockets open.
 * Bodies are limited to 16 KiB (413) and validated with zod (400 naming the field); query strings too.
 * The stream takes the token in the Authorization header or, from a browser (which cannot set
 * headers on a WebSocket), as the subprotocol `bearer.<token>` next to `mizan.v1`.
 */
import { createServer } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import websocket from '@fastify/websocket';
import type { WebSocket } from 'ws';
import * as z from 'zod';
import type { Logger } from '../core/logger.js';
import { DEFAULT_SERVER_LIMITS } from '../config/defaults.js';
import { scrub } from '../runtime/logger.js';
import { CHARTS_FILE, DASHBOARD_CSP, loadDashboardFiles } from './dashboard-files.js';
import { FailureLimit, TokenCheck, type Tokens } from './auth.js';
import { requestGuard } from './guard.js';
import { NotFoundError, type BotControl, type BotEvent } from './port.js';

export const BODY_LIMIT = 16 * 1024;
export const STREAM_PROTOCOL = 'mizan.v1';
export const TOPICS = ['status', 'fill', 'order', 'tradingState', 'denial', 'strategy', 'log', 'candle'] as const;
type Topic = (typeof TOPICS)[number];

export interface ServerOptions {
  control: BotControl;
  tokens: Tokens;
  host: string;
  port: number;
  /** Browser origins allowed besides the server's own. */
  origins?: readonly string[];
  logger: Logger;
  /** Values never sent in a response (the exchange's API key, the stream key). */
  secrets?: readonly string[];
  /** Status pushes on the stream (ms). */
  statusEveryMs?: number;
  /** Failed token checks per address before 429, and the window they count in. */
  authFailures?: { max: number; windowMs: number };
  /** The client address is the last X-Forwarded-For entry (one reverse proxy in front); default false. */
  trustProxy?: boolean;
  /** Stream clients at once (default DEFAULT_SERVER_LIMITS). */
  maxWebSocketClients?: number;
  /** Time to send a request's headers, and the whole request (ms; default DEFAULT_SERVER_LIMITS). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

// ------------------------------------------------------------------------------ request schemas
const int = (name: string, min: number, max: number) =>
  z.coerce
    .number({ error: `${name} is not a number` })
    .int({ error: `${name} is not a whole number` })
    .min(min, { error: `${name} must be from ${min} to ${max}` })
    .max(max, { error: `${name} must be from ${min} to ${max}` });
const name = z.string().min(1).max(100);
const since = z.union([int('since', 0, 8.64e15), z.iso.datetime({ offset: true }).transform((s) => Date.parse(s))], {
  error: 'since is not epoch milliseconds or an ISO time',
});
const pageQuery = {
  strategy: name.optional(),
  symbol: z
    .string()
    .regex(/^[A-Z0-9]{2,20}$/, { error: 'symbol is not a market symbol (e.g. BTCUSDT)' })
    .optional(),
  since: since.optional(),
  limit: int('limit', 1, 500).default(100),
  offset: int('offset', 0, 1e9).default(0),
};
const ordersQuery = z.strictObject({
  ...pageQuery,
  status: z.enum(['pending', 'open', 'partially_filled', 'filled', 'cancelled', 'rejected', 'expired', 'unknown']).optional(),
});
const fillsQuery = z.strictObject(pageQuery);
const equityQuery = z.strictObject({ since: since.optional(), limit: int('limit', 1, 10_000).default(1_000) });
const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
const candlesQuery = z.strictObject({
  symbol: z.string({ error: 'symbol is required' }).regex(/^[A-Z0-9]{2,20}$/, { error: 'symbol is not a market symbol (e.g. BTCUSDT)' }),
  resolution: int('resolution', 1, 31 * 86_400),
  limit: int('limit', 1, 1_000).default(500),
});
const logsQuery = z.strictObject({ limit: int('limit', 1, 1_000).default(200), level: z.enum(Object.keys(LEVELS) as [keyof typeof LEVELS]).default('trace') });
const streamQuery = z.strictObject({
  topics: z
    .string()
    .transform((s) => s.split(',').filter(Boolean))
    .pipe(z.array(z.enum(TOPICS, { error: `is not a topic (allowed: ${TOPICS.join(', ')})` })))
    .optional(),
});
const reasonText = z
  .string({ error: 'reason is not a string' })
  .trim()
  .min(1, { error: 'reason must not be empty' })
  .max(500, { error: 'reason is longer than 500 characters' });
const haltBody = z.strictObject({ reason: reasonText });
const resumeBody = z.strictObject({ reason: reasonText.optional() });
const stopBody = z.strictObject({ keepOrders: z.boolean({ error: 'keepOrders is not true or false' }).default(false) });
const emptyBody = z.strictObject({});
const nameParams = z.strictObject({ name });
const orderParams = z.strictObject({ id: z.string().min(1).max(100) });

class BadRequest extends Error {}

function parse<T extends z.ZodType>(schema: T, value: unknown, where: string): z.output<T> {
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data;
  const msg = r.error.issues
    .map((i) => {
      const path = i.path.length ? i.path.join('.') : where;
      const v = i.path.reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Record<PropertyKey, unknown>)[k] : undefined), value);
      const shown =
        i.code === 'unrecognized_keys'
          ? `unknown field(s) ${i.keys.join(', ')}`
          : `${i.message}${v !== undefined && typeof v !== 'object' ? ` (got ${JSON.stringify(v)})` : ''}`;
      return `${where}${i.path.length ? `.${path}` : ''}: ${shown}`;
    })
    .join('; ');
  throw new BadRequest(msg);
}

/**
 * Whether host:port can be listened on now (the run command asks before the bot starts trading, so a
 * port in use stops the run before any order). Rejects with the system's reason.
 */
export function probeListen(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen({ host, port, exclusive: true }, () => s.close(() => resolve()));
  });
}

export async function startServer(o: ServerOptions): Promise<RunningServer> {
  const tokens = new TokenCheck(o.tokens);
  const limit = new FailureLimit({ maxFailures: o.authFailures?.max ?? 10, windowMs: o.authFailures?.windowMs ?? 60_000 });
  const log = o.logger.child({ component: 'api' });
  const origins = new Set(o.origins ?? []);
  const secrets = [...(o.secrets ?? []), o.tokens.read, o.tokens.control];
  const files = loadDashboardFiles();
  const headersTimeout = o.headersTimeoutMs ?? DEFAULT_SERVER_LIMITS.headersTimeoutMs;
  const requestTimeout = o.requestTimeoutMs ?? DEFAULT_SERVER_LIMITS.requestTimeoutMs;
  if (headersTimeout > requestTimeout)
    throw new Error(`server.headersTimeoutMs: ${headersTimeout} must not be longer than server.requestTimeoutMs (${requestTimeout})`);
  const maxStreams = o.maxWebSocketClients ?? DEFAULT_SERVER_LIMITS.maxWebSocketClients;
  const app: FastifyInstance = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT,
    return503OnClosing: true,
    // One proxy hop: req.ip is the X-Forwarded-For entry the proxy appended, not one a client wrote.
    trustProxy: o.trustProxy === true ? (_address: string, hop: number) => hop < 1 : false,
    // node checks the two timeouts every connectionsCheckingInterval (30 s by default): often enough
    // here that a slow client is cut close to its timeout. A stream, once upgraded, is not a request.
    requestTimeout,
    http: { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1_000, Math.max(25, Math.floor(headersTimeout / 4))) },
    // An idle kept-alive connection is closed after 5 s (node's default; fastify's is 72 s).
    keepAliveTimeout: 5_000,
  });
  await app.register(websocket, {
    options: {
      maxPayload: 4096,
      // Never echo the token back: the chosen subprotocol is mizan.v1 (a browser must offer it).
      handleProtocols: (protocols: Set<string>) => (protocols.has(STREAM_PROTOCOL) ? STREAM_PROTOCOL : false),
    },
  });

  const refuse = (reply: FastifyReply, status: number, message: string) => reply.code(status).send({ error: { status, message } });

  app.addHook('onRequest', requestGuard({ tokens, limit, origins, log, refuse }));
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('cache-control', 'no-store');
    reply.header('vary', 'Origin');
    reply.header('x-content-type-options', 'nosniff');
    // Last guard: a secret (API key, stream key, tokens) never leaves in a body.
    return typeof payload === 'string' ? scrub(payload, secrets) : payload;
  });
  app.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
    if (err instanceof BadRequest) return refuse(reply, 400, err.message);
    if (err instanceof NotFoundError) return refuse(reply, 404, err.message);
    const status = err.statusCode ?? 500;
    if (status >= 500) log.error({ err: scrub(err.message, secrets), method: req.method, url: req.url }, 'api: request failed');
    return refuse(reply, status, scrub(err.message, secrets));
  });
  app.setNotFoundHandler((req, reply) => refuse(reply, 404, `no route ${req.method} ${req.url.split('?')[0]}`));

  const c = o.control;
  const api = '/api/v1';
  const ctl = { config: { control: true } };
  const act = (req: FastifyRequest, what: string, fields: Record<string, unknown> = {}) => log.info({ address: req.ip, ...fields }, `api: ${what}`);

  // ------------------------------------------------------------------------------ dashboard
  const pub = { config: { public: true } };
  const serveFile = (reply: FastifyReply, name: string) => {
    const f = files.get(name);
    if (!f) return refuse(reply, 404, `no dashboard file ${JSON.stringify(name)}`);
    reply.header('content-security-policy', DASHBOARD_CSP);
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'no-referrer');
    return reply.type(f.type).send(f.body);
  };
  app.get('/', pub, async (_req, reply) => serveFile(reply, 'index.html'));
  app.get('/dashboard/:file', pub, async (req, reply) => serveFile(reply, (req.params as { file: string }).file));
  app.get(`/dashboard/${CHARTS_FILE}`, pub, async (_req, reply) => serveFile(reply, CHARTS_FILE));

  // ------------------------------------------------------------------------------ reads
  app.get(`${api}/status`, async () => c.status());
  app.get(`${api}/strategies`, async () => ({ strategies: c.strategies() }));
  app.get(`${api}/strategies/:name`, async (req) => c.strategy(parse(nameParams, req.params, 'params').name));
  app.get(`${api}/balances`, async () => ({ accounts: c.balances() }));
  app.get(`${api}/orders`, async (req) => c.orders(parse(ordersQuery, req.query, 'query')));
  app.get(`${api}/fills`, async (req) => c.fills(parse(fillsQuery, req.query, 'query')));
  app.get(`${api}/margin/positions`, async () => ({ positions: c.marginPositions() }));
  app.get(`${api}/equity`, async (req) => ({ points: c.equity(parse(equityQuery, req.query, 'query')) }));
  app.get(`${api}/candles`, async (req) => c.candles(parse(candlesQuery, req.query, 'query')));
  app.get(`${api}/books`, async () => ({ books: c.books() }));
  app.get(`${api}/strategies/:name/plots`, async (req) => ({ plots: c.plots(parse(nameParams, req.params, 'params').name) }));
  app.get(`${api}/logs`, async (req) => {
    const q = parse(logsQuery, req.query, 'query');
    return { lines: c.logs({ limit: q.limit, minLevel: LEVELS[q.level] }) };
  });

  // ------------------------------------------------------------------------------ controls
  app.post(`${api}/halt`, ctl, async (req) => {
    const b = parse(haltBody, req.body, 'body');
    act(req, 'halt', { reason: b.reason });
    return { tradingState: c.halt(`${b.reason} (API)`) };
  });
  app.post(`${api}/resume`, ctl, async (req) => {
    const b = parse(resumeBody, req.body, 'body');
    act(req, 'resume', { reason: b.reason });
    return { tradingState: c.resume(b.reason ? `${b.reason} (API)` : 'resumed from the API') };
  });
  app.post(`${api}/strategies/:name/stop`, ctl, async (req) => {
    const { name: n } = parse(nameParams, req.params, 'params');
    const b = parse(stopBody, req.body, 'body');
    act(req, 'stop strategy', { strategy: n, keepOrders: b.keepOrders });
    return c.stopStrategy(n, { keepOrders: b.keepOrders });
  });
  app.post(`${api}/strategies/:name/start`, ctl, async (req) => {
    const { name: n } = parse(nameParams, req.params, 'params');
    parse(emptyBody, req.body, 'body');
    act(req, 'start strategy', { strategy: n });
    return c.startStrategy(n);
  });
  app.post(`${api}/strategies/:name/cancel-orders`, ctl, async (req) => {
    const { name: n } = parse(nameParams, req.params, 'params');
    parse(emptyBody, req.body, 'body');
    act(req, 'cancel the orders of a strategy', { strategy: n });
    return c.cancelStrategyOrders(n);
  });
  app.post(`${api}/orders/:id/cancel`, ctl, async (req) => {
    const { id } = parse(orderParams, req.params, 'params');
    parse(emptyBody, req.body, 'body');
    act(req, 'cancel order', { clientOrderId: id });
    return { order: await c.cancelOrder(id) };
  });

  // ------------------------------------------------------------------------------ stream
  const clients = new Map<WebSocket, Set<Topic>>();
  const send = (ws: WebSocket, msg: unknown) => {
    if (ws.readyState !== ws.OPEN) return;
    // A client that does not read (1 MiB waiting) is dropped rather than buffered without end.
    if (ws.bufferedAmount > 1 << 20) {
      ws.close(1013, 'too slow: reconnect');
      return;
    }
    ws.send(scrub(JSON.stringify(msg), secrets), (err) => {
      if (err) clients.delete(ws);
    });
  };
  const unsubscribe = c.subscribe((e: BotEvent) => {
    for (const [ws, topics] of clients) if (topics.has(e.type)) send(ws, e);
  });
  const statusTimer = setInterval(() => {
    let status: ReturnType<BotControl['status']> | undefined;
    for (const [ws, topics] of clients) if (topics.has('status')) send(ws, { type: 'status', status: (status ??= c.status()) });
  }, o.statusEveryMs ?? 2_000);
  statusTimer.unref();
  let refusedAtLimit = false;
  app.get(`${api}/stream`, { websocket: true }, (ws, req) => {
    if (clients.size >= maxStreams) {
      // Logged once while the limit is reached (a flood of sockets is not a flood of lines).
      if (!refusedAtLimit) log.warn({ address: req.ip, maxWebSocketClients: maxStreams }, 'api: stream refused: too many stream clients');
      refusedAtLimit = true;
      ws.close(1013, `too many stream clients (server.maxWebSocketClients: ${maxStreams}); try again later`);
      return;
    }
    let topics: Set<Topic>;
    try {
      const q = parse(streamQuery, req.query, 'query');
      topics = new Set(q.topics ?? TOPICS);
    } catch (err) {
      ws.close(1008, (err as Error).message.slice(0, 120));
      return;
    }
    clients.set(ws, topics);
    ws.on('close', () => {
      clients.delete(ws);
      if (clients.size < maxStreams) refusedAtLimit = false;
    });
    ws.on('message', () => undefined); // nothing is read from clients
    send(ws, { type: 'hello', topics: [...topics], status: c.status() });
  });

  await app.listen({ host: o.host, port: o.port });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  const shownHost = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    async close() {
      clearInterval(statusTimer);
      unsubscribe();
      for (const ws of clients.keys()) ws.close(1001, 'bot stopping');
      await app.close();
    },
  };
}
