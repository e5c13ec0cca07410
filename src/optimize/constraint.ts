/**
 * Parameter constraints (`--constraint "fast < slow"`, repeatable) for sweeps and optimisation: a
 * small expression grammar, parsed without eval:
 *
 *   constraint := sum cmp sum (cmp sum)*        cmp := < | <= | > | >= | == | !=
 *   sum := product (('+' | '-') product)*       product := unary (('*' | '/') unary)*
 *   unary := '-' unary | number | name | '(' sum ')'
 *
 * Names are parameters being searched: `instance.param`, or `param` when one instance has it. A chain
 * (`5 <= fast < slow`) holds when every comparison does.
 */
export type Values = Readonly<Record<string, number | string | boolean>>;

export interface Constraint {
  /** As written. */
  text: string;
  /** The full parameter names it reads. */
  names: string[];
  holds(p: Values): boolean;
}

type Node = { k: 'num'; v: number } | { k: 'name'; name: string } | { k: 'neg'; a: Node } | { k: 'bin'; op: string; a: Node; b: Node };

class ConstraintError extends Error {}

/** Parses `text` over the parameter names `params` (full names); a bad constraint throws naming it. */
export function parseConstraint(text: string, params: readonly string[]): Constraint {
  const bad = (why: string) => new ConstraintError(`--constraint ${JSON.stringify(text)}: ${why}`);
  const tokens: string[] = [];
  const re = /\s*(?:(\d+(?:\.\d+)?(?:e[+-]?\d+)?|\.\d+)|([A-Za-z_][\w.]*)|(<=|>=|==|!=|<|>|[-+*/()])|(\S))/gy;
  for (let m = re.exec(text); m && m.index < text.length; m = re.exec(text)) {
    if (m[4] !== undefined) throw bad(`unexpected ${JSON.stringify(m[4])} at column ${m.index + m[0].length}`);
    if (m[0].trim() === '') break;
    tokens.push(m[1] ?? m[2] ?? m[3]!);
  }
  let i = 0;
  const names = new Set<string>();
  const peek = () => tokens[i];
  const resolveName = (n: string): string => {
    if (params.includes(n)) return n;
    const hits = params.filter((p) => p.endsWith(`.${n}`));
    if (hits.length === 1) return hits[0]!;
    if (hits.length > 1) throw bad(`${n} is ambiguous (${hits.join(', ')}): write instance.${n}`);
    throw bad(`${n} is not a searched parameter (the --param names: ${params.join(', ') || 'none'})`);
  };
  const unary = (): Node => {
    const t = tokens[i++];
    if (t === undefined) throw bad('ends too early (a number, a parameter or "(" expected)');
    if (t === '-') return { k: 'neg', a: unary() };
    if (t === '(') {
      const e = sum();
      if (tokens[i++] !== ')') throw bad('a ")" is missing');
      return e;
    }
    if (/^[\d.]/.test(t)) return { k: 'num', v: Number(t) };
    if (/^[A-Za-z_]/.test(t)) {
      const name = resolveName(t);
      names.add(name);
      return { k: 'name', name };
    }
    throw bad(`unexpected ${JSON.stringify(t)} (a number, a parameter or "(" expected)`);
  };
  const product = (): Node => {
    let a = unary();
    while (peek() === '*' || peek() === '/') a = { k: 'bin', op: tokens[i++]!, a, b: unary() };
    return a;
  };
  const sum = (): Node => {
    let a = product();
    while (peek() === '+' || peek() === '-') a = { k: 'bin', op: tokens[i++]!, a, b: product() };
    return a;
  };
  const CMP = ['<', '<=', '>', '>=', '==', '!='];
  const terms: Node[] = [sum()];
  const ops: string[] = [];
  while (peek() !== undefined && CMP.includes(peek()!)) {
    ops.push(tokens[i++]!);
    terms.push(sum());
  }
  if (i < tokens.length) throw bad(`unexpected ${JSON.stringify(tokens[i])}`);
  if (ops.length === 0) throw bad('has no comparison (<, <=, >, >=, ==, !=), e.g. "fast < slow"');
  const value = (n: Node, p: Values): number => {
    switch (n.k) {
      case 'num':
        return n.v;
      case 'name': {
        const v = p[n.name];
        if (typeof v !== 'number') throw bad(`${n.name} is ${JSON.stringify(v)}, not a number`);
        return v;
      }
      case 'neg':
        return -value(n.a, p);
      case 'bin': {
        const a = value(n.a, p);
        const b = value(n.b, p);
        return n.op === '+' ? a + b : n.op === '-' ? a - b : n.op === '*' ? a * b : a / b;
      }
    }
  };
  const cmp = (op: string, a: number, b: number) =>
    op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : op === '>=' ? a >= b : op === '==' ? a === b : a !== b;
  return {
    text,
    names: [...names],
    holds: (p) => {
      const vs = terms.map((t) => value(t, p));
      return ops.every((op, k) => cmp(op, vs[k]!, vs[k + 1]!));
    },
  };
}

/** Every constraint of `texts` parsed; a predicate true when all hold. */
export function constraintsPredicate(texts: readonly string[], params: readonly string[]): ((p: Values) => boolean) | undefined {
  if (texts.length === 0) return undefined;
  const cs = texts.map((t) => parseConstraint(t, params));
  return (p) => cs.every((c) => c.holds(p));
}

/** The sweep's combinations (`{ instance: { param: value } }`) where every constraint holds. */
export function constrainCombos<C extends Record<string, Record<string, number>>>(combos: readonly C[], texts: readonly string[]): C[] {
  const flat = (c: C) => Object.fromEntries(Object.entries(c).flatMap(([inst, ps]) => Object.entries(ps).map(([k, v]) => [`${inst}.${k}`, v])));
  if (texts.length === 0 || combos.length === 0) return [...combos];
  const holds = constraintsPredicate(texts, Object.keys(flat(combos[0]!)))!;
  return combos.filter((c) => holds(flat(c)));
}
