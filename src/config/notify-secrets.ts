/**
 * The secret values of a parsed `notifications:` section: Telegram tokens, webhook URLs and their
 * secret parts, header values. The logger and the API remove them from every line and body.
 * (Apart from schema-notify.ts so the logger imports no zod.)
 */
export function notificationSecrets(
  n: { targets: readonly { url?: string | undefined; token?: string | undefined; headers?: Record<string, string> | undefined }[] } | undefined,
): string[] {
  if (!n) return [];
  const out: string[] = [];
  for (const t of n.targets) {
    if (t.token) out.push(t.token);
    if (t.url) out.push(t.url, ...urlSecretParts(t.url));
    for (const v of Object.values(t.headers ?? {})) {
      if (!v) continue;
      out.push(v);
      // `Bearer <token>`, `Basic <credentials>`: the credential alone, as a receiver may echo it.
      const credential = /^\S+\s+(\S+)$/.exec(v.trim())?.[1];
      if (credential) out.push(credential);
    }
  }
  return [...new Set(out)];
}

/**
 * A plain word (`webhooks`, `services`, `notify-me`) or number: a path segment or query value that
 * names something rather than hides it (up to 15 characters; longer ones count as secret).
 */
const WORD = /^(?:[a-z]+(?:[-_][a-z]+)*|\d+)$/;

/**
 * The parts of a webhook URL a receiver may echo on their own (an error body quoting the request
 * path; `HTTP 400 "… url /hook/<secret> …"`): the user name and password, the path with its query,
 * and each path segment and query value, as written and percent-decoded. A webhook's secret is in
 * its path or query (Discord `/api/webhooks/<id>/<token>`, Slack `/services/T…/B…/<token>`, a
 * `${HOOK_PATH_SECRET}` put in the path), so they are all secret, except, with `words: false` (the
 * default, for every log line and body of the process), the ones that are plain lower-case words or
 * numbers of at most 15 characters: `webhooks` or a `100000` would otherwise vanish from every line
 * (a price) that holds them. A target's own delivery messages pass `words: true` (src/notify/delivery.ts):
 * in a receiver's answer to that URL, the words go too. A URL that does not parse gives nothing
 * (the whole string is a secret anyway).
 */
export function urlSecretParts(url: string, opts: { words?: boolean } = {}): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const parts = new Set<string>();
  const add = (raw: string) => {
    for (const s of [raw, decoded(raw)]) {
      if (s.length < 6) continue;
      if (!opts.words && s.length <= 15 && WORD.test(s)) continue;
      parts.add(s);
    }
  };
  for (const seg of u.pathname.split('/')) add(seg);
  for (const pair of u.search.slice(1).split('&')) {
    const eq = pair.indexOf('=');
    if (eq >= 0) add(pair.slice(eq + 1));
  }
  // The path with its query as a whole (and each alone) when they hold a secret part.
  if (parts.size > 0)
    for (const s of [`${u.pathname}${u.search}`, u.pathname, u.search.slice(1)]) for (const v of [s, decoded(s)]) if (v.length >= 6) parts.add(v);
  add(u.username);
  add(u.password);
  // Longest first: a scrub then takes the whole path before a segment of it.
  return [...parts].sort((a, b) => b.length - a.length);
}

function decoded(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}
