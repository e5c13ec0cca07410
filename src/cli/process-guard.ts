/**
 * A mizan process never ends without saying why. An exception nobody caught or a promise rejection
 * nobody handled (a strategy's stray timer, a library's callback) is logged with the exit code
 * before the process exits: through the run's pino logger when a command registered one (it removes
 * the config's secrets from every line), else as one line on stderr with the secrets of the
 * environment removed. A command that registered a logger also logs a non-zero exit code.
 */
import type { Logger } from '../core/logger.js';

/** The exit code of a process ended by an uncaught exception or an unhandled rejection. */
const CRASH_EXIT_CODE = 1;

let logger: Logger | undefined;
let installed = false;
let exitLogged = false;

/** Environment values that look like secrets (API keys, tokens), removed from the fallback line. */
function envSecrets(): string[] {
  return Object.entries(process.env)
    .filter(([k, v]) => v !== undefined && v.length >= 6 && /KEY|TOKEN|SECRET|PASSWORD/i.test(k))
    .map(([, v]) => v as string);
}

function scrubbed(text: string): string {
  let out = text;
  for (const s of envSecrets()) out = out.split(s).join('[REDACTED]');
  return out;
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  try {
    return typeof err === 'string' ? err : JSON.stringify(err);
  } catch {
    return String(err);
  }
}

/** Log the crash (pino when registered) and exit with CRASH_EXIT_CODE. */
function crash(kind: 'uncaughtException' | 'unhandledRejection', err: unknown): never {
  const what = kind === 'uncaughtException' ? 'an uncaught exception' : 'an unhandled promise rejection';
  const msg = `mizan: ${what} ends the process (exit code ${CRASH_EXIT_CODE})`;
  try {
    if (logger) {
      logger.fatal({ kind, exitCode: CRASH_EXIT_CODE, err: err instanceof Error ? err : { message: describe(err) } }, msg);
      exitLogged = true;
    } else {
      process.stderr.write(scrubbed(`${msg}: ${describe(err)}\n`));
    }
  } finally {
    process.exit(CRASH_EXIT_CODE);
  }
}

/** Install the process-level handlers once (the CLI's first step). */
export function installProcessGuards(): void {
  if (installed) return;
  installed = true;
  process.on('uncaughtException', (err) => crash('uncaughtException', err));
  process.on('unhandledRejection', (reason) => crash('unhandledRejection', reason));
  // A clean exit (0) has said why (a run prints its summary); any other code is logged.
  process.on('exit', (code) => {
    if (!logger || exitLogged || code === 0) return;
    exitLogged = true;
    logger.error({ exitCode: code }, `mizan: exiting with code ${code}`);
  });
}

/** The logger crashes and non-zero exits are reported through (the run command's, with its secrets). */
export function setProcessLogger(l: Logger | undefined): void {
  logger = l;
}
