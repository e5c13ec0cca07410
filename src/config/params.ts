/**
 * Strategy parameters: each strategy declares its parameters with bounds; the runtime checks the
 * `params` of a strategy's configuration against them with the same error style as the loader.
 */
import { Decimal, toDecimal } from '../core/decimal.js';
import type { ConfigIssue } from './issues.js';
import { ConfigError, describeValue, didYouMean } from './issues.js';

export type ParamType = 'int' | 'number' | 'boolean' | 'string' | 'decimal';

export interface ParamSpec {
  type: ParamType;
  default?: unknown;
  min?: number | string;
  max?: number | string;
  choices?: readonly (string | number | boolean)[];
  description?: string;
}

export type ParamSpecs = Record<string, ParamSpec>;
export type ParamValue = number | boolean | string | Decimal;

const TYPE_HINT: Record<ParamType, string> = {
  int: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  string: 'a string',
  decimal: 'a decimal number or numeric string',
};

function coerce(spec: ParamSpec, v: unknown): ParamValue | undefined {
  switch (spec.type) {
    case 'int':
      return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
    case 'boolean':
      return typeof v === 'boolean' ? v : undefined;
    case 'string':
      return typeof v === 'string' ? v : undefined;
    case 'decimal':
      try {
        return v instanceof Decimal || typeof v === 'string' || typeof v === 'number' ? toDecimal(v) : undefined;
      } catch {
        return undefined;
      }
  }
}

function cmp(a: ParamValue, b: number | string): number {
  if (a instanceof Decimal) return a.cmp(toDecimal(b));
  return Number(a) - Number(b);
}

/**
 * Check `given` against `declared`: unknown names, wrong types, out-of-range values and values
 * outside `choices` are collected; missing names take their default (a declared parameter without
 * a default is required). `path` prefixes every issue (e.g. `strategies[0].params`). Returns the
 * complete parameter set (decimals as Decimal); throws ConfigError listing every problem.
 */
export function validateParams(declared: ParamSpecs, given: Readonly<Record<string, unknown>> | undefined, path: string): Record<string, ParamValue> {
  const issues: ConfigIssue[] = [];
  const out: Record<string, ParamValue> = {};
  const names = Object.keys(declared);
  for (const name of Object.keys(given ?? {})) {
    if (!(name in declared)) {
      issues.push({
        path: `${path}.${name}`,
        message: `unknown parameter ${JSON.stringify(name)}${didYouMean(name, names)} (declared: ${names.join(', ') || 'none'})`,
      });
    }
  }
  for (const [name, spec] of Object.entries(declared)) {
    const p = `${path}.${name}`;
    const raw = given?.[name] !== undefined ? given[name] : spec.default;
    if (raw === undefined) {
      issues.push({ path: p, message: `is required (${TYPE_HINT[spec.type]}${spec.description ? `: ${spec.description}` : ''})` });
      continue;
    }
    const v = coerce(spec, raw);
    const bad = (message: string) => issues.push({ path: p, message: `${describeValue(raw)} ${message}`, value: raw });
    if (v === undefined) {
      bad(`is not ${TYPE_HINT[spec.type]}`);
      continue;
    }
    if (spec.choices && !spec.choices.some((c) => (v instanceof Decimal ? v.eq(toDecimal(c)) : c === v))) {
      bad(`is not allowed (allowed: ${spec.choices.map((c) => JSON.stringify(c)).join(', ')})`);
      continue;
    }
    const range = `${spec.min ?? '-∞'} to ${spec.max ?? '∞'}`;
    if (typeof v !== 'boolean' && typeof v !== 'string') {
      if ((spec.min !== undefined && cmp(v, spec.min) < 0) || (spec.max !== undefined && cmp(v, spec.max) > 0)) {
        bad(`is out of range (allowed: ${range})`);
        continue;
      }
    }
    out[name] = v;
  }
  if (issues.length > 0) throw new ConfigError(issues, path);
  return out;
}
