/**
 * Walk-forward windows: `train=90d,test=30d[,step=30d][,anchored]`. Window k (k = 0, 1, …) trains on
 * [from + k·step, from + k·step + train) (anchored: [from, from + k·step + train)) and tests on the
 * next `test`; windows whose test would end after `to` are left out. step defaults to test and may
 * not be shorter (test windows would overlap and the out-of-sample equity could not be stitched).
 * Durations: a whole number with d (days), h (hours) or w (weeks).
 */
import { computeMetrics, type MetricKey } from '../backtest/metrics/index.js';
import type { Objective } from './objectives.js';
import { scoreOf } from './objectives.js';

export interface WalkForwardSpec {
  trainMs: number;
  testMs: number;
  stepMs: number;
  anchored: boolean;
  /** As written (stored with the result). */
  text: string;
}

export interface WalkForwardWindow {
  index: number;
  trainFrom: number;
  trainTo: number;
  testFrom: number;
  testTo: number;
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

function duration(key: string, text: string, whole: string): number {
  const m = /^(\d+)([hdw])$/.exec(text);
  if (!m || Number(m[1]) === 0)
    throw new Error(`--walk-forward ${JSON.stringify(whole)}: ${key}=${text} is not a duration (a whole number > 0 with h, d or w, e.g. 30d)`);
  return Number(m[1]) * UNIT_MS[m[2]!]!;
}

export function parseWalkForward(text: string): WalkForwardSpec {
  const parts = text.split(',').map((s) => s.trim());
  const got: Record<string, string> = {};
  let anchored = false;
  for (const p of parts) {
    if (p === 'anchored') {
      anchored = true;
      continue;
    }
    const m = /^(train|test|step)=(.*)$/.exec(p);
    if (!m) throw new Error(`--walk-forward ${JSON.stringify(text)}: ${JSON.stringify(p)} is not train=…, test=…, step=… or anchored`);
    if (got[m[1]!] !== undefined) throw new Error(`--walk-forward ${JSON.stringify(text)}: ${m[1]} is given twice`);
    got[m[1]!] = m[2]!;
  }
  if (got.train === undefined || got.test === undefined)
    throw new Error(`--walk-forward ${JSON.stringify(text)}: needs train=… and test=… (e.g. train=90d,test=30d)`);
  const trainMs = duration('train', got.train, text);
  const testMs = duration('test', got.test, text);
  const stepMs = got.step === undefined ? testMs : duration('step', got.step, text);
  if (stepMs < testMs)
    throw new Error(`--walk-forward ${JSON.stringify(text)}: step=${got.step} is shorter than test=${got.test} (the test windows would overlap)`);
  return { trainMs, testMs, stepMs, anchored, text };
}

export function walkForwardWindows(spec: WalkForwardSpec, from: number, to: number): WalkForwardWindow[] {
  const out: WalkForwardWindow[] = [];
  for (let k = 0; ; k++) {
    const trainTo = from + k * spec.stepMs + spec.trainMs;
    const testTo = trainTo + spec.testMs;
    if (testTo > to) break;
    out.push({ index: k + 1, trainFrom: spec.anchored ? from : from + k * spec.stepMs, trainTo, testFrom: trainTo, testTo });
  }
  if (out.length === 0) {
    const days = (ms: number) => `${+(ms / 86_400_000).toFixed(2)} days`;
    throw new Error(
      `--walk-forward ${JSON.stringify(spec.text)}: no window fits the range ${new Date(from).toISOString()}..${new Date(to).toISOString()} (${days(to - from)}; one window needs train + test = ${days(spec.trainMs + spec.testMs)})`,
    );
  }
  return out;
}

export interface WindowResult extends WalkForwardWindow {
  /** The best training trial's params and metrics (in-sample); absent when no training trial was complete. */
  params?: Record<string, number | string | boolean>;
  inSample?: Partial<Record<MetricKey, number | null>>;
  outOfSample?: Partial<Record<MetricKey, number | null>>;
  isValue: number | null;
  oosValue: number | null;
  /** Why the window has no out-of-sample result, or the out-of-sample run's error. */
  note?: string;
  equity?: { times: number[]; values: number[] };
  warn: boolean;
}

export interface WalkForwardResult {
  spec: string;
  objective: string;
  direction: Objective['direction'];
  windows: WindowResult[];
  /** The test windows' equity chained: each window starts where the previous ended. */
  stitched: { times: number[]; values: number[] };
  overall: { isValue: number | null; oosValue: number | null; oosMetrics: Partial<Record<MetricKey, number | null>>; warn: boolean };
  threshold: number;
}

/** Out-of-sample is "far below" in-sample when it lost more than this share of the in-sample score. */
export const WF_WARN_SHARE = 0.5;

/** True when the out-of-sample score is below the in-sample score by more than WF_WARN_SHARE × |in-sample|. */
export function farBelow(isValue: number | null, oosValue: number | null, direction: Objective['direction']): boolean {
  const a = scoreOf(isValue, direction);
  const b = scoreOf(oosValue, direction);
  if (a === null) return false;
  if (b === null) return true;
  return a - b > WF_WARN_SHARE * Math.abs(a);
}

/** Chains the windows' equity curves: window k is scaled to start at the value window k-1 ended with. */
export function stitch(curves: readonly { times: number[]; values: number[] }[]): { times: number[]; values: number[] } {
  const times: number[] = [];
  const values: number[] = [];
  let level: number | undefined;
  for (const c of curves) {
    if (c.values.length === 0) continue;
    const base = c.values[0]!;
    const scale = level === undefined ? 1 : level / base;
    for (let i = 0; i < c.values.length; i++) {
      if (i === 0 && times.length > 0 && c.times[0]! <= times[times.length - 1]!) continue;
      times.push(c.times[i]!);
      values.push(c.values[i]! * scale);
    }
    level = c.values[c.values.length - 1]! * scale;
  }
  return { times, values };
}

const EQUITY_METRICS = new Set<MetricKey>([
  'totalReturnPct',
  'cagrPct',
  'maxDrawdownPct',
  'maxDrawdownDurationMs',
  'longestDrawdownMs',
  'sharpe',
  'sortino',
  'calmar',
]);

/**
 * The overall numbers: in-sample and out-of-sample objective as the mean over the windows (compared
 * for the warning), and the out-of-sample equity metrics of the stitched curve, trades summed.
 */
export function overallOutOfSample(windows: readonly WindowResult[], stitched: { times: number[]; values: number[] }, objective: Objective) {
  const oosMetrics: Partial<Record<MetricKey, number | null>> = {};
  if (stitched.values.length >= 2) {
    const m = computeMetrics({ equity: stitched, trades: [], feesPaid: 0 });
    for (const k of EQUITY_METRICS) {
      const v = m[k as keyof typeof m];
      if (v && typeof v === 'object' && 'value' in v) oosMetrics[k] = v.value;
    }
  }
  oosMetrics.trades = windows.reduce((s, w) => s + (w.outOfSample?.trades ?? 0), 0);
  const mean = (xs: (number | null)[]) => {
    const ok = xs.filter((x): x is number => x !== null);
    return ok.length ? ok.reduce((s, x) => s + x, 0) / ok.length : null;
  };
  const isValue = mean(windows.map((w) => w.isValue));
  // Like for like: the mean over the windows on both sides (a stitched return spans every test
  // window and would not compare with one training window's).
  const oosValue = mean(windows.map((w) => w.oosValue));
  return { isValue, oosValue, oosMetrics, warn: farBelow(isValue, oosValue, objective.direction) };
}
