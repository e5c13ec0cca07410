/** Defaults the config schema fills in, kept apart so a command can read one without loading the schema (zod). */

/** `journal.file` when a config does not name one. */
export const DEFAULT_JOURNAL_FILE = '.mizan/journal.sqlite';

/** Port of the API server (`mizan run --serve`) when neither the config nor --port names one. */
export const DEFAULT_SERVER_PORT = 8787;
