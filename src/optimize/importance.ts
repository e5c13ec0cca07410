/**
 * Parameter importance: the correlation ratio η² of the objective on each parameter, over the
 * complete trials. The trials are grouped by the parameter's value (categorical: per choice;
 * numeric: up to 10 bins of equal trial counts by rank), and η² = (variance of the group means,
 * weighted by group size) / (total variance): the share of the objective's variance that the
 * parameter alone explains. Unlike a rank correlation it also sees an optimum in the middle of a
 * range. The shares are also given normalised to sum to 1. Each parameter is judged alone
 * (interactions are not split out, as fANOVA would).
 */
import type { ParamValue } from './space.js';

export interface Importance {
  param: string;
  /** η² in [0, 1]. */
  eta2: number;
  /** η² / Σ η² (0 when every η² is 0). */
  share: number;
}

export function paramImportance(names: readonly string[], trials: readonly { params: Record<string, ParamValue>; value: number }[]): Importance[] {
  const n = trials.length;
  if (n < 2) return names.map((param) => ({ param, eta2: 0, share: 0 }));
  const mean = trials.reduce((s, t) => s + t.value, 0) / n;
  const total = trials.reduce((s, t) => s + (t.value - mean) ** 2, 0);
  const eta = names.map((param) => {
    if (total === 0) return { param, eta2: 0 };
    const groups = new Map<string, number[]>();
    const numeric = trials.every((t) => typeof t.params[param] === 'number');
    const distinct = new Set(trials.map((t) => String(t.params[param]))).size;
    if (!numeric || distinct <= 10) {
      for (const t of trials) {
        const k = String(t.params[param]);
        groups.set(k, [...(groups.get(k) ?? []), t.value]);
      }
    } else {
      const sorted = [...trials].sort((a, b) => (a.params[param] as number) - (b.params[param] as number));
      const bins = Math.min(10, Math.floor(n / 2));
      sorted.forEach((t, i) => {
        const k = String(Math.floor((i * bins) / n));
        groups.set(k, [...(groups.get(k) ?? []), t.value]);
      });
    }
    let between = 0;
    for (const g of groups.values()) {
      const m = g.reduce((s, v) => s + v, 0) / g.length;
      between += g.length * (m - mean) ** 2;
    }
    return { param, eta2: Math.min(1, between / total) };
  });
  const sum = eta.reduce((s, e) => s + e.eta2, 0);
  return eta.map((e) => ({ ...e, share: sum > 0 ? e.eta2 / sum : 0 })).sort((a, b) => b.eta2 - a.eta2);
}
