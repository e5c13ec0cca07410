/**
 * The search space of `mizan optimize`: one `--param` per dimension.
 *
 *   name=LOW..HIGH          whole numbers when both bounds are written as whole numbers, else real numbers
 *   name=LOW..HIGH:STEP     only LOW, LOW+STEP, … up to HIGH (whole numbers when all three are)
 *   name=LOW..HIGH:log      sampled on a log scale (LOW > 0); e.g. lr=1e-4..1e-1:log
 *   name=a,b,c              categorical: one of the listed values (numbers, true/false, or words)
 *
 * A strategy parameter declared `number` is always real (fraction=0..1 is a real range); one declared
 * `int` must get whole bounds and steps. Bounds are checked against the declared min/max (optimize.ts).
 */
export type ParamValue = number | string | boolean;
export type Params = Record<string, ParamValue>;

export type ParamDist =
  | { kind: 'int'; name: string; low: number; high: number; step: number; log: boolean }
  | { kind: 'float'; name: string; low: number; high: number; step?: number; log: boolean }
  | { kind: 'categorical'; name: string; choices: ParamValue[] };

export type SearchSpace = ParamDist[];

const NUM = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const WHOLE = /^[+-]?\d+$/;

export class ParamSpecError extends Error {
  constructor(
    readonly param: string,
    readonly value: string,
    reason: string,
  ) {
    super(`--param ${param}: ${JSON.stringify(value)} ${reason}`);
    this.name = 'ParamSpecError';
  }
}

/** Parses one `--param` text. `forceFloat`: the strategy declares the parameter `number`. */
export function parseParamSpec(text: string, forceFloat = false): ParamDist {
  const m = /^\s*([A-Za-z_][A-Za-z0-9_.-]*)=(.*)$/.exec(text);
  if (!m) throw new ParamSpecError(text.split('=')[0] || text, text, 'is not name=LOW..HIGH[:STEP|:log] or name=a,b,c');
  const name = m[1]!;
  const spec = m[2]!.trim();
  if (spec === '') throw new ParamSpecError(name, spec, 'is empty: expected LOW..HIGH[:STEP|:log] or a,b,c');
  if (spec.includes('..')) {
    const [range, ...mods] = spec.split(':');
    const [lo, hi, ...extra] = range!.split('..');
    if (extra.length > 0 || lo === undefined || hi === undefined) throw new ParamSpecError(name, spec, 'is not LOW..HIGH');
    if (!NUM.test(lo)) throw new ParamSpecError(name, spec, `has a lower bound ${JSON.stringify(lo)} that is not a number`);
    if (!NUM.test(hi)) throw new ParamSpecError(name, spec, `has an upper bound ${JSON.stringify(hi)} that is not a number`);
    const low = Number(lo);
    const high = Number(hi);
    if (!(low < high)) throw new ParamSpecError(name, spec, `needs LOW < HIGH (got ${low} and ${high})`);
    let log = false;
    let stepText: string | undefined;
    for (const mod of mods) {
      if (mod === 'log') {
        if (log) throw new ParamSpecError(name, spec, 'says :log twice');
        log = true;
      } else if (NUM.test(mod)) {
        if (stepText !== undefined) throw new ParamSpecError(name, spec, 'has two steps');
        stepText = mod;
      } else throw new ParamSpecError(name, spec, `has ${JSON.stringify(mod)} after ":" (expected a step or log)`);
    }
    if (log && stepText !== undefined) throw new ParamSpecError(name, spec, 'combines :log with a step (use one)');
    if (log && !(low > 0)) throw new ParamSpecError(name, spec, `is on a log scale, which needs LOW > 0 (got ${low})`);
    const step = stepText === undefined ? undefined : Number(stepText);
    if (step !== undefined && !(step > 0)) throw new ParamSpecError(name, spec, `needs a positive step (got ${stepText})`);
    const whole = WHOLE.test(lo) && WHOLE.test(hi) && (stepText === undefined || WHOLE.test(stepText));
    if (whole && !forceFloat) return { kind: 'int', name, low, high, step: step ?? 1, log };
    return { kind: 'float', name, low, high, ...(step !== undefined ? { step } : {}), log };
  }
  const items = spec.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) throw new ParamSpecError(name, spec, 'has an empty choice');
  const choices: ParamValue[] = items.map((s) => (NUM.test(s) ? Number(s) : s === 'true' ? true : s === 'false' ? false : s));
  const seen = new Set(choices.map((c) => JSON.stringify(c)));
  if (seen.size !== choices.length) throw new ParamSpecError(name, spec, 'lists a choice twice');
  return { kind: 'categorical', name, choices };
}

/** The values a grid takes on one dimension (int, stepped float, categorical); throws for a continuous one. */
export function gridValues(d: ParamDist): ParamValue[] {
  if (d.kind === 'categorical') return d.choices;
  if (d.kind === 'float' && d.step === undefined) {
    throw new ParamSpecError(
      d.name,
      `${d.low}..${d.high}${d.log ? ':log' : ''}`,
      'is a continuous range: the grid sampler needs a step (LOW..HIGH:STEP) or a list',
    );
  }
  const step = d.step!;
  if (d.kind === 'int' && d.log) {
    throw new ParamSpecError(d.name, `${d.low}..${d.high}:log`, 'is on a log scale: the grid sampler needs a step (LOW..HIGH:STEP) or a list');
  }
  const out: number[] = [];
  for (let k = 0; d.low + k * step <= d.high + 1e-9 * step; k++) out.push(roundTo(d.low + k * step, d.low, step));
  return out;
}

/** `low + k·step` for the k nearest to x, printed without float noise. */
export function roundTo(x: number, low: number, step: number): number {
  const k = Math.round((x - low) / step);
  return Number((low + k * step).toPrecision(12));
}

/** A canonical JSON of the space (stored with a study; a different space is refused). */
export function spaceKey(space: SearchSpace): string {
  return JSON.stringify([...space].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
}
