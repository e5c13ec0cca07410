/** Shared setup for the REST client tests: a sample server, a client pointed at it, a capturing logger. */
import type { Logger } from '../../../src/core/logger.js';
import { WallexRestClient, type WallexRestClientOptions } from '../../../src/exchange/rest/client.js';
import type { SampleServer } from '../../support/sample-server.js';

export const API_KEY = 'TEST-KEY-4f9c2a7e1b';

export interface Captured {
  logger: Logger;
  lines: string[];
}

/** A logger that keeps every call as one JSON line (level, bindings, object, message). */
export function captureLogger(bindings: Record<string, unknown> = {}, lines: string[] = []): Captured {
  const fn =
    (level: string) =>
    (a: object | string, b?: string): void => {
      lines.push(JSON.stringify({ level, ...bindings, ...(typeof a === 'string' ? { msg: a } : { ...a, msg: b }) }));
    };
  const logger: Logger = {
    trace: fn('trace'),
    debug: fn('debug'),
    info: fn('info'),
    warn: fn('warn'),
    error: fn('error'),
    fatal: fn('fatal'),
    child: (more) => captureLogger({ ...bindings, ...more }, lines).logger,
  };
  return { logger, lines };
}

export interface TestClient {
  client: WallexRestClient;
  sleeps: number[];
}

/** A client on the sample server with instant, recorded retry waits. */
export function makeClient(server: SampleServer, overrides: Partial<WallexRestClientOptions> = {}): TestClient {
  const sleeps: number[] = [];
  const client = new WallexRestClient({
    baseUrl: server.url,
    apiKey: API_KEY,
    timeoutMs: 2_000,
    retries: 3,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...overrides,
  });
  return { client, sleeps };
}
