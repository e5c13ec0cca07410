/**
 * Objectives (what a study maximises or minimises) and constraints (what makes a trial infeasible).
 * Each objective is one of the backtest metrics (src/backtest/metrics, docs/backtesting.md "Metrics").
 */
import { METRIC_DEFINITIONS, type MetricKey } from '../backtest/metrics/index.js';
import { DEFAULT_THRESHOLDS } from '../backtest/metrics/types.js';
import type { RunReply } from '../backtest/worker-pool.js';

export type Direction = 'maximize' | 'minimize';

export interface Objective {
  /** The name the study was created with (`sharpe`, `return`, …). */
  name: string;
  metric: MetricKey;
  direction: Direction;
}

/** The short names; any metric key (`cagrPct`, `sqn`, …) works too, maximised except drawdowns. */
const OBJECTIVES: Record<string, { metric: MetricKey; direction: Direction }> = {
  sharpe: { metric: 'sharpe', direction: 'maximize' },
  sortino: { metric: 'sortino', direction: 'maximize' },
  calmar: { metric: 'calmar', direction: 'maximize' },
  return: { metric: 'totalReturnPct', direction: 'maximize' },
  cagr: { metric: 'cagrPct', direction: 'maximize' },
  'profit-factor': { metric: 'profitFactor', direction: 'maximize' },
  expectancy: { metric: 'expectancy', direction: 'maximize' },
  sqn: { metric: 'sqn', direction: 'maximize' },
  'win-rate': { metric: 'winRatePct', direction: 'maximize' },
  drawdown: { metric: 'maxDrawdownPct', direction: 'minimize' },
};

/** Older spellings (`mizan sweep --metric` took these), accepted by both commands as the names they stand for. */
const METRIC_ALIASES: Record<string, string> = { winrate: 'win-rate', pf: 'profit-factor' };

const MINIMISED = new Set<MetricKey>(['maxDrawdownPct', 'maxDrawdownDurationMs', 'longestDrawdownMs', 'feesPaid']);

/** `optimize --objective` and `sweep --metric`: one vocabulary (OBJECTIVES, their aliases, any metric key). */
export function parseObjective(given: string, flag = '--objective'): Objective {
  const text = METRIC_ALIASES[given] ?? given;
  const o = OBJECTIVES[text];
  if (o) return { name: text, ...o };
  const d = METRIC_DEFINITIONS.find((m) => m.key === text);
  if (!d)
    throw new Error(
      `${flag} ${JSON.stringify(given)}: unknown (use ${Object.keys(OBJECTIVES).join(', ')} or a metric key such as ${METRIC_DEFINITIONS.slice(0, 3)
        .map((m) => m.key)
        .join(', ')})`,
    );
  return { name: text, metric: d.key, direction: MINIMISED.has(d.key) ? 'minimize' : 'maximize' };
}

export interface Constraints {
  /** At least this many closed trades. */
  minTrades?: number;
  /** A max drawdown (percent of the peak) of at most this. */
  maxDrawdownPct?: number;
  /** `--constraint` expressions over the parameters (constraint.ts): the sampler proposes only points where all hold. */
  params?: string[];
}

export type TrialState = 'running' | 'complete' | 'infeasible' | 'failed';

export interface Evaluation {
  state: Exclude<TrialState, 'running'>;
  value: number | null;
  /** Why infeasible or failed. */
  reason?: string;
}

/** A run's outcome as a trial: failed (it threw), infeasible (a constraint, or the objective n/a), or complete. */
export function evaluate(reply: RunReply, objective: Objective, c: Constraints): Evaluation {
  if (reply.error) return { state: 'failed', value: null, reason: reply.error };
  const m = reply.metrics;
  const value = m[objective.metric] ?? null;
  if (c.minTrades !== undefined && (m.trades ?? 0) < c.minTrades) {
    return { state: 'infeasible', value, reason: `${m.trades ?? 0} trades, under --min-trades ${c.minTrades}` };
  }
  if (c.maxDrawdownPct !== undefined && (m.maxDrawdownPct ?? 0) > c.maxDrawdownPct) {
    return { state: 'infeasible', value, reason: `max drawdown ${(m.maxDrawdownPct ?? 0).toFixed(2)}%, over --max-drawdown ${c.maxDrawdownPct}` };
  }
  if (value === null) {
    const why = reply.na?.[objective.metric] ?? METRIC_DEFINITIONS.find((d) => d.key === objective.metric)?.na;
    return { state: 'infeasible', value: null, reason: `${objective.name} is n/a${why ? `: ${why}` : ' for this run'}` };
  }
  return { state: 'complete', value };
}

/** Higher is better: the value for a maximised objective, minus it for a minimised one. */
export function scoreOf(value: number | null, direction: Direction): number | null {
  return value === null ? null : direction === 'maximize' ? value : -value;
}

export function parseConstraintNumber(flag: string, text: string, whole: boolean): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || (whole && !Number.isInteger(n))) {
    throw new Error(`${flag} ${JSON.stringify(text)}: expected ${whole ? 'a whole number' : 'a number'} >= 0`);
  }
  return n;
}

const DAY_MS = 86_400_000;

/**
 * Null when the objective can be computed on a run over [from, to); else why not. Sharpe and Sortino
 * need DEFAULT_THRESHOLDS.minDailyReturns daily returns (one per UTC day the run touches), CAGR and
 * Calmar a span of minDaysForCagr days: a shorter training range gives every trial n/a.
 */
function objectiveSpanProblem(objective: Objective, from: number, to: number): string | null {
  const days = Math.ceil((to - 1) / DAY_MS) - Math.floor(from / DAY_MS);
  if (objective.metric === 'sharpe' || objective.metric === 'sortino') {
    const min = DEFAULT_THRESHOLDS.minDailyReturns;
    if (days < min) return `${objective.name} needs at least ${min} daily returns and this range has ${days}: it would be n/a in every trial`;
  }
  if (objective.metric === 'cagrPct' || objective.metric === 'calmar') {
    const min = DEFAULT_THRESHOLDS.minDaysForCagr;
    if ((to - from) / DAY_MS < min)
      return `${objective.name} needs a span of at least ${min} days and this range has ${+((to - from) / DAY_MS).toFixed(2)}: it would be n/a in every trial`;
  }
  return null;
}

/** A range an objective is computed on: a walk-forward training window, or the whole backtest range. */
interface TrainingRange {
  index: number;
  trainFrom: number;
  trainTo: number;
}

/**
 * Refuses, before anything runs, an objective a training range is too short to compute (naming the
 * window and the minimum): `mizan optimize --objective` (each walk-forward training window, or the
 * backtest range) and `mizan sweep --metric` (the backtest range; `flag` and `noun` name its option).
 */
export function checkObjectiveSpan(
  objective: Objective,
  range: { from: number; to: number },
  windows: readonly TrainingRange[] | undefined,
  wfText?: string,
  flag = '--objective',
  noun = 'an objective',
): void {
  const iso = (ms: number) =>
    new Date(ms)
      .toISOString()
      .replace(/T00:00:00\.000Z$/, '')
      .replace(/:00\.000Z$/, 'Z');
  for (const w of windows ?? [{ index: 0, trainFrom: range.from, trainTo: range.to }]) {
    const problem = objectiveSpanProblem(objective, w.trainFrom, w.trainTo);
    if (!problem) continue;
    const where = windows
      ? `--walk-forward ${JSON.stringify(wfText)}: training window ${w.index} (${iso(w.trainFrom)}..${iso(w.trainTo)})`
      : `the backtest range ${iso(w.trainFrom)}..${iso(w.trainTo)}`;
    throw new Error(
      `${flag} ${objective.name}: ${where}: ${problem}; train on a longer window or choose ${noun} with no minimum (return, profit-factor, win-rate, expectancy, drawdown)`,
    );
  }
}
