/**
 * Parameter sweeps: every combination of `--param name=from..to:step` values, run as separate
 * backtests across worker threads (all cores by default), ranked by a metric. Values are checked
 * against the strategy's declared bounds before any run starts.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { MizanConfig } from '../config/schema.js';
import { loadStrategyInstances } from '../runtime/strategy-loader.js';
import type { ParamSpecs } from '../strategy/params.js';
import type { MetricKey } from './metrics/index.js';

export interface ParamRange {
  /** `name` (the only strategy instance) or `instance.name`. */
  name: string;
  values: number[];
}

/** `fast=5..30:5` -> {name: 'fast', values: [5, 10, …, 30]}; `x=1,2,5` lists values. */
export function parseParamRange(text: string): ParamRange {
  const m = /^([A-Za-z0-9_.-]+)=(.+)$/.exec(text.trim());
  if (!m) throw new Error(`--param ${JSON.stringify(text)}: expected name=from..to:step or name=a,b,c`);
  const [, name, spec] = m as unknown as [string, string, string];
  const r = /^(-?[\d.]+)\.\.(-?[\d.]+)(?::([\d.]+))?$/.exec(spec);
  if (r) {
    const from = Number(r[1]);
    const to = Number(r[2]);
    const step = r[3] === undefined ? 1 : Number(r[3]);
    if (!(step > 0) || !(to >= from)) throw new Error(`--param ${name}: range ${spec} needs from <= to and a positive step`);
    const values: number[] = [];
    for (let k = 0; from + k * step <= to + 1e-9; k++) values.push(Number((from + k * step).toPrecision(12)));
    return { name, values };
  }
  const values = spec.split(',').map(Number);
  if (values.some((v) => !Number.isFinite(v))) throw new Error(`--param ${name}: ${spec} is not a range or a list of numbers`);
  return { name, values };
}

export type Combo = Record<string, Record<string, number>>;

/** Every combination, as parameter overrides per instance; each value checked against the declared bounds. */
export async function expandSweep(config: MizanConfig, ranges: ParamRange[]): Promise<Combo[]> {
  const instances = await loadStrategyInstances(config);
  const resolved = ranges.map((r) => {
    const [inst, param] = r.name.includes('.') ? (r.name.split('.', 2) as [string, string]) : [undefined, r.name];
    const target = inst ? instances.find((i) => i.name === inst) : instances.length === 1 ? instances[0] : undefined;
    if (!target) throw new Error(`--param ${r.name}: name the instance (instance.param) when the config has several strategies`);
    const spec = (target.definition.params as ParamSpecs)[param];
    if (!spec) throw new Error(`--param ${r.name}: ${target.definition.name} declares no parameter ${param} (it has: ${Object.keys(target.definition.params).join(', ')})`);
    const s = spec as { type: string; min?: number; max?: number };
    for (const v of r.values) {
      if (s.min !== undefined && v < s.min) throw new Error(`--param ${r.name}: ${v} is below the declared minimum ${s.min}`);
      if (s.max !== undefined && v > s.max) throw new Error(`--param ${r.name}: ${v} is above the declared maximum ${s.max}`);
      if (s.type === 'int' && !Number.isInteger(v)) throw new Error(`--param ${r.name}: ${v} is not a whole number`);
    }
    return { inst: target.name, param, values: r.values };
  });
  let combos: Combo[] = [{}];
  for (const r of resolved) {
    const next: Combo[] = [];
    for (const c of combos) for (const v of r.values) next.push({ ...c, [r.inst]: { ...(c[r.inst] ?? {}), [r.param]: v } });
    combos = next;
  }
  return combos;
}

export interface SweepRow {
  params: Combo;
  metrics: Partial<Record<MetricKey, number | null>>;
  error?: string;
}

export interface SweepOptions {
  configFile: string;
  workers?: number;
  onProgress?(done: number, total: number): void;
}

/** Run the combos on worker threads; rows come back in combo order. */
export async function runSweep(combos: Combo[], opts: SweepOptions): Promise<SweepRow[]> {
  const n = Math.max(1, Math.min(opts.workers ?? availableParallelism(), combos.length));
  const rows: SweepRow[] = new Array(combos.length);
  let next = 0;
  let done = 0;
  const url = new URL('./sweep-worker.mjs', import.meta.url);
  await Promise.all(
    Array.from({ length: n }, () => new Promise<void>((resolveWorker, reject) => {
      const w = new Worker(url, { workerData: { configFile: opts.configFile } });
      const feed = () => {
        if (next >= combos.length) {
          void w.terminate().then(() => resolveWorker());
          return;
        }
        const i = next++;
        w.postMessage({ i, params: combos[i] });
      };
      w.on('message', (m: { i: number; metrics?: SweepRow['metrics']; error?: string }) => {
        rows[m.i] = { params: combos[m.i]!, metrics: m.metrics ?? {}, ...(m.error ? { error: m.error } : {}) };
        opts.onProgress?.(++done, combos.length);
        feed();
      });
      w.on('error', reject);
      feed();
    })),
  );
  return rows;
}

/** Rows sorted by a metric, best first (n/a and failed runs last; ties keep combo order). */
export function rankRows(rows: SweepRow[], metric: MetricKey, lowerIsBetter = false): SweepRow[] {
  const val = (r: SweepRow) => r.metrics[metric];
  return rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => {
      const x = val(a.r);
      const y = val(b.r);
      if (x == null || y == null) return x == null && y == null ? a.i - b.i : x == null ? 1 : -1;
      return (lowerIsBetter ? x - y : y - x) || a.i - b.i;
    })
    .map((e) => e.r);
}

export function sweepCsv(rows: SweepRow[], metricKeys: MetricKey[]): string {
  const paramKeys = [...new Set(rows.flatMap((r) => Object.entries(r.params).flatMap(([inst, p]) => Object.keys(p).map((k) => `${inst}.${k}`))))];
  const lines = [[...paramKeys, ...metricKeys, 'error'].join(',')];
  for (const r of rows) {
    const pv = paramKeys.map((k) => {
      const [inst, p] = k.split('.') as [string, string];
      return String(r.params[inst]?.[p] ?? '');
    });
    const mv = metricKeys.map((k) => (r.metrics[k] == null ? '' : String(r.metrics[k])));
    lines.push([...pv, ...mv, r.error ? JSON.stringify(r.error) : ''].join(','));
  }
  return lines.join('\n') + '\n';
}
