/**
 * Replace every occurrence of a secret in a string with `[REDACTED]`: the one pass that keeps the API
 * keys, the stream key and the API tokens out of logs, the journal, notifications, result files and
 * what the CLI prints. Which strings are secret is decided in one place, src/runtime/secrets.ts.
 * Secrets shorter than 6 characters are ignored (they would match ordinary text).
 */
const REDACTED = '[REDACTED]';

export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length < 6) continue;
    if (out.includes(s)) out = out.split(s).join(REDACTED);
  }
  return out;
}
