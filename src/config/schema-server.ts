/**
 * The `server:` section: the HTTP + WebSocket API of a running bot (`mizan run --serve`): where it
 * listens, its tokens (environment references), the browser origins it answers, whether it trusts a
 * reverse proxy's X-Forwarded-For, and its connection limits.
 */
import * as z from 'zod';
import { DEFAULT_SERVER_LIMITS, DEFAULT_SERVER_PORT } from './defaults.js';

const serverToken = (description: string) =>
  z
    .string({ error: 'is not a string (write it as ${ENV_NAME})' })
    .regex(/^[A-Za-z0-9._~+-]{16,256}$/, { error: 'is not a usable token: 16 to 256 letters, digits or . _ ~ + -' })
    .optional()
    .describe(description);

const wholeBetween = (min: number, max: number, description: string) =>
  z
    .number({ error: 'is not a whole number' })
    .int({ error: 'is not a whole number' })
    .min(min, { error: `must be a whole number from ${min} to ${max}` })
    .max(max, { error: `must be a whole number from ${min} to ${max}` })
    .describe(description);

export const serverSchema = z
  .strictObject({
    host: z
      .string({ error: 'is not a host name or address' })
      .min(1, { error: 'must not be empty' })
      .default('127.0.0.1')
      .describe('Address the API server listens on (127.0.0.1: this machine only; put a TLS reverse proxy in front to reach it from elsewhere)'),
    port: z
      .number({ error: 'is not a port number' })
      .int({ error: 'is not a port number' })
      .min(0, { error: 'must be a port number from 0 to 65535' })
      .max(65_535, { error: 'must be a port number from 0 to 65535' })
      .default(DEFAULT_SERVER_PORT)
      .describe('TCP port of the API server (0: any free port, printed at start)'),
    token: serverToken(
      'Read-only bearer token, as an environment reference, e.g. ${MIZAN_SERVER_TOKEN} (default: that variable, else one generated at start and printed once)',
    ),
    controlToken: serverToken(
      'Control bearer token (halt, resume, strategies, cancels), as an environment reference, e.g. ${MIZAN_SERVER_CONTROL_TOKEN} (default: that variable, else one generated at start and printed once)',
    ),
    origins: z
      .array(
        z
          .string()
          .regex(/^https?:\/\/[^\s/]+$/, { error: 'is not an origin (scheme://host[:port], e.g. https://bot.example.com)', abort: true })
          // Matched exactly against the browser's Origin header: written as a browser sends it.
          .refine((s) => URL.canParse(s) && new URL(s).origin === s, {
            error: 'is not written as a browser sends it (lower case, no default port: e.g. http://127.0.0.1:8787, https://bot.example.com)',
          }),
        { error: 'is not a list of origins' },
      )
      .default([])
      .describe(
        "Browser origins allowed besides the server's own, matched exactly (e.g. the dashboard of another bot, http://127.0.0.1:8787): their requests get CORS headers and their WebSocket streams are accepted. Any other Origin is refused (403); empty (the default): CORS off",
      ),
    trustProxy: z
      .boolean({ error: 'is not true or false' })
      .default(false)
      .describe(
        "The bot is reached through one reverse proxy (the nginx of docs/api-and-dashboard.md) that appends the client's address to X-Forwarded-For: the client of a request is the last address of that header, and failed token checks are limited per client. false (the default): the header is ignored and the client is the connection's address (behind a proxy: every client shares the proxy's)",
      ),
    maxWebSocketClients: wholeBetween(1, 10_000, 'Stream (WebSocket) clients served at once; the next one is closed with code 1013 (try again later)').default(
      DEFAULT_SERVER_LIMITS.maxWebSocketClients,
    ),
    headersTimeoutMs: wholeBetween(100, 600_000, 'Time a client has to send the headers of a request (ms); a slower one gets 408 and is disconnected').default(
      DEFAULT_SERVER_LIMITS.headersTimeoutMs,
    ),
    requestTimeoutMs: wholeBetween(
      100,
      3_600_000,
      'Time a client has to send a whole request, headers and body (ms); a slower one gets 408 and is disconnected. Not a limit on a stream once open',
    ).default(DEFAULT_SERVER_LIMITS.requestTimeoutMs),
  })
  .superRefine((s, ctx) => {
    if (s.headersTimeoutMs > s.requestTimeoutMs) {
      ctx.addIssue({
        code: 'custom',
        path: ['headersTimeoutMs'],
        message: `must not be longer than server.requestTimeoutMs (${s.requestTimeoutMs}): the headers are part of the request`,
      });
    }
  })
  .describe('The HTTP + WebSocket API (`mizan run --serve`); a config with this section serves it on every run');
