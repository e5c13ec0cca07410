/**
 * The overview's equity series (src/server/dashboard/series.js, issue 34 item 7): the journal's
 * history (a point a minute) and the stream's statuses (every 2 s) go into one series of evenly
 * spaced periods, capped, so the chart's time axis is a real one and the series does not grow
 * without limit.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript served to the browser, without types
import { CAP, EquitySeries } from '../../src/server/dashboard/series.js';

type Point = { time: number; value?: number };
const diffs = (ps: Point[]) => ps.slice(1).map((p, i) => p.time - ps[i]!.time);

describe('EquitySeries', () => {
  it('puts 2 s statuses after a minute history into the same one-minute periods: even spacing, the last value of each', () => {
    const s = new EquitySeries();
    const t0 = Date.UTC(2026, 0, 1, 23, 0);
    for (let m = 0; m < 8; m++) s.add(t0 + m * 60_000 + 1_234, 100 + m);
    // Then a status every 2 s for 3 minutes.
    for (let k = 0; k < 90; k++) s.add(t0 + 8 * 60_000 + k * 2_000, 200 + k);
    const ps: Point[] = s.points();
    expect(s.step).toBe(60);
    expect(new Set(diffs(ps))).toEqual(new Set([60]));
    expect(ps.length).toBe(11);
    expect(ps.at(-1)).toEqual({ time: (t0 + 10 * 60_000) / 1000, value: 289 });
    expect(ps[8]).toEqual({ time: (t0 + 8 * 60_000) / 1000, value: 229 });
  });

  it('a day of statuses every 2 s and a week of history stay under the cap, evenly spaced, ending at the last value', () => {
    const s = new EquitySeries();
    const t0 = Date.UTC(2026, 0, 1);
    for (let m = 0; m < 7 * 1440; m++) s.add(t0 + m * 60_000, 1000 + Math.sin(m / 50));
    const start = t0 + 7 * 86_400_000;
    for (let k = 0; k < 43_200; k++) s.add(start + k * 2_000, 2000 + k);
    const ps: Point[] = s.points();
    expect(ps.length).toBeLessThanOrEqual(CAP);
    expect(ps.length).toBeGreaterThan(CAP / 3);
    expect(new Set(diffs(ps)).size).toBe(1);
    expect(ps.at(-1)!.value).toBe(2000 + 43_199);
    expect(ps[0]!.time).toBeLessThanOrEqual(t0 / 1000);
  });

  it('a stop of the bot is a blank stretch of its real length, not a step of one point', () => {
    const s = new EquitySeries();
    const t0 = Date.UTC(2026, 0, 1);
    for (let m = 0; m < 30; m++) s.add(t0 + m * 60_000, 100);
    for (let m = 90; m < 120; m++) s.add(t0 + m * 60_000, 110);
    const ps: Point[] = s.points();
    expect(new Set(diffs(ps))).toEqual(new Set([60]));
    expect(ps.length).toBe(120);
    expect(ps.filter((p) => p.value === undefined).length).toBe(60);
  });

  it('ignores a value older than its last period and one that is not a number', () => {
    const s = new EquitySeries();
    s.add(600_000, 1);
    s.add(500_000, 2);
    s.add(660_000, Number.NaN);
    expect(s.points()).toEqual([{ time: 600, value: 1 }]);
  });
});
