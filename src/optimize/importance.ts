/**
 * Parameter importance: the share of the objective's variance each parameter explains alone, over
 * the complete trials, as ε² (epsilon squared, the correlation ratio corrected for its bias).
 *
 * The trials are grouped by the parameter's value: a categorical by choice; a number by value when
 * it takes few values (at most 10, and at most half as many as there are trials), else in up to 10
 * bins of equal trial counts by rank. With SS_b the between-group sum of squares (group means
 * around the overall mean, weighted by group size), SS_w the within-group one and SS_t the total,
 * k groups and n trials: ε² = (SS_b − (k − 1) · SS_w / (n − k)) / SS_t, clamped to [0, 1].
 *
 * Why not plain η² = SS_b / SS_t: η² grows with the number of groups whatever the objective does
 * (k groups of n trials give about (k − 1) / (n − 1) on pure noise), and when each trial is a group
 * of its own it is 1 for every parameter. ε² subtracts that expected share. When every group holds a
 * single trial (n = k), or when all trials fall into one group (two or three trials), nothing is
 * left to tell the parameter from noise: the importance is not measured (`epsilon2` undefined), and
 * the report says so instead of printing a number.
 *
 * Unlike a rank correlation it also sees an optimum in the middle of a range. Each parameter is
 * judged alone (interactions are not split out, as fANOVA would).
 */
import type { ParamValue } from './space.js';

export interface Importance {
  param: string;
  /** ε² in [0, 1]; undefined when the trials cannot measure it (every trial its own group, or one group). */
  epsilon2: number | undefined;
  /** ε² / Σ ε² over the measured parameters (0 when not measured, or when every ε² is 0). */
  share: number;
  /** The number of groups the trials fell into for this parameter. */
  groups: number;
}

const MAX_GROUPS = 10;

function groupsOf(param: string, trials: readonly { params: Record<string, ParamValue>; value: number }[]): number[][] {
  const n = trials.length;
  const groups = new Map<string, number[]>();
  const add = (k: string, v: number): void => {
    const g = groups.get(k);
    if (g) g.push(v);
    else groups.set(k, [v]);
  };
  const numeric = trials.every((t) => typeof t.params[param] === 'number');
  const distinct = new Set(trials.map((t) => String(t.params[param]))).size;
  if (!numeric || distinct <= Math.min(MAX_GROUPS, Math.floor(n / 2))) {
    for (const t of trials) add(String(t.params[param]), t.value);
  } else {
    const sorted = [...trials].sort((a, b) => (a.params[param] as number) - (b.params[param] as number));
    const bins = Math.min(MAX_GROUPS, Math.floor(n / 2));
    sorted.forEach((t, i) => add(String(Math.floor((i * bins) / n)), t.value));
  }
  return [...groups.values()];
}

export function paramImportance(names: readonly string[], trials: readonly { params: Record<string, ParamValue>; value: number }[]): Importance[] {
  const n = trials.length;
  const mean = n > 0 ? trials.reduce((s, t) => s + t.value, 0) / n : 0;
  const total = trials.reduce((s, t) => s + (t.value - mean) ** 2, 0);
  const eps = names.map((param) => {
    if (n < 2) return { param, epsilon2: undefined, groups: n };
    const groups = groupsOf(param, trials);
    const k = groups.length;
    if (k < 2 || k >= n) return { param, epsilon2: undefined, groups: k };
    if (total === 0) return { param, epsilon2: 0, groups: k };
    let between = 0;
    let within = 0;
    for (const g of groups) {
      const m = g.reduce((s, v) => s + v, 0) / g.length;
      between += g.length * (m - mean) ** 2;
      for (const v of g) within += (v - m) ** 2;
    }
    const e = (between - ((k - 1) * within) / (n - k)) / total;
    return { param, epsilon2: Math.min(1, Math.max(0, e)), groups: k };
  });
  const sum = eps.reduce((s, e) => s + (e.epsilon2 ?? 0), 0);
  return eps.map((e) => ({ ...e, share: sum > 0 && e.epsilon2 !== undefined ? e.epsilon2 / sum : 0 })).sort((a, b) => (b.epsilon2 ?? -1) - (a.epsilon2 ?? -1));
}

/** The importance as the CLI and the report print it: `0.412  (63.0%)`, or why it is not measured. */
export function importanceText(i: Importance): string {
  if (i.epsilon2 === undefined)
    return i.groups < 2
      ? 'not measured (too few trials to compare its values)'
      : `not measured (each of the ${i.groups} trials has its own value: too few trials)`;
  return `${i.epsilon2.toFixed(3)}  (${(i.share * 100).toFixed(1)}%)`;
}
