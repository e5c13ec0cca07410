/**
 * Configuration problems: each names its path (`strategies[1].schedule.cron`), the bad value (never
 * a secret) and what is allowed. The loader collects all of them and throws one ConfigError.
 */
import { FinalError } from '../core/errors.js';

export type PathSegment = string | number;

export interface ConfigIssue {
  /** Dotted path with array indexes: `strategies[1].schedule.cron`; '' for the whole file. */
  path: string;
  /** The whole sentence after the path: names the value and what is allowed. */
  message: string;
  /** The offending value as written (absent for secrets and missing values). */
  value?: unknown;
  /** 1-based line in the YAML file, when known. */
  line?: number;
}

/** A configuration that cannot be used. Final: fix the file, then load it again. */
export class ConfigError extends FinalError {
  constructor(
    readonly issues: ConfigIssue[],
    readonly source = 'config',
  ) {
    super(formatIssues(issues, source));
  }
}

export function formatIssue(issue: ConfigIssue): string {
  const where = issue.line !== undefined ? ` (line ${issue.line})` : '';
  return `${issue.path || '(file)'}: ${issue.message}${where}`;
}

export function formatIssues(issues: ConfigIssue[], source: string): string {
  const head = `${source}: ${issues.length} problem${issues.length === 1 ? '' : 's'}`;
  return [head, ...issues.map((i) => `  - ${formatIssue(i)}`)].join('\n');
}

/** `['strategies', 1, 'schedule', 'cron']` -> `strategies[1].schedule.cron`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** Segment names whose values are never printed. */
const SECRET = /(key|secret|token|password|passphrase)$/i;

export function isSecretPath(path: readonly PathSegment[]): boolean {
  const last = path[path.length - 1];
  return typeof last === 'string' && SECRET.test(last);
}

/** A short, printable form of a value: strings quoted, long values cut. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  let s: string;
  if (typeof value === 'string') s = JSON.stringify(value);
  else if (typeof value === 'object' && 'toFixed' in value && typeof value.toString === 'function') s = value.toString();
  else {
    try {
      s = JSON.stringify(value) ?? String(value);
    } catch {
      s = String(value);
    }
  }
  return s.length > 80 ? s.slice(0, 77) + '…' : s;
}

/** Levenshtein distance, for "did you mean" suggestions. */
function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = cur;
  }
  return prev[y.length] ?? Math.max(x.length, y.length);
}

/** The closest candidate when it is close enough to be a likely typo, else undefined. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const dist = editDistance(word, c);
    if (dist < bestD) {
      bestD = dist;
      best = c;
    }
  }
  const limit = Math.max(2, Math.floor(word.length / 3));
  return best !== undefined && bestD <= limit ? best : undefined;
}

export function didYouMean(word: string, candidates: readonly string[]): string {
  const c = closest(word, candidates);
  return c ? `; did you mean ${JSON.stringify(c)}?` : '';
}
