/**
 * `JSON.stringify(value, null, 2)` as a sequence of pieces, for writing a large document (a 1M-candle
 * backtest's result.json is ~29 MB) without holding it as one string and one buffer at once. The
 * pieces joined are exactly what JSON.stringify gives: plain arrays and plain objects are walked
 * here, `maxDepth` levels down, and every value below that (or with a `toJSON`, or of any other kind:
 * Decimals, Dates, typed arrays) is given to JSON.stringify and re-indented.
 */

const indentOf = (depth: number): string => '  '.repeat(depth);

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** A value JSON.stringify leaves out of an object (and writes as null in an array). */
function omitted(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

/** A leaf at `depth`: JSON.stringify's text with its inner lines indented to the depth. */
function leaf(v: unknown, depth: number): string {
  const text = JSON.stringify(v, null, 2);
  return depth === 0 ? text : text.replace(/\n/g, `\n${indentOf(depth)}`);
}

export function* jsonPieces(value: unknown, maxDepth = 2, depth = 0): Generator<string> {
  if (depth >= maxDepth || typeof value !== 'object' || value === null || !(Array.isArray(value) || isPlainObject(value))) {
    yield omitted(value) ? 'null' : leaf(value, depth);
    return;
  }
  const inner = `\n${indentOf(depth + 1)}`;
  if (Array.isArray(value)) {
    if (value.length === 0) {
      yield '[]';
      return;
    }
    yield '[';
    for (let i = 0; i < value.length; i++) {
      yield i === 0 ? inner : `,${inner}`;
      yield* jsonPieces(value[i], maxDepth, depth + 1);
    }
    yield `\n${indentOf(depth)}]`;
    return;
  }
  const o = value as Record<string, unknown>;
  let first = true;
  for (const key of Object.keys(o)) {
    const v = o[key];
    if (omitted(v)) continue;
    yield `${first ? '{' : ','}${inner}${JSON.stringify(key)}: `;
    first = false;
    yield* jsonPieces(v, maxDepth, depth + 1);
  }
  yield first ? '{}' : `\n${indentOf(depth)}}`;
}
