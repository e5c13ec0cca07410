/**
 * The secret values of a parsed `notifications:` section: Telegram tokens, webhook URLs, header
 * values. The logger and the API remove them from every line and body.
 * (Apart from schema-notify.ts so the logger imports no zod.)
 */
export function notificationSecrets(
  n: { targets: readonly { url?: string | undefined; token?: string | undefined; headers?: Record<string, string> | undefined }[] } | undefined,
): string[] {
  if (!n) return [];
  const out: string[] = [];
  for (const t of n.targets) {
    if (t.token) out.push(t.token);
    if (t.url) out.push(t.url);
    for (const v of Object.values(t.headers ?? {})) if (v) out.push(v);
  }
  return out;
}
