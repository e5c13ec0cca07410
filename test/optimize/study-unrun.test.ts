/**
 * A trial the executor could not run (`unrun`: a queue worker refused it) is no result: it is not
 * stored as the trial's outcome, does not count towards the target, stops the asking, and runs again
 * (same number and parameters) when the study resumes. TPE here (the queue e2e test covers the grid).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrialExecutor, TrialRequest, TrialResult } from '../../src/optimize/executor.js';
import { parseObjective } from '../../src/optimize/objectives.js';
import { parseParamSpec, type Params, type SearchSpace } from '../../src/optimize/space.js';
import { openStudy, runStudy } from '../../src/optimize/study.js';
import { StudyStore } from '../../src/optimize/store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const space: SearchSpace = [{ ...parseParamSpec('s.fast=5..50'), name: 's.fast' }];
const objective = parseObjective('return');

/** Answers totalReturnPct = fast, or refuses every trial while `refusing`. */
function executor(state: { refusing: boolean; ran: number[] }): TrialExecutor {
  return {
    concurrency: 2,
    run: (req: TrialRequest): Promise<TrialResult> => {
      const fast = (req.params['s'] as Params)['fast'] as number;
      if (state.refusing) return Promise.resolve({ metrics: {}, ms: 0, unrun: 'refused by worker w1: strategy s differs' });
      state.ran.push(fast);
      return Promise.resolve({ metrics: { totalReturnPct: fast, trades: 10 }, ms: 1 });
    },
    close: () => Promise.resolve(),
  };
}

function study(store: StudyStore, ex: TrialExecutor, trials: number) {
  const { study: s } = openStudy(
    store,
    {
      name: 'x',
      configFile: 'c.yaml',
      configHash: 'h',
      space,
      sampler: 'tpe',
      seed: 7,
      objective,
      constraints: {},
      range: { from: 0, to: 1 },
      strategyCode: [],
    },
    0,
    () => 7,
  );
  return runStudy({ store, study: s, space, objective, executor: ex, trials, toRequest: (p) => ({ params: { s: { fast: p['s.fast']! } } }) });
}

describe('runStudy: trials the executor could not run', () => {
  it('are left running, not counted, and run again on resume with the same numbers and parameters', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mizan-unrun-'));
    dirs.push(dir);
    const store = new StudyStore(join(dir, 's.sqlite'));
    try {
      const state = { refusing: true, ran: [] as number[] };
      const refused = await study(store, executor(state), 6);
      // One batch (concurrency 2) asked, both refused, nothing more asked.
      expect(refused.unrun).toEqual([
        { number: 0, why: 'refused by worker w1: strategy s differs' },
        { number: 1, why: 'refused by worker w1: strategy s differs' },
      ]);
      expect(refused.trials.map((t) => t.state)).toEqual(['running', 'running']);
      expect(refused.best).toBeUndefined();
      const stored = store.trials(store.study('x')!.id);
      expect(stored.map((t) => [t.number, t.state])).toEqual([
        [0, 'running'],
        [1, 'running'],
      ]);
      const params = stored.map((t) => t.params['s.fast']);

      state.refusing = false;
      const resumed = await study(store, executor(state), 6);
      expect(resumed.unrun).toEqual([]);
      expect(resumed.rerun).toEqual([0, 1]);
      const after = store.trials(store.study('x')!.id);
      expect(after.map((t) => [t.number, t.state])).toEqual([0, 1, 2, 3, 4, 5].map((n) => [n, 'complete']));
      // The refused trials ran first, with their parameters.
      expect(state.ran.slice(0, 2)).toEqual(params);
      expect(after.slice(0, 2).map((t) => t.value)).toEqual(params);
    } finally {
      store.close();
    }
  });
});
