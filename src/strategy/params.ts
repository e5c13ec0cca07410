/**
 * Typed strategy parameters with defaults and bounds. The same declarations drive config
 * validation (`mizan check`), `mizan strategies`, and parameter sweeps.
 */
import { didYouMean } from '../config/issues.js';
export type ParamSpec =
  | { type: 'int'; default: number; min?: number; max?: number; description?: string }
  | { type: 'number'; default: number; min?: number; max?: number; description?: string }
  | { type: 'boolean'; default: boolean; description?: string }
  | { type: 'string'; default: string; choices?: readonly string[]; description?: string };

export type ParamSpecs = Record<string, ParamSpec>;

type ValueOf<S extends ParamSpec> = S extends { type: 'boolean' } ? boolean : S extends { type: 'string' } ? string : number;

export type ParamValues<P extends ParamSpecs> = { readonly [K in keyof P]: ValueOf<P[K]> };

export interface ParamIssue {
  path: string;
  message: string;
}

/**
 * Fill defaults and check given values against the declarations. Returns the values, or the list
 * of problems, each naming its path (`strategies[0].params.fast`), the value and what is allowed.
 */
export function resolveParams<P extends ParamSpecs>(
  specs: P,
  given: Record<string, unknown> | undefined,
  path = 'params',
): { ok: true; values: ParamValues<P> } | { ok: false; issues: ParamIssue[] } {
  const issues: ParamIssue[] = [];
  const out: Record<string, unknown> = {};
  const input = given ?? {};
  for (const key of Object.keys(input)) {
    if (!(key in specs)) {
      issues.push({
        path: `${path}.${key}`,
        message: `unknown parameter ${JSON.stringify(key)}${didYouMean(key, Object.keys(specs))} (known: ${Object.keys(specs).join(', ') || 'none'})`,
      });
    }
  }
  for (const [key, spec] of Object.entries(specs)) {
    const p = `${path}.${key}`;
    const v = key in input ? input[key] : spec.default;
    const problem = checkParam(spec, v);
    if (problem) issues.push({ path: p, message: `${JSON.stringify(v)} ${problem}` });
    else out[key] = v;
  }
  return issues.length ? { ok: false, issues } : { ok: true, values: out as ParamValues<P> };
}

function checkParam(spec: ParamSpec, v: unknown): string | undefined {
  switch (spec.type) {
    case 'int':
    case 'number': {
      if (typeof v !== 'number' || !Number.isFinite(v)) return `is not a number (expected ${spec.type})`;
      if (spec.type === 'int' && !Number.isInteger(v)) return 'is not a whole number';
      if (spec.min !== undefined && v < spec.min) return `is below the minimum ${spec.min}`;
      if (spec.max !== undefined && v > spec.max) return `is above the maximum ${spec.max}`;
      return undefined;
    }
    case 'boolean':
      return typeof v === 'boolean' ? undefined : 'is not true or false';
    case 'string':
      if (typeof v !== 'string') return 'is not a string';
      if (spec.choices && !spec.choices.includes(v)) return `is not one of ${spec.choices.join(', ')}`;
      return undefined;
  }
}

/** One line per parameter, for `mizan strategies`. */
export function describeParams(specs: ParamSpecs): string[] {
  return Object.entries(specs).map(([name, s]) => {
    const bounds =
      s.type === 'int' || s.type === 'number'
        ? ` [${s.min ?? '-inf'}..${s.max ?? 'inf'}]`
        : s.type === 'string' && s.choices
          ? ` {${s.choices.join('|')}}`
          : '';
    return `${name}: ${s.type} = ${JSON.stringify(s.default)}${bounds}${s.description ? `  ${s.description}` : ''}`;
  });
}
