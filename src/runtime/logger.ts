/**
 * The one pino logger of a process: pretty on a terminal, JSON otherwise, and every secret redacted.
 * Secrets are removed twice: by pino's path redaction (fields named like keys), and by a final pass
 * over every serialised line that replaces the registered secret values wherever they appear, so a
 * key echoed inside an error message or a nested object never reaches the output.
 */
import { pino, type DestinationStream } from 'pino';
import { createRequire } from 'node:module';
import type { Logger } from '../core/logger.js';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

export interface LoggerOptions {
  level?: LogLevel;
  /** true: pretty; false: JSON; 'auto' (default): pretty when stdout is a terminal. */
  pretty?: boolean | 'auto';
  /** Values that must never be printed (the API key, the private stream key). */
  secrets?: string[];
  /** Where lines go (default stdout). Tests pass a capturing stream. */
  destination?: NodeJS.WritableStream;
  name?: string;
  /** Fields added to every line (a backtest adds the simulated time, `at`). */
  mixin?: () => Record<string, unknown>;
}

const REDACT_PATHS = [
  'apiKey',
  'api_key',
  'key',
  'secret',
  'headers["x-api-key"]',
  'streamKey',
  'privateKey',
  '*.streamKey',
  '*.privateKey',
  '*.apiKey',
  '*.api_key',
  '*.headers["x-api-key"]',
  'req.headers["x-api-key"]',
];

/** Replace every occurrence of a secret in a string. Secrets shorter than 6 characters are ignored. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length < 6) continue;
    if (out.includes(s)) out = out.split(s).join('[REDACTED]');
  }
  return out;
}

class ScrubbingStream {
  constructor(
    private readonly inner: NodeJS.WritableStream,
    private readonly secrets: readonly string[],
  ) {}
  write(chunk: string): boolean {
    return this.inner.write(scrub(chunk, this.secrets));
  }
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const secrets = (opts.secrets ?? []).filter((s) => s.length >= 6);
  const dest = opts.destination ?? process.stdout;
  const pretty = opts.pretty === undefined || opts.pretty === 'auto' ? Boolean((dest as NodeJS.WriteStream).isTTY) : opts.pretty;
  let target: NodeJS.WritableStream = dest;
  if (pretty) {
    const require = createRequire(import.meta.url);
    const prettyFactory = require('pino-pretty') as (o: Record<string, unknown>) => NodeJS.WritableStream;
    target = prettyFactory({ destination: dest, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true });
  }
  const stream = new ScrubbingStream(target, secrets) as unknown as DestinationStream;
  return pino(
    {
      name: opts.name ?? 'mizan',
      level: opts.level ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      base: undefined,
      ...(opts.mixin ? { mixin: opts.mixin } : {}),
    },
    stream,
  );
}
