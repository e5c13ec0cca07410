/**
 * The one pino logger of a process: pretty on a terminal, JSON otherwise, and every secret redacted.
 * Secrets are removed twice: by pino's path redaction (fields named like keys), and by a final pass
 * over every serialised line that replaces the registered secret values wherever they appear, so a
 * key echoed inside an error message or a nested object never reaches the output.
 *
 * `file` (the config's `logging.file`) also appends every line as JSON to that file, whatever the
 * terminal shows. A key appears once per line: a child's bindings replace the parent's of the same
 * name (pino would print both), and a field of a log call that repeats a binding is printed once.
 *
 * pino (and pino-pretty) are loaded at the first line the level lets through, not when the logger is
 * made: a backtest logging at `warn` that writes no line never loads them (its time to the first candle).
 */
import type { DestinationStream, Logger as PinoLogger } from 'pino';
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LogFn, Logger } from '../core/logger.js';
import { scrub } from '../core/scrub.js';
import { configSecrets } from './secrets.js';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

export interface LoggerOptions {
  level?: LogLevel;
  /** true: pretty; false: JSON; 'auto' (default): pretty when stdout is a terminal. */
  pretty?: boolean | 'auto';
  /** Values that must never be printed (the API key, the private stream key). */
  secrets?: string[];
  /** Where lines go (default stdout). Tests pass a capturing stream. */
  destination?: NodeJS.WritableStream;
  /** Also append JSON lines to this file (created with its folders). */
  file?: string;
  name?: string;
  /** Fields added to every line (a backtest adds the simulated time, `at`). */
  mixin?: () => Record<string, unknown>;
  /** Also hand every line (JSON, secrets already removed) to this function (the API's logs tail). */
  tap?: (line: string) => void;
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

export { scrub } from '../core/scrub.js';

/** Scrubs each serialised line once, then hands it to every target (the terminal, the log file). */
class ScrubbingStream {
  constructor(
    private readonly targets: readonly NodeJS.WritableStream[],
    private readonly secrets: readonly string[],
    private readonly tap?: (line: string) => void,
  ) {}
  write(chunk: string): boolean {
    const line = scrub(chunk, this.secrets);
    this.tap?.(line);
    let ok = true;
    for (const t of this.targets) ok = t.write(line) && ok;
    return ok;
  }
}

type Bindings = Record<string, unknown>;
type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
const noop: LogFn = () => {};

/** pino's level values: a call below the logger's level is a no-op, as pino makes it. */
const LEVEL_VALUES: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

const requireHere = createRequire(import.meta.url);
type PinoModule = typeof import('pino');
let pinoModule: PinoModule | undefined;
/** pino itself, loaded on first use (synchronously: a log call writes its line before it returns). */
const loadPino = (): PinoModule => (pinoModule ??= requireHere('pino') as PinoModule);

/** The root pino logger, built at the first line written (`make`), and its children by bindings. */
class LazyRoot {
  private root: PinoLogger | undefined;
  constructor(private readonly make: () => PinoLogger) {}
  get(): PinoLogger {
    return (this.root ??= this.make());
  }
}

/**
 * pino behind the Logger contract, with bindings kept as one map: `child()` merges into it and builds
 * the child from the root, so `logger.child({component: 'stream'}).child({component: 'stream'})` prints
 * `"component"` once. The level methods are bound (a handler may take `log.warn` on its own).
 */
class BoundLogger implements Logger {
  readonly trace: LogFn;
  readonly debug: LogFn;
  readonly info: LogFn;
  readonly warn: LogFn;
  readonly error: LogFn;
  readonly fatal: LogFn;
  private readonly keys: string[];

  private pino: PinoLogger | undefined;

  constructor(
    private readonly root: LazyRoot,
    private readonly threshold: number,
    private readonly bindings: Bindings,
  ) {
    this.keys = Object.keys(bindings);
    this.trace = this.method('trace');
    this.debug = this.method('debug');
    this.info = this.method('info');
    this.warn = this.method('warn');
    this.error = this.method('error');
    this.fatal = this.method('fatal');
  }

  /** This logger's pino logger: the root's child with these bindings (the root itself without any). */
  private get p(): PinoLogger {
    return (this.pino ??= this.keys.length === 0 ? this.root.get() : this.root.get().child(this.bindings));
  }

  private method(level: Level): LogFn {
    if (LEVEL_VALUES[level] < this.threshold) return noop;
    const fn = (objOrMsg: object | string, msg?: string): void => {
      if (typeof objOrMsg === 'string' || this.keys.length === 0) {
        if (typeof objOrMsg === 'string') this.p[level](objOrMsg);
        else this.p[level](objOrMsg, msg);
        return;
      }
      const o = objOrMsg as Bindings;
      let repeats = false;
      for (const k of this.keys) if (k in o) repeats = true;
      if (!repeats) {
        this.p[level](o, msg);
        return;
      }
      // A field that repeats a binding: print it once, the call's value winning.
      const rest: Bindings = {};
      const changed: Bindings = {};
      for (const [k, v] of Object.entries(o)) {
        if (!(k in this.bindings)) rest[k] = v;
        else if (this.bindings[k] !== v) changed[k] = v;
      }
      const target = Object.keys(changed).length ? this.root.get().child({ ...this.bindings, ...changed }) : this.p;
      if (o instanceof Error) target[level](o, msg);
      else target[level](rest, msg);
    };
    return fn as LogFn;
  }

  child(bindings: Bindings): Logger {
    let same = true;
    for (const [k, v] of Object.entries(bindings)) if (this.bindings[k] !== v) same = false;
    if (same) return this;
    return new BoundLogger(this.root, this.threshold, { ...this.bindings, ...bindings });
  }
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const secrets = (opts.secrets ?? []).filter((s) => s.length >= 6);
  const dest = opts.destination ?? process.stdout;
  const pretty = opts.pretty === undefined || opts.pretty === 'auto' ? Boolean((dest as NodeJS.WriteStream).isTTY) : opts.pretty;
  const level = opts.level ?? 'info';
  // pino's own check, made now (pino itself is built at the first line).
  if (!Object.hasOwn(LEVEL_VALUES, level)) throw Error('unknown level ' + level);
  let file: NodeJS.WritableStream | undefined;
  if (opts.file !== undefined) {
    try {
      mkdirSync(dirname(opts.file), { recursive: true });
      // Synchronous appends: a line is in the file when the call returns, also when the process exits next.
      file = loadPino().destination({ dest: opts.file, sync: true, append: true }) as unknown as NodeJS.WritableStream;
    } catch (err) {
      throw new Error(`logging.file: cannot write ${opts.file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }
  const root = new LazyRoot(() => {
    let target: NodeJS.WritableStream = dest;
    if (pretty) {
      const prettyFactory = requireHere('pino-pretty') as (o: Record<string, unknown>) => NodeJS.WritableStream;
      const colorize = (dest as NodeJS.WriteStream).isTTY === true && !process.env.NO_COLOR;
      target = prettyFactory({ destination: dest, colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true });
    }
    const stream = new ScrubbingStream(file ? [target, file] : [target], secrets, opts.tap) as unknown as DestinationStream;
    return loadPino().pino(
      {
        name: opts.name ?? 'mizan',
        level,
        redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
        base: undefined,
        ...(opts.mixin ? { mixin: opts.mixin } : {}),
      },
      stream,
    );
  });
  return new BoundLogger(root, LEVEL_VALUES[level], {});
}

/**
 * The logger of a bot run from its config: `logging.level`, `.pretty`, `.file`, and its secrets redacted.
 * `extra`: more secrets (the API server's tokens) and a tap for every line (the API's logs tail).
 */
export function loggerFromConfig(
  config: {
    logging: { level: LogLevel; pretty: boolean | 'auto'; file?: string | undefined };
    exchange: { apiKey?: string | undefined; stream: { privateKey?: string | undefined } };
    notifications?: Parameters<typeof configSecrets>[0]['notifications'];
  },
  extra: { secrets?: readonly string[]; tap?: (line: string) => void } = {},
): Logger {
  const secrets = configSecrets(config, extra.secrets);
  return createLogger({
    level: config.logging.level,
    pretty: config.logging.pretty,
    secrets,
    ...(config.logging.file !== undefined ? { file: config.logging.file } : {}),
    ...(extra.tap ? { tap: extra.tap } : {}),
  });
}
