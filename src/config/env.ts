/**
 * `${ENV_NAME}` substitution in every string value of the parsed YAML. `$${X}` writes a literal
 * `${X}`. A missing (or empty) variable is an issue naming the path and the variable; values are
 * never printed. The paths that were substituted are returned so messages about them can show the
 * reference as written instead of the value. A key left empty (`exchange:` with every line under
 * it commented out, i.e. null) counts as not written, so its defaults apply.
 */
import type { ConfigIssue, PathSegment } from './issues.js';
import { formatPath } from './issues.js';

const REF = /\$(\$?)\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface Substitution {
  value: unknown;
  issues: ConfigIssue[];
  /** formatPath(path) -> the string as written, for every string that contained a reference. */
  written: Map<string, string>;
}

export function substituteEnv(input: unknown, env: Readonly<Record<string, string | undefined>>): Substitution {
  const issues: ConfigIssue[] = [];
  const written = new Map<string, string>();

  const visitString = (s: string, path: PathSegment[]): string => {
    if (!s.includes('${')) return s;
    written.set(formatPath(path), s);
    return s.replace(REF, (whole: string, escape: string, name: string) => {
      if (escape) return whole.slice(1);
      if (!NAME.test(name)) {
        issues.push({
          path: formatPath(path),
          message: `${JSON.stringify(whole)} is not a valid environment reference (letters, digits and _, e.g. \${WALLEX_API_KEY})`,
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

  return { value: visit(input, []), issues, written };
}

/** True when the string is exactly one `${NAME}` reference. */
export function isEnvReference(s: string): boolean {
  return /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(s.trim());
}
