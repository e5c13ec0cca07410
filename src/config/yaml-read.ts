/**
 * From a parsed YAML document to plain data, refusing what a configuration cannot hold, each as an
 * issue with its line (the loader names the file):
 * - an alias inside the node its anchor names (`a: &a [*a]`): the data would contain itself;
 * - more alias expansions than MAX_ALIAS_COUNT (a "billion laughs" file);
 * - a number too large to be one (`1e400` reads as Infinity): named as written, at its path.
 */
import { Alias, isScalar, visit } from 'yaml';
import type { Document, LineCounter } from 'yaml';
import type { ConfigIssue, PathSegment } from './issues.js';
import { formatPath } from './issues.js';

/** Alias expansions a configuration may use (yaml's maxAliasCount). */
const MAX_ALIAS_COUNT = 100;

export interface YamlData {
  /** The data, when there is no whole-file problem (a cycle, too many aliases). */
  value?: unknown;
  /** Whole-file problems, or numbers that are not finite (then `value` is set too). */
  issues: ConfigIssue[];
  /** Paths (formatPath) of the numbers reported: the schema's own issue there is left out. */
  reported: Set<string>;
}

function lineAt(lc: LineCounter, node: { range?: [number, number, number] | null }): number | undefined {
  return node.range ? lc.linePos(node.range[0]).line : undefined;
}

/** The first alias written inside the node its anchor names, if any. */
function selfReference(doc: Document): Alias | undefined {
  let found: Alias | undefined;
  visit(doc, {
    Alias(_key, node, path) {
      const target = node.resolve(doc);
      if (target && path.includes(target)) {
        found = node;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

function firstAlias(doc: Document): Alias | undefined {
  let found: Alias | undefined;
  visit(doc, {
    Alias(_key, node) {
      found = node;
      return visit.BREAK;
    },
  });
  return found;
}

/** `doc.toJS()` with the checks of the file comment. Never throws for a document that parsed. */
export function yamlData(doc: Document, lc: LineCounter): YamlData {
  const self = selfReference(doc);
  if (self) {
    const line = lineAt(lc, self);
    return {
      issues: [
        {
          path: '',
          message: `the alias *${self.source} is inside the node its anchor &${self.source} names: the data would contain itself (a configuration cannot hold a cycle)`,
          ...(line !== undefined ? { line } : {}),
        },
      ],
      reported: new Set(),
    };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    const first = firstAlias(doc);
    const line = first ? lineAt(lc, first) : undefined;
    const why =
      err instanceof ReferenceError && /alias count/i.test(err.message)
        ? `its aliases expand to more than ${MAX_ALIAS_COUNT} nodes (a "billion laughs" file); a configuration needs far fewer`
        : err instanceof RangeError
          ? 'its aliases nest too deeply to be read (a cycle of anchors and aliases?)'
          : `it cannot be read as data (${(err as Error).message})`;
    return { issues: [{ path: '', message: `the file is refused: ${why}`, ...(line !== undefined ? { line } : {}) }], reported: new Set() };
  }
  const issues: ConfigIssue[] = [];
  const reported = new Set<string>();
  const walk = (v: unknown, path: PathSegment[]): void => {
    if (typeof v === 'number') {
      if (Number.isFinite(v)) return;
      const node = doc.getIn(path, true);
      const written = isScalar(node) && typeof node.source === 'string' && node.source !== '' ? node.source : String(v);
      const line = isScalar(node) ? lineAt(lc, node) : undefined;
      const p = formatPath(path);
      reported.add(p);
      issues.push({
        path: p,
        message: Number.isNaN(v) ? `${written} is not a number` : `${written} is not a finite number (beyond the largest number, about 1.8e308)`,
        value: written,
        ...(line !== undefined ? { line } : {}),
      });
      return;
    }
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(value, []);
  return { value, issues, reported };
}
