/**
 * A study: open (create, or resume after checking it is the same search), then ask–run–tell until
 * it holds `trials` finished trials (complete, infeasible or failed), the sampler has nothing left,
 * or it is asked to stop. Trials are asked `executor.concurrency` at a time, all from the same
 * finished history (independent asks: each trial's draws come from its own seeded stream, so the
 * batch differs; no constant liar), then run together; each result is stored as it arrives.
 *
 * A trial the executor could not run (`unrun`: a queue worker refused it) is no result: it stays
 * `running` in the store, as one a killed process left, so the study runs it again (same number and
 * parameters) when it resumes; it does not count towards the target, and no new trial is asked after
 * the batch it was in.
 */
import type { StrategyCode } from '../queue/wire.js';
import type { TrialExecutor, TrialRequest, TrialResult } from './executor.js';
import { evaluate, scoreOf, type Constraints, type Objective } from './objectives.js';
import { constraintsPredicate } from './constraint.js';
import { createSampler, paramsKey, type SamplerName, type SamplerTrial } from './samplers.js';
import { spaceKey, type Params, type SearchSpace } from './space.js';
import type { StudyRecord, StudyStore, TrialRecord } from './store.js';

export interface StudySpec {
  name: string;
  configFile: string;
  configHash: string;
  space: SearchSpace;
  /** Absent: the stored study's, or tpe for a new one. */
  sampler?: SamplerName;
  /** Absent: the stored study's, or a random one for a new study. */
  seed?: number;
  objective: Objective;
  constraints: Constraints;
  range: { from: number; to: number };
  /** The code of each strategy instance the config runs (strategyCode: SHA-256 of its file). */
  strategyCode: StrategyCode[];
}

/** Opens the study `spec.name`: creates it, or checks that the stored one is the same search. */
export function openStudy(store: StudyStore, spec: StudySpec, now: number, randomSeed: () => number): { study: StudyRecord; created: boolean } {
  const old = store.study(spec.name);
  const space = spaceKey(spec.space);
  const constraints = JSON.stringify(spec.constraints);
  if (!old) {
    const study = store.createStudy({
      name: spec.name,
      configFile: spec.configFile,
      configHash: spec.configHash,
      space,
      sampler: spec.sampler ?? 'tpe',
      seed: spec.seed ?? randomSeed(),
      objective: spec.objective.name,
      direction: spec.objective.direction,
      constraints: spec.constraints,
      rangeFrom: spec.range.from,
      rangeTo: spec.range.to,
      strategyCode: spec.strategyCode,
      createdAt: now,
    });
    return { study, created: true };
  }
  const differs = (what: string, stored: string, given: string) =>
    new Error(`study ${spec.name} exists with a different ${what} (stored: ${stored}; given: ${given}): use another --study name, or the same ${what}`);
  if (old.configHash !== spec.configHash)
    throw differs('config', `${old.configFile} sha256 ${old.configHash.slice(0, 12)}`, `${spec.configFile} sha256 ${spec.configHash.slice(0, 12)}`);
  if (old.space !== space) throw differs('param space', old.space, space);
  if (old.objective !== spec.objective.name) throw differs('objective', old.objective, spec.objective.name);
  if (JSON.stringify(old.constraints) !== constraints) throw differs('constraints', JSON.stringify(old.constraints), constraints);
  if (old.rangeFrom !== spec.range.from || old.rangeTo !== spec.range.to) {
    throw differs(
      'range',
      `${new Date(old.rangeFrom).toISOString()}..${new Date(old.rangeTo).toISOString()}`,
      `${new Date(spec.range.from).toISOString()}..${new Date(spec.range.to).toISOString()}`,
    );
  }
  if (spec.sampler !== undefined && spec.sampler !== old.sampler) throw differs('sampler', old.sampler, spec.sampler);
  if (spec.seed !== undefined && spec.seed !== old.seed) throw differs('seed', String(old.seed), String(spec.seed));
  // The same config names the same instances; each one's code must be what the stored trials ran.
  if (old.strategyCode) {
    const hash = (h: string | undefined) => (h === undefined ? 'none' : h.startsWith('missing') ? h : `sha256 ${h.slice(0, 12)}`);
    for (const s of spec.strategyCode) {
      const was = old.strategyCode.find((x) => x.name === s.name);
      if (was?.hash !== s.hash) throw differs(`code for strategy ${s.name} (${s.strategy})`, hash(was?.hash), hash(s.hash));
    }
  } else {
    // Stored before the code was recorded: nothing to check it against; checked from the next resume on.
    store.setStrategyCode(old.id, spec.strategyCode);
    return { study: { ...old, strategyCode: spec.strategyCode }, created: false };
  }
  return { study: old, created: false };
}

/** The best complete trial (ties: the earliest). */
export function bestTrial(trials: readonly TrialRecord[], direction: Objective['direction']): TrialRecord | undefined {
  let best: TrialRecord | undefined;
  for (const t of trials) {
    if (t.state !== 'complete' || t.value === null) continue;
    if (!best || scoreOf(t.value, direction)! > scoreOf(best.value, direction)!) best = t;
  }
  return best;
}

/** Draws per trial before the constraints are declared unsatisfiable; a repeated point is drawn again this many times before it is answered from the study. */
const MAX_DRAWS = 1000;
const MAX_DUPLICATE_DRAWS = 50;

export const FINISHED = new Set(['complete', 'infeasible', 'failed']);

export interface RunStudyOptions {
  store: StudyStore;
  study: StudyRecord;
  space: SearchSpace;
  objective: Objective;
  executor: TrialExecutor;
  /** The study's target: finished trials it should hold when done. */
  trials: number;
  /** The flat params of a trial as a run request (instance overrides, the study's range). */
  toRequest(params: Params): TrialRequest;
  /** Checked before each batch: true stops asking (the running batch finishes and is stored). */
  shouldStop?(): boolean;
  /** After each stored trial: it, the best so far, finished count, target. */
  onTrial?(t: TrialRecord, best: TrialRecord | undefined, finished: number, target: number): void;
  now?(): number;
}

export interface StudyOutcome {
  trials: TrialRecord[];
  best: TrialRecord | undefined;
  /** Stopped by shouldStop before reaching the target. */
  interrupted: boolean;
  /** The sampler had nothing left (a finished grid). */
  exhausted: boolean;
  /** Trials left running by a killed process and run again now. */
  rerun: number[];
  /** Trials the executor could not run (a queue worker refused them), with why: left to run again on resume. */
  unrun: { number: number; why: string }[];
}

export async function runStudy(o: RunStudyOptions): Promise<StudyOutcome> {
  const now = o.now ?? Date.now;
  const { store, study } = o;
  const accept = constraintsPredicate(
    study.constraints.params ?? [],
    o.space.map((d) => d.name),
  );
  const sampler = createSampler(study.sampler as SamplerName, o.space, study.seed, {}, accept);
  const history = store.trials(study.id);
  const toSampler = (t: TrialRecord): SamplerTrial => ({
    number: t.number,
    params: t.params,
    state: t.state,
    score: t.state === 'complete' ? scoreOf(t.value, study.direction) : null,
  });
  let finished = history.filter((t) => FINISHED.has(t.state)).length;
  let best = bestTrial(history, study.direction);
  const tell = (number: number, reply: TrialResult) => {
    const e = evaluate(reply, o.objective, study.constraints);
    store.finishTrial(study.id, number, { ...e, metrics: reply.metrics, ...(e.reason ? { reason: e.reason } : {}) }, now());
    const t = history.find((h) => h.number === number)!;
    Object.assign(t, { state: e.state, value: e.value, metrics: reply.metrics, reason: e.reason ?? null, finishedAt: now() });
    finished++;
    if (e.state === 'complete' && (!best || scoreOf(e.value, study.direction)! > scoreOf(best.value, study.direction)!)) best = t;
    o.onTrial?.(t, best, finished, o.trials);
  };
  const unrun: StudyOutcome['unrun'] = [];
  const runOne = (t: TrialRecord) =>
    o.executor.run(o.toRequest(t.params)).then((r) => (r.unrun !== undefined ? void unrun.push({ number: t.number, why: r.unrun }) : tell(t.number, r)));
  // A parameter set already in the study is never run again: the trial is answered with that trial's result.
  const copy = (t: TrialRecord, from: TrialRecord) => {
    const reason = `same parameters as trial #${from.number}: answered from the study, not run again${from.reason ? ` (${from.reason})` : ''}`;
    store.finishTrial(
      study.id,
      t.number,
      { state: from.state as Exclude<TrialRecord['state'], 'running'>, value: from.value, metrics: from.metrics, reason },
      now(),
    );
    Object.assign(t, { state: from.state, value: from.value, metrics: from.metrics, reason, finishedAt: now() });
    finished++;
    o.onTrial?.(t, best, finished, o.trials);
  };
  /** A new point satisfying the constraints; else (every draw was run before) the earlier trial to answer from. */
  const askNew = (number: number): { params: Params; same?: TrialRecord } | undefined => {
    const seen = new Map(history.map((h) => [paramsKey(h.params), h]));
    let dup: TrialRecord | undefined;
    let dupParams: Params | undefined;
    for (let attempt = 0; attempt < MAX_DRAWS; attempt++) {
      const params = sampler.ask(number, history.map(toSampler), attempt);
      if (!params) return undefined;
      if (accept && !accept(params)) continue;
      const same = seen.get(paramsKey(params));
      if (!same) return { params };
      if (!dup) [dup, dupParams] = [same, params];
      if (attempt >= MAX_DUPLICATE_DRAWS) break;
    }
    if (dup) return { params: dupParams!, same: dup };
    throw new Error(
      `the sampler drew ${MAX_DRAWS} points and none satisfied --constraint ${(study.constraints.params ?? []).map((c) => JSON.stringify(c)).join(' --constraint ')}: widen the ranges or the constraints`,
    );
  };

  // Trials a killed process left running: run again first, same number and params, counted once.
  const stale = history.filter((t) => t.state === 'running');
  let interrupted = false;
  let exhausted = false;
  for (let k = 0; k < stale.length; k += o.executor.concurrency) {
    if (o.shouldStop?.()) return { trials: history, best, interrupted: true, exhausted, rerun: stale.map((t) => t.number), unrun };
    const batch = stale.slice(k, k + o.executor.concurrency);
    for (const t of batch) store.restartTrial(study.id, t.number, now());
    await Promise.all(batch.map(runOne));
  }
  while (finished < o.trials && unrun.length === 0) {
    if (o.shouldStop?.()) {
      interrupted = true;
      break;
    }
    const size = Math.min(o.executor.concurrency, o.trials - finished);
    const batch: TrialRecord[] = [];
    const copies: [TrialRecord, TrialRecord][] = [];
    for (let k = 0; k < size; k++) {
      const number = store.nextNumber(study.id);
      // The batch's earlier asks are in the history as running (the grid skips them; TPE learns only from finished ones).
      const asked = askNew(number);
      if (!asked) {
        exhausted = true;
        break;
      }
      const t: TrialRecord = { number, params: asked.params, state: 'running', value: null, metrics: {}, reason: null, startedAt: now(), finishedAt: null };
      store.addTrial(study.id, number, asked.params, t.startedAt);
      history.push(t);
      if (asked.same) copies.push([t, asked.same]);
      else batch.push(t);
    }
    await Promise.all(batch.map(runOne));
    // Copied after the batch: the earlier trial may have been running in it (unless it could not run:
    // the copy then waits, running, for the resume that runs the earlier trial).
    for (const [t, from] of copies) if (from.state !== 'running') copy(t, from);
    if (exhausted) break;
  }
  unrun.sort((a, b) => a.number - b.number);
  // A point that could not run has not run: the grid is not exhausted while one waits.
  return { trials: history, best, interrupted, exhausted: exhausted && unrun.length === 0, rerun: stale.map((t) => t.number), unrun };
}
