/**
 * The wire server: the exchange's REST API and its stream (socket.io at `/socket.io` and the plain
 * WebSocket at `/ws`, see stream.ts) on 127.0.0.1, in front of a
 * SimulatedExchange. Routes come from this folder (public, account, spot, admin) and from any
 * module that passes its own `Route[]`; spec endpoints nobody serves answer 501. Every response
 * carries `x-ratelimit-limit` / `x-ratelimit-remaining`; order calls over the limit get 429 with
 * `Retry-After`, and so do public calls over `publicRateLimit` when it is set. Faults (latency, failures, lost responses, stream faults) come from a FaultInjector.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server as IoServer } from 'socket.io';
import { silentLogger, type Logger } from '../../core/logger.js';
import type { SimulatedExchange } from '../exchange.js';
import { SimError } from '../errors.js';
import { FaultInjector, type FaultConfig } from '../faults.js';
import { fail, type Route, type WireRequest, type WireResponse } from './route.js';
import { Router, compilePattern } from './router.js';
import { baseRequest, readBody } from './request.js';
import { SPEC_ENDPOINTS } from './spec-endpoints.js';
import { SlidingWindowLimiter } from '../rate-limiter.js';
import { attachStream, type StreamServeOptions, type StreamServerStats } from './stream.js';
import type { WebSocketServer } from 'ws';
import { publicRoutes } from './routes/public.js';
import { accountRoutes } from './routes/account.js';
import { spotRoutes } from './routes/spot.js';
import { adminRoutes } from './routes/admin.js';
import { StreamKeys, streamKeyRoutes } from './private-stream.js';
import { checkKeyScope } from './key-scope.js';

export interface WireServerOptions {
  sim: SimulatedExchange;
  /** Routes of other modules (margin, instant, trading credit, withdrawals, profile). */
  routes?: Route[];
  /** Extra admin routes under `/__sim/` (no faults apply to them). */
  adminRoutes?: Route[];
  /** Maps `sub-account-client-id` to the trading-credit ledger account (PropDesk.resolveSubAccount). */
  resolveSubAccount?: (accountId: string, subClientId: string) => string;
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  faults?: FaultInjector | FaultConfig;
  logger?: Logger;
  /** Stream keys of the private channel (default: a new, empty registry). */
  streamKeys?: StreamKeys;
  /** The stream's routes and limits: `/ws` on or off, ping interval, connection lifetime, channels per connection. */
  stream?: StreamServeOptions;
  /**
   * Limit on the public market-data calls (markets, depth, trades, candles, …) per caller IP: at
   * most `limit` calls per `windowMs`, then 429 with Retry-After. The exchange documents that polling
   * depth or trades "may hit Rate-Limit" without numbers; off by default (as in paper mode), on in
   * the tests that check polling and with `mizan sim --public-rate-limit`.
   */
  publicRateLimit?: PublicRateLimit;
}

export interface PublicRateLimit {
  limit: number;
  windowMs: number;
}

function checkPublicRateLimit(r: PublicRateLimit): PublicRateLimit {
  if (!Number.isInteger(r.limit) || r.limit < 1) throw new RangeError(`publicRateLimit.limit must be an integer >= 1, got ${String(r.limit)}`);
  if (!Number.isFinite(r.windowMs) || r.windowMs <= 0) throw new RangeError(`publicRateLimit.windowMs must be a number of ms > 0, got ${String(r.windowMs)}`);
  return r;
}

export interface WireServer {
  /** REST base address, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** Stream base address (the same host): socket.io at path `/socket.io`, the plain WebSocket at `/ws`. */
  streamUrl: string;
  /** The plain WebSocket's address (`ws://host:port/ws`), or undefined when it is not served. */
  wsUrl: string | undefined;
  /** The plain WebSocket server, when served. */
  wss: WebSocketServer | undefined;
  /** Stream connections open per route, lifetime cuts, refused subscriptions. */
  streamStats(): StreamServerStats;
  port: number;
  http: HttpServer;
  io: IoServer;
  faults: FaultInjector;
  /** Stream keys of the private channel: `streamKeys.issue(accountId)` gives an account's key. */
  streamKeys: StreamKeys;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function createWireServer(opts: WireServerOptions): Promise<WireServer> {
  const { sim } = opts;
  const logger = opts.logger ?? silentLogger;
  const faults = opts.faults instanceof FaultInjector ? opts.faults : new FaultInjector(opts.faults ?? {});
  const router = new Router([
    ...publicRoutes(sim),
    ...accountRoutes(sim, opts.resolveSubAccount),
    ...spotRoutes(sim, opts.resolveSubAccount),
    ...(opts.routes ?? []),
  ]);
  const streamKeys = opts.streamKeys ?? new StreamKeys();
  const admin = new Router([...adminRoutes(sim, faults), ...streamKeyRoutes(sim, streamKeys), ...(opts.adminRoutes ?? [])]);
  const spec = SPEC_ENDPOINTS.map((e) => ({ ...e, ...compilePattern(e.path) }));
  const held = new Set<ServerResponse>();
  const publicLimit = opts.publicRateLimit && checkPublicRateLimit(opts.publicRateLimit);
  const publicLimiter = publicLimit && new SlidingWindowLimiter(sim.clock, publicLimit.limit, publicLimit.windowMs);

  function send(res: ServerResponse, r: WireResponse, rate: { limit: number; remaining: number }): void {
    if (res.writableEnded || res.destroyed) return;
    const body = JSON.stringify(r.body ?? null);
    res.writeHead(r.status ?? 200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-ratelimit-limit': String(rate.limit),
      'x-ratelimit-remaining': String(rate.remaining),
      ...(r.headers ?? {}),
    });
    res.end(body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const base = baseRequest(req, url);
    let rateKey = `ip:${base.ip}`;
    const rate = () => sim.orderCallState(rateKey);
    try {
      const isAdmin = url.pathname.startsWith('/__sim/');
      if (isAdmin) {
        const a = admin.match(base.method, url.pathname);
        if (a.kind === 'route') {
          const r = await a.route.handler({ ...base, params: a.params, body: await readBody(req) });
          return send(res, r, rate());
        }
      } else {
        if (faults.latencyMs > 0) await sleep(faults.latencyMs);
        const injected = faults.takeFailure();
        if (injected) {
          const headers: Record<string, string> = injected === 429 ? { 'retry-after': '1' } : {};
          return send(res, { ...fail(injected, `fault injected by the simulator: HTTP ${injected}`), headers }, rate());
        }
      }
      const m = router.match(base.method, url.pathname);
      if (m.kind === 'method') return send(res, fail(405, `method ${base.method} is not allowed on ${url.pathname}`), rate());
      if (m.kind === 'none') {
        const s = spec.find((e) => e.method === base.method && e.regex.test(url.pathname));
        if (s) {
          return send(res, fail(501, `${s.method} ${s.path} (${s.area}) is part of the exchange API but this simulator does not serve it yet`), rate());
        }
        return send(res, fail(404, `no route ${base.method} ${url.pathname}`), rate());
      }
      const wreq: WireRequest = { ...base, params: m.params, body: await readBody(req) };
      const route = m.route;
      if (publicLimiter && !route.auth && !isAdmin) {
        const taken = publicLimiter.take(rateKey);
        if (!taken.allowed) {
          const r = fail(429, `too many requests: at most ${taken.limit} public calls in ${publicLimiter.windowMs / 1000} seconds`);
          return send(res, { ...r, headers: { 'retry-after': String(Math.max(1, Math.ceil(taken.retryAfterMs / 1000))) } }, taken);
        }
        const answer = await route.handler(wreq);
        return send(res, answer, taken);
      }
      if (route.auth) {
        const key = base.headers['x-api-key'];
        wreq.accountId = sim.authenticate(key, base.ip, route.auth);
        rateKey = wreq.accountId;
        const sub = base.headers['sub-account-client-id'] || undefined;
        checkKeyScope(sim.accounts.subAccountOfKey(key), sub, url.pathname);
        if (sub) wreq.subAccountId = sub;
      }
      if (route.orderCall && wreq.accountId) {
        const taken = sim.consumeOrderCall(wreq.accountId);
        if (!taken.allowed) {
          const r = fail(429, `too many order calls: at most ${taken.limit} in ${sim.orderCallWindowMs / 1000} seconds`);
          return send(res, { ...r, headers: { 'retry-after': String(Math.max(1, Math.ceil(taken.retryAfterMs / 1000))) } }, taken);
        }
      }
      const r = await route.handler(wreq);
      if (route.orderCall && !isAdmin && faults.takeLostResponse()) {
        held.add(res); // executed, never answered: the client times out
        res.on('close', () => held.delete(res));
        return;
      }
      send(res, r, rate());
    } catch (err) {
      if (err instanceof SimError) return send(res, fail(err.status, err.message, err.fields), rate());
      logger.error({ err, path: url.pathname }, 'simulator wire handler failed');
      send(res, fail(500, 'internal error of the simulator'), rate());
    }
  }

  const http = createServer((req, res) => {
    void handle(req, res);
  });
  const stream = attachStream(http, sim, faults, logger, streamKeys, opts.stream);
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const host = opts.host ?? '127.0.0.1';
  const url = `http://${host}:${port}`;
  return {
    url,
    streamUrl: url,
    wsUrl: stream.wss ? `ws://${host}:${port}/ws` : undefined,
    wss: stream.wss,
    streamStats: () => stream.stats(),
    port,
    http,
    io: stream.io,
    faults,
    streamKeys,
    async close() {
      for (const res of held) res.destroy();
      held.clear();
      stream.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
