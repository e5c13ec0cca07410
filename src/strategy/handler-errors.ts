/**
 * The errors a strategy's handlers threw, by kind (handler + error name and message, its numbers
 * whatever they are: "bad price 101.5" and "bad price 99" are one kind): the first of
 * each kind is logged with its stack; repeats are counted and logged at most once per `everyMs` of
 * wall time per kind ("failed again N times"), so a handler that throws on every candle neither floods
 * the log nor goes unnoticed. Counts and the first occurrence (on the strategy's clock) are kept for
 * the status line, the backtest summary and `result.json`.
 */
import type { Logger } from '../core/logger.js';

export interface HandlerErrorKind {
  strategy: string;
  /** The handler that threw (`onCandle`, `onFill`, ...). */
  handler: string;
  /** `Name: message` of the first error of this kind. */
  error: string;
  count: number;
  /** When the first one happened, on the strategy's clock (ms). */
  firstAt: number;
  /** The first one's stack (or its text when it was not an Error). */
  stack: string;
}

export interface HandlerErrorsOptions {
  /** The strategy's clock (the simulated one in a backtest). */
  now: () => number;
  /** Wall clock for the log's rate limit. Default Date.now. */
  wallNow?: () => number;
  /** Least wall time between two log lines of one kind after its first. Default 60 s. */
  everyMs?: number;
}

interface Entry extends HandlerErrorKind {
  lastLogged: number;
  /** Repeats since the last log line. */
  unlogged: number;
}

/** Numbers that stand alone in a message (not the digits of a name such as BTCUSDT): one kind whatever their values. */
const NUMBER = /(?<![A-Za-z0-9_.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![A-Za-z0-9_])/g;
/** Kinds kept per strategy; errors of further kinds are counted (and logged rate-limited) under one entry. */
const MAX_KINDS = 50;

/** The text of a thrown value for grouping: `Name: message` (no stack, no numbers removed). */
function describe(err: unknown): { error: string; stack: string } {
  if (err instanceof Error) {
    const error = `${err.name}: ${err.message}`;
    return { error, stack: err.stack ?? error };
  }
  let text: string;
  try {
    text = typeof err === 'string' ? err : (JSON.stringify(err) ?? String(err));
  } catch {
    text = String(err);
  }
  return { error: `thrown ${typeof err}: ${text}`, stack: `thrown ${typeof err}: ${text}` };
}

export class HandlerErrors {
  private readonly kinds = new Map<string, Entry>();
  total = 0;
  private readonly wallNow: () => number;
  private readonly everyMs: number;

  /** `logger`: the strategy's own (its bindings name the strategy). */
  constructor(
    private readonly logger: Logger,
    private readonly strategy: string,
    private readonly opts: HandlerErrorsOptions,
  ) {
    this.wallNow = opts.wallNow ?? Date.now;
    this.everyMs = opts.everyMs ?? 60_000;
  }

  /** A handler threw `err`: count it and log it (first of its kind) or maybe a repeat line. */
  record(handler: string, err: unknown): void {
    this.total++;
    const { error, stack } = describe(err);
    let key = `${handler}\u0000${error.replace(NUMBER, '#')}`;
    if (!this.kinds.has(key) && this.kinds.size >= MAX_KINDS) key = '\u0000other';
    const e = this.kinds.get(key);
    const wall = this.wallNow();
    if (!e) {
      const other = key === '\u0000other';
      this.kinds.set(key, {
        strategy: this.strategy,
        handler: other ? '(any)' : handler,
        error: other ? `errors of more than ${MAX_KINDS} kinds, the first: ${error}` : error,
        count: 1,
        firstAt: this.opts.now(),
        stack,
        lastLogged: wall,
        unlogged: 0,
      });
      this.logger.error({ handler, err }, `strategy handler ${handler} failed: ${error}`);
      return;
    }
    e.count++;
    e.unlogged++;
    if (wall - e.lastLogged >= this.everyMs) {
      this.logger.error(
        { handler, error, repeats: e.unlogged, total: e.count },
        `strategy handler ${handler} failed again ${e.unlogged} time(s) since the last report (${e.count} in all): ${error}`,
      );
      e.lastLogged = wall;
      e.unlogged = 0;
    }
  }

  /** Every kind seen, in the order first seen. */
  list(): HandlerErrorKind[] {
    return [...this.kinds.values()].map(({ lastLogged: _l, unlogged: _u, ...k }) => k);
  }
}
