/**
 * Turns zod issues into ConfigIssues: path, the offending value and what is allowed, with a
 * "did you mean" for unknown keys. Custom messages in the definitions are predicates ("is not a
 * valid cron expression ..."), printed after the value; zod's own issues get messages built here.
 */
import type * as z from 'zod';
import type { ConfigIssue, PathSegment } from './issues.js';
import { describeValue, didYouMean, formatPath, isSecretPath } from './issues.js';

/** Passed as the per-parse error map: marks messages that the definitions did not set. */
export const DEFAULT_MESSAGE = '\u0000default';

interface LooseDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
}

function def(s: z.ZodType): LooseDef {
  return s._zod.def as unknown as LooseDef;
}

function unwrap(s: z.ZodType): z.ZodType {
  let cur = s;
  for (let i = 0; i < 20; i++) {
    const d = def(cur);
    if (d.innerType && ['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch', 'nonoptional'].includes(d.type)) cur = d.innerType;
    else if (d.type === 'pipe' && d.in) cur = d.in;
    else break;
  }
  return cur;
}

/** The keys an object schema at `path` allows (empty when the path does not lead to an object). */
function allowedKeysAt(schema: z.ZodType, path: readonly PathSegment[]): string[] {
  let cur: z.ZodType | undefined = unwrap(schema);
  for (const seg of path) {
    if (!cur) return [];
    const d = def(cur);
    if (d.type === 'object' && typeof seg === 'string') cur = d.shape?.[seg];
    else if (d.type === 'array') cur = d.element;
    else if (d.type === 'record') cur = d.valueType;
    else return [];
    if (cur) cur = unwrap(cur);
  }
  if (!cur) return [];
  const d = def(cur);
  return d.type === 'object' && d.shape ? Object.keys(d.shape) : [];
}

function valueAt(data: unknown, path: readonly PathSegment[]): unknown {
  let cur: unknown = data;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

export interface IssueContext {
  schema: z.ZodType;
  data: unknown;
  /** Paths whose string contained an env reference: shown as written. */
  written: ReadonlyMap<string, string>;
}

function shown(path: PathSegment[], value: unknown, ctx: IssueContext): { text: string; value?: unknown } {
  if (isSecretPath(path)) return { text: '(value hidden)' };
  const w = ctx.written.get(formatPath(path));
  if (w !== undefined) return { text: JSON.stringify(w), value: w };
  return { text: describeValue(value), value };
}

const quoteList = (values: readonly unknown[]) => values.map((v) => (typeof v === 'string' ? JSON.stringify(v) : String(v))).join(', ');

function defaultMessage(issue: z.core.$ZodIssue, text: string, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return value === undefined ? `is required (${issue.expected})` : `expected ${issue.expected}, got ${text}`;
    case 'invalid_value':
      return `${text} is not allowed (allowed: ${quoteList(issue.values)})`;
    case 'too_small':
      if (issue.origin === 'array') return `has ${Array.isArray(value) ? value.length : 0} entries, at least ${String(issue.minimum)} required`;
      if (issue.origin === 'string') return `${text} is too short (at least ${String(issue.minimum)} characters)`;
      return `${text} is too small (minimum ${String(issue.minimum)}${issue.inclusive === false ? ', exclusive' : ''})`;
    case 'too_big':
      if (issue.origin === 'array') return `has ${Array.isArray(value) ? value.length : 0} entries, at most ${String(issue.maximum)} allowed`;
      return `${text} is too big (maximum ${String(issue.maximum)})`;
    case 'invalid_format':
      return `${text} does not have the expected format (${issue.format}${'pattern' in issue && issue.pattern ? ` ${String(issue.pattern)}` : ''})`;
    case 'not_multiple_of':
      return `${text} is not a multiple of ${String(issue.divisor)}`;
    case 'invalid_union':
      return `${text} does not match any allowed form`;
    default:
      return `${text} is not valid`;
  }
}

/**
 * A union whose value has the shape of exactly one of its forms (an object, where the other forms
 * are a word): that form's own issues, which name the field and its value (`backtest.fees.maker: 2
 * must be from 0 to 0.1`), instead of the union's summary (`is not { maker, taker } or account`).
 * A form matches the shape when none of its issues is about the value itself being of another type.
 */
function shapeBranch(issue: z.core.$ZodIssueInvalidUnion, value: unknown): z.core.$ZodIssue[] | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const shaped = issue.errors.filter(
    (branch) => branch.length > 0 && !branch.some((i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_value')),
  );
  return shaped.length === 1 ? shaped[0] : undefined;
}

/** One zod issue -> one or more ConfigIssues (unknown keys give one each). */
export function convertIssue(issue: z.core.$ZodIssue, ctx: IssueContext): ConfigIssue[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const allowed = allowedKeysAt(ctx.schema, path);
    return issue.keys.map((key) => ({
      path: formatPath([...path, key]),
      message: `unknown key ${JSON.stringify(key)}${didYouMean(key, allowed)}${allowed.length ? ` (allowed keys: ${allowed.join(', ')})` : ''}`,
    }));
  }
  if (issue.code === 'invalid_key') {
    const key = path[path.length - 1];
    const inner = issue.issues.find((i) => i.message !== DEFAULT_MESSAGE)?.message ?? 'is not an allowed key';
    return [{ path: formatPath(path), message: `key ${JSON.stringify(key)} ${inner}` }];
  }
  const value = valueAt(ctx.data, path);
  if (issue.code === 'invalid_union') {
    const inner = shapeBranch(issue, value);
    if (inner) return inner.flatMap((i) => convertIssue({ ...i, path: [...issue.path, ...i.path] } as z.core.$ZodIssue, ctx));
  }
  const s = shown(path, value, ctx);
  const message =
    issue.message === DEFAULT_MESSAGE || issue.message === ''
      ? defaultMessage(issue, s.text, value)
      : value === undefined
        ? `is required (${issue.message.replace(/^is not /, 'expected ')})`
        : `${s.text} ${issue.message}`;
  const out: ConfigIssue = { path: formatPath(path), message };
  if (s.value !== undefined) out.value = s.value;
  return [out];
}
