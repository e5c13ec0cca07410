/** Defaults the config schema fills in, kept apart so a command can read one without loading the schema (zod). */

/** `journal.file` when a config does not name one. */
export const DEFAULT_JOURNAL_FILE = '.mizan/journal.sqlite';

/** Port of the API server (`mizan run --serve`) when neither the config nor --port names one. */
export const DEFAULT_SERVER_PORT = 8787;

/** The API server's limits when the config's `server:` does not set them (`src/server/server.ts` uses the same). */
export const DEFAULT_SERVER_LIMITS = {
  /** Authenticated stream clients at once; the next one is closed with 1013. */
  maxWebSocketClients: 50,
  /** Time a client has to send a request's headers (ms). */
  headersTimeoutMs: 10_000,
  /** Time a client has to send a whole request, headers and body (ms). */
  requestTimeoutMs: 30_000,
} as const;

/** The optimiser's study storage (`mizan optimize` and `mizan study --storage`) when none is named. */
export const DEFAULT_STUDY_STORAGE = '.mizan/studies.sqlite';
