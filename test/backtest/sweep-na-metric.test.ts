/** The warning of a sweep whose metric is n/a in every finished run (src/backtest/sweep.ts, metricNaInEveryRun). */
import { describe, expect, it } from 'vitest';
import { metricNaInEveryRun, rankRows, type SweepRow } from '../../src/backtest/sweep.js';

const row = (fast: number, pf: number | null, error?: string): SweepRow => ({
  params: { sma: { fast } },
  metrics: { profitFactor: pf, totalReturnPct: fast / 10 },
  ...(error ? { error } : {}),
});

describe('metricNaInEveryRun', () => {
  it('says why the order means nothing when every finished run has the metric n/a', () => {
    const rows = [row(5, null), row(10, null), row(15, null, 'strategy threw')];
    expect(metricNaInEveryRun(rows, 'profitFactor')).toBe(
      'profitFactor is n/a in all 2 finished run(s): the ranking below is the order of the combinations, not a ranking',
    );
    // The rows stay in combination order: the warning is what tells the user.
    expect(rankRows(rows, 'profitFactor').map((r) => r.params.sma!.fast)).toEqual([5, 10, 15]);
  });

  it('is silent when one run has a value (n/a rows then rank last) or no run finished', () => {
    const rows = [row(5, null), row(10, 1.4), row(15, null)];
    expect(metricNaInEveryRun(rows, 'profitFactor')).toBeUndefined();
    expect(rankRows(rows, 'profitFactor').map((r) => r.params.sma!.fast)).toEqual([10, 5, 15]);
    expect(metricNaInEveryRun([row(5, null, 'boom')], 'profitFactor')).toBeUndefined();
  });
});
