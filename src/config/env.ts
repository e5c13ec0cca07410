/**
 * `${ENV_NAME}` substitution in every string value of the parsed YAML. `$${X}` writes a literal
 * `${X}`. A missing (or empty) variable is an issue naming the path and the variable; values are
 * never printed. The paths that were substituted are returned so messages about them can show the
 * reference as written instead of the value. A key left empty (`exchange:` with every line under
 * it commented out, i.e. null) counts as not written, so its defaults apply.
 *
 * Secrets stay in their own fields (secretField): a variable referenced from one of them, named by
 * an account's `apiKeyEnv`, or documented for one (WALLEX_API_KEY ...) is a secret variable, and any
 * other field that references it is an issue naming the field and the variable; the reference is
 * left unsubstituted, so no later message (a parameter's, the journal's place, a strategy path, a
 * strategy name printed by `mizan check` and carried by client order ids) can show the value. A
 * variable holding a secret's value under another name, or a secret's value written literally in
 * another field, is refused the same way.
 */
import type { ConfigIssue, PathSegment } from './issues.js';
import { formatPath } from './issues.js';

const REF = /\$(\$?)\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The variables documented for the secret fields: secret even where the file does not use them
 * (runtime/secrets.ts scrubs the same ones from every log line).
 */
export const SECRET_VARIABLES: Readonly<Record<string, string>> = {
  WALLEX_API_KEY: 'exchange.apiKey',
  WALLEX_STREAM_KEY: 'exchange.stream.privateKey',
  MIZAN_SERVER_TOKEN: 'server.token',
  MIZAN_SERVER_CONTROL_TOKEN: 'server.controlToken',
};

/** Values shorter than this are not looked for inside other fields (core/scrub.ts ignores them too). */
const MIN_SECRET_LENGTH = 6;

/**
 * The fields that hold a secret: the API key, the stream key, the API server's tokens, the
 * notification targets' tokens, URLs and header values (what runtime/secrets.ts scrubs).
 */
function secretField(path: readonly PathSegment[]): boolean {
  const [a, b, c, d, e] = path;
  if (a === 'exchange') return (b === 'apiKey' && c === undefined) || (b === 'stream' && c === 'privateKey' && d === undefined);
  if (a === 'server') return (b === 'token' || b === 'controlToken') && c === undefined;
  if (a === 'notifications' && b === 'targets' && typeof c === 'number')
    return ((d === 'token' || d === 'url') && e === undefined) || (d === 'headers' && typeof e === 'string' && path.length === 5);
  return false;
}

export interface Substitution {
  value: unknown;
  issues: ConfigIssue[];
  /** formatPath(path) -> the string as written, for every string that contained a reference. */
  written: Map<string, string>;
  /** Paths of the strings a secret was kept out of (an issue each): later stages need not report them again. */
  withheld: Set<string>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Every string of `v` with its path. */
function strings(v: unknown, path: PathSegment[], out: [PathSegment[], string][]): [PathSegment[], string][] {
  if (typeof v === 'string') out.push([path, v]);
  else if (Array.isArray(v)) v.forEach((x, i) => strings(x, [...path, i], out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) strings(x, [...path, k], out);
  return out;
}

function references(s: string): string[] {
  return [...s.matchAll(REF)].filter((m) => !m[1] && NAME.test(m[2] ?? '')).map((m) => m[2]!);
}

/** What a file's secrets are, by variable name (see secretsOf). */
export interface Secrets {
  /** Secret variable -> the field it is for: referenced from that field, an account's apiKeyEnv, or documented. */
  variables: Map<string, string>;
  /** Another variable holding a secret variable's value -> that secret's field. */
  aliases: Map<string, string>;
  /** The secret variables' values (MIN_SECRET_LENGTH or longer) -> their fields. */
  values: Map<string, string>;
}

/**
 * The secret variables of a file: those referenced from a secret field, named by an account's
 * `apiKeyEnv`, or documented (SECRET_VARIABLES); their values; and the other variables the file
 * references that hold one of those values.
 */
export function secretsOf(input: unknown, env: Env): Secrets {
  const variables = new Map<string, string>();
  const all = strings(input, [], []);
  for (const [path, s] of all) {
    if (!secretField(path)) continue;
    for (const name of references(s)) if (!variables.has(name)) variables.set(name, formatPath(path));
  }
  const accounts = input !== null && typeof input === 'object' ? (input as Record<string, unknown>).accounts : undefined;
  if (accounts !== null && typeof accounts === 'object' && !Array.isArray(accounts)) {
    for (const [name, a] of Object.entries(accounts)) {
      const variable = a !== null && typeof a === 'object' ? (a as Record<string, unknown>).apiKeyEnv : undefined;
      if (typeof variable === 'string' && NAME.test(variable) && !variables.has(variable)) variables.set(variable, formatPath(['accounts', name, 'apiKeyEnv']));
    }
  }
  for (const [name, field] of Object.entries(SECRET_VARIABLES)) if (!variables.has(name)) variables.set(name, field);
  const values = new Map<string, string>();
  for (const [name, field] of variables) {
    const v = env[name];
    if (v !== undefined && v.length >= MIN_SECRET_LENGTH && !values.has(v)) values.set(v, field);
  }
  const aliases = new Map<string, string>();
  for (const [path, s] of all) {
    if (secretField(path)) continue;
    for (const name of references(s)) {
      const v = env[name];
      if (variables.has(name) || aliases.has(name) || v === undefined) continue;
      for (const [secret, field] of values) if (v.includes(secret)) aliases.set(name, field);
    }
  }
  return { variables, aliases, values };
}

export function substituteEnv(input: unknown, env: Env, secrets: Secrets = secretsOf(input, env)): Substitution {
  const issues: ConfigIssue[] = [];
  const written = new Map<string, string>();
  const withheld = new Set<string>();

  /** A secret variable's value in a field of another kind (written literally): an issue, and the value hidden in the data. */
  const hideSecrets = (s: string, path: PathSegment[]): string => {
    let out = s;
    for (const [value, field] of secrets.values) {
      if (!out.includes(value)) continue;
      issues.push({ path: formatPath(path), message: `holds the value of a secret (${field}) (value hidden): a secret may be used only in its own field` });
      withheld.add(formatPath(path));
      out = out.split(value).join('(value hidden)');
    }
    return out;
  };

  const visitString = (s: string, path: PathSegment[]): string => {
    const secret = secretField(path);
    if (!s.includes('${')) return secret ? s : hideSecrets(s, path);
    written.set(formatPath(path), s);
    const out = s.replace(REF, (whole: string, escape: string, name: string) => {
      if (escape) return whole.slice(1);
      if (!NAME.test(name)) {
        issues.push({
          path: formatPath(path),
          message: `${JSON.stringify(whole)} is not a valid environment reference (letters, digits and _, e.g. \${WALLEX_API_KEY})`,
        });
        return whole;
      }
      // A secret outside its field: the reference stays as written, so no later stage sees the value.
      const field = secret ? undefined : secrets.variables.get(name);
      const alias = secret ? undefined : secrets.aliases.get(name);
      if (field !== undefined || alias !== undefined) {
        withheld.add(formatPath(path));
        issues.push({
          path: formatPath(path),
          message:
            field !== undefined
              ? `references \${${name}}, a secret variable (${field}) (value hidden): a secret variable may be referenced only from its own field`
              : `\${${name}} holds the value of a secret (${alias}) (value hidden): a secret may be used only in its own field`,
        });
        return whole;
      }
      const v = env[name];
      if (v === undefined || v === '') {
        issues.push({ path: formatPath(path), message: `environment variable ${name} is not set (referenced as \${${name}})` });
        return '';
      }
      return v;
    });
    return secret ? out : hideSecrets(out, path);
  };

  const visit = (v: unknown, path: PathSegment[]): unknown => {
    if (typeof v === 'string') return visitString(v, path);
    if (Array.isArray(v)) return v.map((x, i) => visit(x, [...path, i]));
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = visit(x, [...path, k]);
      return out;
    }
    return v;
  };

  return { value: visit(input, []), issues, written, withheld };
}

/** True when the string is exactly one `${NAME}` reference. */
export function isEnvReference(s: string): boolean {
  return /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(s.trim());
}
