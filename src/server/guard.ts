/**
 * The one onRequest hook of the API (every route, the stream and unknown paths alike), in the order a
 * request meets it: the browser Origin (403 unless the server's own or listed; CORS for a listed
 * one, its preflights answered), the dashboard's files (no token), the token (401, counted per
 * client address; after too many, that address's failures get 429: the valid tokens are checked
 * first and always served), the control routes (403 with the read-only token).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../core/logger.js';
import type { Access, FailureLimit, TokenCheck } from './auth.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route changes the bot: the control token only. */
    control?: boolean;
    /** A dashboard file: served without a token. */
    public?: boolean;
  }
}

export interface GuardOptions {
  tokens: TokenCheck;
  limit: FailureLimit;
  /** Browser origins allowed besides the server's own. */
  origins: ReadonlySet<string>;
  log: Logger;
  refuse: (reply: FastifyReply, status: number, message: string) => FastifyReply;
}

/** The bearer token of a request: the Authorization header, or a stream's `bearer.<token>` subprotocol. */
function bearer(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (typeof h === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
    return m ? m[1] : '';
  }
  const p = req.headers['sec-websocket-protocol'];
  if (typeof p === 'string') {
    for (const part of p.split(',')) {
      const t = part.trim();
      if (t.startsWith('bearer.')) return t.slice('bearer.'.length);
    }
  }
  return undefined;
}

export function requestGuard({ tokens, limit, origins, log, refuse }: GuardOptions) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const address = req.ip;
    const origin = req.headers.origin;
    const listed = origin !== undefined && origins.has(origin);
    if (origin !== undefined && !listed) {
      let host: string | undefined;
      try {
        host = new URL(origin).host;
      } catch {
        host = undefined;
      }
      if (host === undefined || host !== req.headers.host) {
        log.warn({ address, method: req.method, url: req.url, origin }, 'api: request from a foreign origin refused');
        return refuse(reply, 403, `origin ${JSON.stringify(origin)} is not allowed (add it to server.origins)`);
      }
    }
    if (listed) {
      // An origin of server.origins (exact match) may read the answers: CORS for it alone.
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-expose-headers', 'retry-after, www-authenticate');
      // The preflight a browser sends before a request with a token carries none: answered here.
      if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
        reply.header('access-control-allow-methods', 'GET, POST');
        reply.header('access-control-allow-headers', 'authorization, content-type');
        reply.header('access-control-max-age', '600');
        return reply.code(204).send();
      }
    }
    // The dashboard's files: the page asks for the token itself.
    if (req.routeOptions.config.public && (req.method === 'GET' || req.method === 'HEAD')) return;
    const token = bearer(req);
    const access: Access | undefined = token ? tokens.access(token) : undefined;
    if (!access) {
      // Only failures are limited: the valid tokens above are served whatever this address sent.
      const blocked = limit.blockedFor(address);
      if (blocked > 0) {
        reply.header('retry-after', String(Math.ceil(blocked / 1000)));
        return refuse(reply, 429, 'too many failed token checks from this address; try again later');
      }
      const why = token === undefined ? 'no token' : 'wrong token';
      const nowBlocked = limit.fail(address);
      log.warn({ address, method: req.method, url: req.url, reason: why }, `api: ${why}`);
      if (nowBlocked)
        log.warn({ address }, "api: too many failed token checks; this address's wrong tokens get 429 until its window ends (valid ones are still served)");
      reply.header('www-authenticate', 'Bearer');
      return refuse(reply, 401, token === undefined ? 'missing Authorization: Bearer <token>' : 'wrong token');
    }
    if (req.routeOptions.config.control && access !== 'control') {
      log.warn({ address, method: req.method, url: req.url }, 'api: control route with the read-only token refused');
      return refuse(reply, 403, 'this route needs the control token');
    }
  };
}
