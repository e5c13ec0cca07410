/**
 * `mizan optimize`: resolves the search space against the config's strategies, loads the candles
 * once, opens the study (or one per walk-forward window) in the SQLite store and runs it on a
 * TrialExecutor (worker threads unless one is given).
 */
import { createHash, randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadSweepData } from '../backtest/sweep.js';
import type { Combo } from '../backtest/worker-pool.js';
import type { MizanConfig } from '../config/schema.js';
import type { DataReport } from '../backtest/data.js';
import type { DataOptions } from '../backtest/load.js';
import type { CandleHistorySource } from '../market/ports.js';
import { strategyCode } from '../queue/wire.js';
import { loadStrategyInstances } from '../runtime/strategy-loader.js';
import type { ParamSpecs } from '../strategy/params.js';
import { workerPoolExecutor, type TrialExecutor } from './executor.js';
import { checkObjectiveSpan, type Constraints, type Objective } from './objectives.js';
import { GridSampler, type SamplerName } from './samplers.js';
import { gridValues, parseParamSpec, ParamSpecError, type ParamDist, type Params, type SearchSpace } from './space.js';
import { bestTrial, openStudy, runStudy, type StudyOutcome } from './study.js';
import type { StudyRecord, StudyStore, TrialRecord } from './store.js';
import {
  farBelow,
  overallOutOfSample,
  stitch,
  WF_WARN_SHARE,
  walkForwardWindows,
  type WalkForwardResult,
  type WalkForwardSpec,
  type WindowResult,
} from './walk-forward.js';

/** Each `--param` resolved to `instance.param` and checked against what the strategy declares. */
export async function resolveSpace(config: MizanConfig, texts: readonly string[]): Promise<SearchSpace> {
  if (texts.length === 0) throw new Error('optimize needs at least one --param (e.g. --param fast=5..50)');
  const instances = await loadStrategyInstances(config);
  const names = instances.map((i) => i.name).join(', ');
  const space: SearchSpace = [];
  for (const text of texts) {
    const raw = parseParamSpec(text);
    const [inst, param] = raw.name.includes('.') ? (raw.name.split('.', 2) as [string, string]) : [undefined, raw.name];
    const target = inst ? instances.find((i) => i.name === inst) : instances.length === 1 ? instances[0] : undefined;
    if (!target && inst) throw new Error(`--param ${raw.name}: the config has no strategy instance named ${inst} (its instances: ${names})`);
    if (!target) throw new Error(`--param ${raw.name}: name the instance (instance.param) when the config has several strategies (its instances: ${names})`);
    const spec = (target.definition.params as ParamSpecs)[param];
    if (!spec)
      throw new Error(
        `--param ${raw.name}: ${target.definition.name} declares no parameter ${param} (it has: ${Object.keys(target.definition.params).join(', ')})`,
      );
    const d: ParamDist = { ...parseParamSpec(text, spec.type === 'number'), name: `${target.name}.${param}` };
    const value = text.slice(text.indexOf('=') + 1);
    if (spec.type === 'int' || spec.type === 'number') {
      const vals = d.kind === 'categorical' ? d.choices : [d.low, d.high];
      for (const v of vals) {
        if (typeof v !== 'number') throw new ParamSpecError(raw.name, value, `lists ${JSON.stringify(v)}, not a number (${param} is declared ${spec.type})`);
        if (spec.min !== undefined && v < spec.min) throw new ParamSpecError(raw.name, value, `goes below the declared minimum ${spec.min}`);
        if (spec.max !== undefined && v > spec.max) throw new ParamSpecError(raw.name, value, `goes above the declared maximum ${spec.max}`);
        if (spec.type === 'int' && !Number.isInteger(v)) throw new ParamSpecError(raw.name, value, `has ${v}, not a whole number (${param} is declared int)`);
      }
      if (spec.type === 'int' && d.kind === 'float')
        throw new ParamSpecError(raw.name, value, `is a real range; ${param} is declared int (use whole bounds and steps)`);
    } else if (spec.type === 'boolean') {
      if (d.kind !== 'categorical' || d.choices.some((c) => typeof c !== 'boolean'))
        throw new ParamSpecError(raw.name, value, `is not a list of true/false (${param} is declared boolean)`);
    } else {
      if (d.kind !== 'categorical') throw new ParamSpecError(raw.name, value, `is a range; ${param} is declared string (list the choices: a,b,c)`);
      const strs = d.choices.map(String);
      const bad = spec.choices ? strs.find((c) => !spec.choices!.includes(c)) : undefined;
      if (bad !== undefined) throw new ParamSpecError(raw.name, value, `lists ${bad}, not one of the declared choices ${spec.choices!.join(', ')}`);
      d.choices = strs;
    }
    if (space.some((s) => s.name === d.name)) throw new ParamSpecError(raw.name, value, 'is given twice');
    space.push(d);
  }
  return space;
}

/** Flat `instance.param` values to per-instance overrides. */
function toCombo(p: Params): Combo {
  const c: Combo = {};
  for (const [k, v] of Object.entries(p)) {
    const dot = k.indexOf('.');
    const inst = k.slice(0, dot);
    (c[inst] ??= {})[k.slice(dot + 1)] = v;
  }
  return c;
}

/**
 * Parameter sets whose warm-ups bound every trial's: each range's ends and every choice (all
 * combinations while there are at most 512; else each dimension at its upper end with the rest at
 * their lower ends, and all at their upper ends).
 */
function warmupCombos(space: SearchSpace): Combo[] {
  const ends = space.map((d): (number | string | boolean)[] =>
    d.kind === 'categorical' ? d.choices : d.step !== undefined && !d.log ? [d.low, gridValues(d).at(-1)!] : [d.low, d.high],
  );
  const count = ends.reduce((n, e) => n * e.length, 1);
  let sets: Params[] = [{}];
  if (count <= 512) {
    for (let k = 0; k < space.length; k++) sets = sets.flatMap((s) => ends[k]!.map((v) => ({ ...s, [space[k]!.name]: v })));
  } else {
    const lows: Params = Object.fromEntries(space.map((d, k) => [d.name, ends[k]![0]!]));
    sets = [Object.fromEntries(space.map((d, k) => [d.name, ends[k]!.at(-1)!])), ...space.map((d, k) => ({ ...lows, [d.name]: ends[k]!.at(-1)! }))];
  }
  return sets.map(toCombo);
}

/** What a study is tied to: the config file's bytes (sha256). */
function configHash(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

interface OptimizeOptions {
  configFile: string;
  config: MizanConfig;
  space: SearchSpace;
  store: StudyStore;
  studyName: string;
  trials: number;
  sampler?: SamplerName;
  seed?: number;
  objective: Objective;
  constraints: Constraints;
  workers?: number;
  walkForward?: WalkForwardSpec;
  candleSource?: CandleHistorySource;
  /** Another executor (a job queue); the worker-thread pool when absent. */
  executor?: TrialExecutor;
  /** Makes the executor once the data is loaded (the job queue needs the candles); closed at the end. */
  executorFactory?(ctx: { config: MizanConfig; columns: NonNullable<DataOptions['columns']> }): Promise<TrialExecutor>;
  onDataReport?(r: DataReport): void;
  onStudy?(study: StudyRecord, created: boolean, finished: number, window?: WindowResult): void;
  onTrial?(t: TrialRecord, best: TrialRecord | undefined, finished: number, target: number): void;
  shouldStop?(): boolean;
}

interface OptimizeOutcome {
  study: StudyRecord;
  outcome: StudyOutcome;
  walkForward?: WalkForwardResult;
  interrupted: boolean;
}

export async function runOptimize(o: OptimizeOptions): Promise<OptimizeOutcome> {
  const bt = o.config.backtest;
  if (!bt) throw new Error('the config has no backtest section (data, from, to)');
  if (!(Number.isSafeInteger(o.trials) && o.trials >= 1)) throw new Error(`--trials ${String(o.trials)}: expected a whole number, 1 or more`);
  const windows = o.walkForward ? walkForwardWindows(o.walkForward, bt.from, bt.to) : undefined;
  checkObjectiveSpan(o.objective, bt, windows, o.walkForward?.text);
  const hash = configHash(o.configFile);
  // The code of each strategy, as the queue pins it for its workers (mizan's own code is not pinned: docs/optimisation.md).
  const code = strategyCode(o.config);
  // Opened before the data loads: a mismatched study is refused at once.
  const open = (name: string, range: { from: number; to: number }) =>
    openStudy(
      o.store,
      {
        name,
        configFile: o.configFile,
        configHash: hash,
        space: o.space,
        ...(o.sampler ? { sampler: o.sampler } : {}),
        ...(o.seed !== undefined ? { seed: o.seed } : {}),
        objective: o.objective,
        constraints: o.constraints,
        range,
        strategyCode: code,
      },
      Date.now(),
      () => randomInt(0, 2 ** 31),
    );
  const first = open(
    windows ? `${o.studyName}/wf1` : o.studyName,
    windows ? { from: windows[0]!.trainFrom, to: windows[0]!.trainTo } : { from: bt.from, to: bt.to },
  );
  const { columns } = await loadSweepData(o.config, warmupCombos(o.space), {
    ...(o.candleSource ? { candleSource: o.candleSource } : {}),
    ...(o.onDataReport ? { onDataReport: o.onDataReport } : {}),
  });
  const executor =
    o.executor ??
    (o.executorFactory ? await o.executorFactory({ config: o.config, columns }) : undefined) ??
    workerPoolExecutor({ configFile: o.configFile, config: o.config, columns, ...(o.workers !== undefined ? { workers: o.workers } : {}) });
  const pid = process.pid;
  const claimed: StudyRecord[] = [];
  const run = async (study: StudyRecord, range: { from: number; to: number }, created: boolean, w?: WindowResult) => {
    o.store.claim(study.id, pid);
    claimed.push(study);
    o.onStudy?.(study, created, o.store.trials(study.id).filter((t) => t.state !== 'running').length, w);
    return runStudy({
      store: o.store,
      study,
      space: o.space,
      objective: o.objective,
      executor,
      trials: o.trials,
      toRequest: (p) => ({ params: toCombo(p), from: range.from, to: range.to }),
      ...(o.shouldStop ? { shouldStop: o.shouldStop } : {}),
      ...(o.onTrial ? { onTrial: o.onTrial } : {}),
    });
  };
  try {
    if (!windows) {
      const outcome = await run(first.study, { from: bt.from, to: bt.to }, first.created);
      return { study: first.study, outcome, interrupted: outcome.interrupted };
    }
    const results: WindowResult[] = [];
    let last: { study: StudyRecord; outcome: StudyOutcome } | undefined;
    for (const w of windows) {
      const opened = w.index === 1 ? first : open(`${o.studyName}/wf${w.index}`, { from: w.trainFrom, to: w.trainTo });
      const r: WindowResult = { ...w, isValue: null, oosValue: null, warn: false };
      const outcome = await run(opened.study, { from: w.trainFrom, to: w.trainTo }, opened.created, r);
      last = { study: opened.study, outcome };
      // Trials a queue worker refused: the window's study is not done; the resume runs them.
      if (outcome.interrupted || outcome.unrun.length) return { study: opened.study, outcome, interrupted: outcome.interrupted };
      const best = bestTrial(outcome.trials, o.objective.direction);
      if (!best) {
        r.note = 'no complete training trial (all infeasible or failed)';
      } else {
        r.params = best.params;
        r.inSample = best.metrics;
        r.isValue = best.value;
        const test = await executor.run({ params: toCombo(best.params), from: w.testFrom, to: w.testTo, equity: true });
        if (test.unrun !== undefined)
          throw new Error(`walk-forward window ${w.index}: the test run could not run: ${test.unrun} (run the same command again to resume)`);
        r.outOfSample = test.metrics;
        if (test.error) r.note = `the test run failed: ${test.error}`;
        r.oosValue = test.error ? null : (test.metrics[o.objective.metric] ?? null);
        if (test.equity) r.equity = test.equity;
        r.warn = farBelow(r.isValue, r.oosValue, o.objective.direction);
      }
      results.push(r);
    }
    const stitched = stitch(results.flatMap((r) => (r.equity ? [r.equity] : [])));
    const wf: WalkForwardResult = {
      spec: o.walkForward!.text,
      objective: o.objective.name,
      direction: o.objective.direction,
      windows: results,
      stitched,
      overall: overallOutOfSample(results, stitched, o.objective),
      threshold: WF_WARN_SHARE,
    };
    o.store.saveWalkForward(o.studyName, wf, Date.now());
    return { study: last!.study, outcome: last!.outcome, walkForward: wf, interrupted: false };
  } finally {
    for (const s of claimed) o.store.release(s.id, pid);
    if (!o.executor) await executor.close();
  }
}

/** Throws (naming the parameter) unless the grid sampler can enumerate the space. */
export function checkGrid(space: SearchSpace): void {
  new GridSampler(space, 0);
}
