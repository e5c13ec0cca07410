/**
 * Samplers: what parameters the next trial gets. All are deterministic: trial n's draws come from
 * an Rng seeded with (seed, n), so the same seed and the same history give the same parameters
 * (also after a resume).
 *
 * - random: each parameter uniformly (log scale: uniformly in log space; steps: the nearest step);
 * - grid: every combination of the listed/stepped values, in an order shuffled by the seed; each
 *   trial takes the first point no trial has taken yet; the study ends when the grid is exhausted;
 * - tpe: the Tree-structured Parzen Estimator (Bergstra et al. 2011) as Optuna's TPESampler does it
 *   by default (univariate): see TpeSampler.
 */
import { Rng } from './rng.js';
import { gridValues, roundTo, type ParamDist, type Params, type ParamValue, type SearchSpace } from './space.js';

/** A trial as the samplers see it. `score`: the objective, oriented so that higher is better. */
export interface SamplerTrial {
  number: number;
  params: Params;
  state: 'running' | 'complete' | 'infeasible' | 'failed';
  score: number | null;
}

export interface Sampler {
  readonly name: 'tpe' | 'random' | 'grid';
  /**
   * Parameters for trial `number`; undefined when the sampler has nothing left (a finished grid).
   * `attempt` > 0 draws again from another seeded stream (a point a constraint refused, or one run before).
   */
  ask(number: number, history: readonly SamplerTrial[], attempt?: number): Params | undefined;
}

export type SamplerName = Sampler['name'];

const rngOf = (seed: number, number: number, attempt: number | undefined) => (attempt ? new Rng(seed, number, attempt) : new Rng(seed, number));

/** `accept`: the grid skips the points it refuses (the other samplers are asked again, study.ts). */
export function createSampler(name: SamplerName, space: SearchSpace, seed: number, tpe: Partial<TpeOptions> = {}, accept?: (p: Params) => boolean): Sampler {
  if (name === 'random') return new RandomSampler(space, seed);
  if (name === 'grid') return new GridSampler(space, seed, accept);
  return new TpeSampler(space, seed, tpe);
}

function sampleUniform(d: ParamDist, rng: Rng): ParamValue {
  if (d.kind === 'categorical') return d.choices[rng.int(d.choices.length)]!;
  if (d.kind === 'int') {
    if (d.log) {
      const x = Math.exp(rng.uniform(Math.log(d.low - 0.5), Math.log(d.high + 0.5)));
      return clampInt(Math.round(x), d);
    }
    const n = Math.floor((d.high - d.low) / d.step + 1e-9) + 1;
    return d.low + rng.int(n) * d.step;
  }
  if (d.log) return Math.min(d.high, Math.max(d.low, Math.exp(rng.uniform(Math.log(d.low), Math.log(d.high)))));
  const x = rng.uniform(d.low, d.high);
  return d.step === undefined ? x : clampStep(x, d.low, d.high, d.step);
}

function clampInt(x: number, d: { low: number; high: number }): number {
  return Math.min(d.high, Math.max(d.low, x));
}

function clampStep(x: number, low: number, high: number, step: number): number {
  const top = roundTo(low + Math.floor((high - low) / step + 1e-9) * step, low, step);
  return Math.min(top, Math.max(low, roundTo(x, low, step)));
}

class RandomSampler implements Sampler {
  readonly name = 'random';
  constructor(
    private readonly space: SearchSpace,
    private readonly seed: number,
  ) {}
  ask(number: number, _history?: readonly SamplerTrial[], attempt?: number): Params {
    const rng = rngOf(this.seed, number, attempt);
    return Object.fromEntries(this.space.map((d) => [d.name, sampleUniform(d, rng)]));
  }
}

export class GridSampler implements Sampler {
  readonly name = 'grid';
  private readonly order: number[];
  private readonly axes: ParamValue[][];
  readonly size: number;
  constructor(
    private readonly space: SearchSpace,
    seed: number,
    private readonly accept?: (p: Params) => boolean,
  ) {
    this.axes = space.map(gridValues);
    this.size = this.axes.reduce((n, a) => n * a.length, 1);
    if (this.size > 1_000_000) throw new Error(`the grid has ${this.size} points (over 1 000 000): use larger steps, or the tpe or random sampler`);
    this.order = new Rng(seed, 0x67726964).shuffle(Array.from({ length: this.size }, (_, i) => i));
  }
  point(index: number): Params {
    const values: ParamValue[] = new Array<ParamValue>(this.space.length);
    let rest = index;
    for (let k = this.space.length - 1; k >= 0; k--) {
      const axis = this.axes[k]!;
      values[k] = axis[rest % axis.length]!;
      rest = Math.floor(rest / axis.length);
    }
    // In the space's order (the order the parameters were given).
    return Object.fromEntries(this.space.map((d, k) => [d.name, values[k]!]));
  }
  ask(_number: number, history: readonly SamplerTrial[]): Params | undefined {
    const taken = new Set(history.map((t) => paramsKey(t.params)));
    for (const i of this.order) {
      const p = this.point(i);
      if (!taken.has(paramsKey(p)) && (!this.accept || this.accept(p))) return p;
    }
    return undefined;
  }
}

export function paramsKey(p: Params): string {
  return JSON.stringify(
    Object.keys(p)
      .sort()
      .map((k) => [k, p[k]]),
  );
}

export interface TpeOptions {
  /** Random trials before TPE starts (Optuna: 10). */
  nStartupTrials: number;
  /** Candidates drawn from l(x) per ask (Optuna: 24). */
  nEiCandidates: number;
  /** Weight of the prior component (Optuna: 1). */
  priorWeight: number;
}

const DEFAULT_TPE: TpeOptions = { nStartupTrials: 10, nEiCandidates: 24, priorWeight: 1 };

/** Optuna's default_gamma: how many trials are "good". */
export function tpeGamma(n: number): number {
  return Math.min(Math.ceil(0.1 * n), 25);
}

/** Optuna's default_weights: recent trials weigh more once there are 25 or more. */
export function tpeWeights(n: number): number[] {
  if (n === 0) return [];
  if (n < 25) return new Array<number>(n).fill(1);
  const ramp = n - 25;
  const out: number[] = [];
  for (let i = 0; i < ramp; i++) out.push(ramp === 1 ? 1 / n : 1 / n + ((1 - 1 / n) * i) / (ramp - 1));
  for (let i = 0; i < 25; i++) out.push(1);
  return out;
}

/**
 * TPE, as Optuna's TPESampler (univariate, its defaults): the first `nStartupTrials` trials are
 * random; then the finished trials are split into the γ(n) = min(⌈0.1·n⌉, 25) best ("below", l)
 * and the rest ("above", g; infeasible trials are always there, failed ones are left out). Per
 * parameter, each set becomes a Parzen estimator: one truncated normal per observation (in log
 * space for :log parameters) plus a prior (mean mid-range, σ = the range), each observation's σ
 * the larger distance to its sorted neighbours (Bergstra's adaptive bandwidth), clipped to
 * [range / min(100, 1 + n), range] (Optuna's magic clip), weighted by tpeWeights; a stepped or
 * whole-number parameter's likelihood is the mass of its step cell. Categorical parameters get a
 * smoothed categorical distribution (each observation a kernel with prior weight / k spread over
 * the k choices). `nEiCandidates` values are drawn from l and the one with the largest
 * log l(x) − log g(x) (the expected-improvement ratio) is returned.
 */
class TpeSampler implements Sampler {
  readonly name = 'tpe';
  private readonly opts: TpeOptions;
  constructor(
    private readonly space: SearchSpace,
    private readonly seed: number,
    opts: Partial<TpeOptions> = {},
  ) {
    this.opts = { ...DEFAULT_TPE, ...opts };
  }

  ask(number: number, history: readonly SamplerTrial[], attempt?: number): Params {
    const rng = rngOf(this.seed, number, attempt);
    const done = history.filter((t) => t.state === 'complete' || t.state === 'infeasible');
    if (done.length < this.opts.nStartupTrials) return Object.fromEntries(this.space.map((d) => [d.name, sampleUniform(d, rng)]));
    const { below, above } = splitTrials(done);
    const out: Params = {};
    for (const d of this.space) {
      const lo = below.map((t) => t.params[d.name]!);
      const hi = above.map((t) => t.params[d.name]!);
      out[d.name] = d.kind === 'categorical' ? this.askCategorical(d, lo, hi, rng) : this.askNumeric(d, lo as number[], hi as number[], rng);
    }
    return out;
  }

  private askCategorical(d: Extract<ParamDist, { kind: 'categorical' }>, below: ParamValue[], above: ParamValue[], rng: Rng): ParamValue {
    const l = categoricalProbs(d.choices, below, this.opts.priorWeight);
    const g = categoricalProbs(d.choices, above, this.opts.priorWeight);
    let best = 0;
    let bestScore = -Infinity;
    for (let c = 0; c < this.opts.nEiCandidates; c++) {
      const i = rng.choice(l);
      const s = Math.log(l[i]!) - Math.log(g[i]!);
      if (s > bestScore) {
        bestScore = s;
        best = i;
      }
    }
    return d.choices[best]!;
  }

  private askNumeric(d: Extract<ParamDist, { kind: 'int' | 'float' }>, below: number[], above: number[], rng: Rng): number {
    const t = numericTransform(d);
    const l = parzen(below.map(t.fwd), t.low, t.high, this.opts.priorWeight);
    const g = parzen(above.map(t.fwd), t.low, t.high, this.opts.priorWeight);
    let best = Number.NaN;
    let bestScore = -Infinity;
    for (let c = 0; c < this.opts.nEiCandidates; c++) {
      const x = t.snap(sampleMixture(l, t.low, t.high, rng));
      const s = t.logLik(l, x) - t.logLik(g, x);
      if (s > bestScore || Number.isNaN(best)) {
        bestScore = s;
        best = x;
      }
    }
    return best;
  }
}

/** The good/bad split: feasible trials by score, best first; infeasible ones always "above". */
function splitTrials(done: readonly SamplerTrial[]): { below: SamplerTrial[]; above: SamplerTrial[] } {
  const feasible = done.filter((t) => t.state === 'complete' && t.score !== null);
  const ranked = [...feasible].sort((a, b) => b.score! - a.score! || a.number - b.number);
  const nBelow = Math.min(tpeGamma(done.length), ranked.length);
  const belowSet = new Set(ranked.slice(0, nBelow).map((t) => t.number));
  // Trial order (older first): the weights favour recent trials.
  const byNumber = [...done].sort((a, b) => a.number - b.number);
  return { below: byNumber.filter((t) => belowSet.has(t.number)), above: byNumber.filter((t) => !belowSet.has(t.number)) };
}

function categoricalProbs(choices: ParamValue[], obs: ParamValue[], priorWeight: number): number[] {
  const k = choices.length;
  const w = tpeWeights(obs.length);
  const p = new Array<number>(k).fill(0);
  let total = 0;
  obs.forEach((v, i) => {
    const idx = choices.findIndex((c) => c === v);
    // Each observation's kernel: prior_weight / k on every choice, plus 1 on its own; normalised.
    for (let c = 0; c < k; c++) p[c]! += (w[i]! * (priorWeight / k + (c === idx ? 1 : 0))) / (priorWeight + 1);
    total += w[i]!;
  });
  // The prior kernel: uniform.
  for (let c = 0; c < k; c++) p[c]! += priorWeight / k;
  total += priorWeight;
  return p.map((x) => x / total);
}

export interface Mixture {
  mus: number[];
  sigmas: number[];
  weights: number[];
}

/** Parzen estimator of observations in [low, high] (already transformed), Optuna's univariate rules. */
export function parzen(obs: number[], low: number, high: number, priorWeight: number): Mixture {
  const range = high - low;
  const prior = 0.5 * (low + high);
  const withPrior = [...obs, prior];
  const order = withPrior.map((_, i) => i).sort((a, b) => withPrior[a]! - withPrior[b]! || a - b);
  const sorted = order.map((i) => withPrior[i]!);
  const ends = [low, ...sorted, high];
  const sortedSigmas = sorted.map((_, j) => Math.max(ends[j + 1]! - ends[j]!, ends[j + 2]! - ends[j + 1]!));
  if (ends.length >= 4) {
    // consider_endpoints=False: the outermost use their inner neighbour only.
    sortedSigmas[0] = ends[2]! - ends[1]!;
    sortedSigmas[sortedSigmas.length - 1] = ends[ends.length - 2]! - ends[ends.length - 3]!;
  }
  const sigmasWithPrior = new Array<number>(withPrior.length);
  order.forEach((orig, j) => (sigmasWithPrior[orig] = sortedSigmas[j]!));
  const minSigma = range / Math.min(100, 1 + withPrior.length);
  const sigmas = obs.map((_, i) => Math.min(range, Math.max(minSigma, sigmasWithPrior[i]!)));
  const w = [...tpeWeights(obs.length), priorWeight];
  const sum = w.reduce((a, b) => a + b, 0);
  return { mus: withPrior, sigmas: [...sigmas, range], weights: w.map((x) => x / sum) };
}

function sampleMixture(m: Mixture, low: number, high: number, rng: Rng): number {
  const k = rng.choice(m.weights);
  const mu = m.mus[k]!;
  const s = m.sigmas[k]!;
  for (let tries = 0; tries < 100; tries++) {
    const x = mu + s * rng.normal();
    if (x >= low && x <= high) return x;
  }
  return Math.min(high, Math.max(low, mu));
}

const SQRT2 = Math.SQRT2;
/** Φ, the standard normal CDF (erf by Abramowitz–Stegun 7.1.26 is too coarse for tails: use erfc series). */
function normCdf(z: number): number {
  return 0.5 * erfc(-z / SQRT2);
}

/** erfc with a Chebyshev fit (Numerical Recipes erfcc), relative error < 1.2e-7. */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

function logSumExp(a: number[]): number {
  const m = Math.max(...a);
  if (m === -Infinity) return -Infinity;
  let s = 0;
  for (const x of a) s += Math.exp(x - m);
  return m + Math.log(s);
}

/** log of the mixture's mass on [a, b] (a stepped value's cell), or its density at x when a === b. */
function logMass(m: Mixture, low: number, high: number, a: number, b: number): number {
  const terms = m.mus.map((mu, i) => {
    const s = m.sigmas[i]!;
    const z = normCdf((high - mu) / s) - normCdf((low - mu) / s);
    const lw = Math.log(m.weights[i]!) - Math.log(Math.max(z, 1e-300));
    if (a === b) return lw - 0.5 * ((a - mu) / s) ** 2 - Math.log(s * Math.sqrt(2 * Math.PI));
    return lw + Math.log(Math.max(normCdf((b - mu) / s) - normCdf((a - mu) / s), 1e-300));
  });
  return logSumExp(terms);
}

interface NumericTransform {
  low: number;
  high: number;
  fwd(v: number): number;
  /** A sampled (transformed) x to the parameter's value. */
  snap(x: number): number;
  logLik(m: Mixture, v: number): number;
}

function numericTransform(d: Extract<ParamDist, { kind: 'int' | 'float' }>): NumericTransform {
  const step = d.kind === 'int' ? d.step : d.step;
  if (d.log) {
    // Whole numbers on a log scale: the cell of v is [v - 0.5, v + 0.5] (Optuna's transform).
    const half = d.kind === 'int' ? 0.5 : 0;
    const low = Math.log(d.low - half);
    const high = Math.log(d.high + half);
    return {
      low,
      high,
      fwd: Math.log,
      snap: (x) => (d.kind === 'int' ? clampInt(Math.round(Math.exp(x)), d) : Math.min(d.high, Math.max(d.low, Math.exp(x)))),
      logLik: (m, v) => (half ? logMass(m, low, high, Math.log(v - half), Math.log(v + half)) : logMass(m, low, high, Math.log(v), Math.log(v))),
    };
  }
  if (step !== undefined) {
    const top = roundTo(d.low + Math.floor((d.high - d.low) / step + 1e-9) * step, d.low, step);
    const low = d.low - step / 2;
    const high = top + step / 2;
    return { low, high, fwd: (v) => v, snap: (x) => clampStep(x, d.low, top, step), logLik: (m, v) => logMass(m, low, high, v - step / 2, v + step / 2) };
  }
  return { low: d.low, high: d.high, fwd: (v) => v, snap: (x) => x, logLik: (m, v) => logMass(m, d.low, d.high, v, v) };
}
