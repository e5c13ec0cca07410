/** What the market commands take from their surroundings; tests pass their own. */
import { SystemClock, type Clock } from '../../core/clock.js';
import { silentLogger, type Logger } from '../../core/logger.js';

/** A writable text stream; `isTTY` decides between live redraws / progress bars and plain lines. */
interface TextOut {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface MarketCommandDeps {
  stdout?: TextOut;
  stderr?: TextOut;
  /** Environment (`WALLEX_API_KEY`). Default `process.env`. */
  env?: Record<string, string | undefined>;
  clock?: Clock;
  logger?: Logger;
  /** Ends a running `mizan book` like Ctrl-C does (tests). */
  signal?: AbortSignal;
}

export interface ResolvedDeps {
  stdout: TextOut;
  stderr: TextOut;
  env: Record<string, string | undefined>;
  clock: Clock;
  logger: Logger;
  signal: AbortSignal | undefined;
}

export function resolveDeps(d: MarketCommandDeps): ResolvedDeps {
  return {
    stdout: d.stdout ?? process.stdout,
    stderr: d.stderr ?? process.stderr,
    env: d.env ?? process.env,
    clock: d.clock ?? new SystemClock(),
    logger: d.logger ?? silentLogger,
    signal: d.signal,
  };
}
