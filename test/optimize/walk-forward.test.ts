/**
 * Walk-forward: the windows over the bundled data's range (2023-01-03..2023-02-09, 37 days), checked
 * by hand; the stitched out-of-sample equity; and `mizan optimize --walk-forward` as a child process,
 * whose out-of-sample result for a window equals `mizan backtest` of the best parameters over that
 * test window.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { farBelow, parseWalkForward, stitch, walkForwardWindows, type WalkForwardResult } from '../../src/optimize/walk-forward.js';
import { mizan, REPO, tempDir, type TempDir } from '../e2e/cli.js';

const FROM = Date.parse('2023-01-03T00:00:00Z');
const TO = Date.parse('2023-02-09T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const show = (spec: string) =>
  walkForwardWindows(parseWalkForward(spec), FROM, TO).map((w) => `${w.index} ${iso(w.trainFrom)}..${iso(w.trainTo)} | ${iso(w.testFrom)}..${iso(w.testTo)}`);

describe('walk-forward windows on the bundled range (hand-checked)', () => {
  it('rolling train=14d,test=7d: three windows, the fourth test (02-07..02-14) would end after 02-09', () => {
    expect(show('train=14d,test=7d')).toEqual([
      '1 2023-01-03..2023-01-17 | 2023-01-17..2023-01-24',
      '2 2023-01-10..2023-01-24 | 2023-01-24..2023-01-31',
      '3 2023-01-17..2023-01-31 | 2023-01-31..2023-02-07',
    ]);
  });
  it('anchored: every training window starts at from', () => {
    expect(show('train=14d,test=7d,anchored')).toEqual([
      '1 2023-01-03..2023-01-17 | 2023-01-17..2023-01-24',
      '2 2023-01-03..2023-01-24 | 2023-01-24..2023-01-31',
      '3 2023-01-03..2023-01-31 | 2023-01-31..2023-02-07',
    ]);
  });
  it('step=10d leaves gaps between the test windows; hours and weeks', () => {
    expect(show('train=2w,test=5d,step=10d')).toEqual([
      '1 2023-01-03..2023-01-17 | 2023-01-17..2023-01-22',
      '2 2023-01-13..2023-01-27 | 2023-01-27..2023-02-01',
    ]);
    const w = walkForwardWindows(parseWalkForward('train=720h,test=168h'), FROM, TO);
    expect(w.map((x) => [new Date(x.testFrom).toISOString(), new Date(x.testTo).toISOString()])).toEqual([
      ['2023-02-02T00:00:00.000Z', '2023-02-09T00:00:00.000Z'],
    ]);
  });
  it('refuses a step shorter than the test, and unknown parts', () => {
    expect(() => parseWalkForward('train=14d,test=7d,step=3d')).toThrow(
      '--walk-forward "train=14d,test=7d,step=3d": step=3d is shorter than test=7d (the test windows would overlap)',
    );
    expect(() => parseWalkForward('train=14d,test=7d,rolling')).toThrow(
      '--walk-forward "train=14d,test=7d,rolling": "rolling" is not train=…, test=…, step=… or anchored',
    );
  });
  it('stitches the test windows: each starts where the previous ended', () => {
    const s = stitch([
      { times: [1, 2, 3], values: [100, 110, 120] },
      { times: [3, 4, 5], values: [50, 45, 60] },
    ]);
    expect(s.times).toEqual([1, 2, 3, 4, 5]);
    expect(s.values).toEqual([100, 110, 120, 108, 144]);
  });
  it('warns when out-of-sample lost more than half of the in-sample score', () => {
    expect(farBelow(2, 0.9, 'maximize')).toBe(true);
    expect(farBelow(2, 1.1, 'maximize')).toBe(false);
    expect(farBelow(-2, -3.1, 'maximize')).toBe(true);
    expect(farBelow(10, 16, 'minimize')).toBe(true);
    expect(farBelow(10, 14, 'minimize')).toBe(false);
  });
});

describe('mizan optimize --walk-forward', () => {
  let tmp: TempDir;
  beforeAll(() => {
    tmp = tempDir('mizan-wf-');
  });
  afterAll(() => tmp.remove());

  it('optimises each training window, tests the best on the next window, and its out-of-sample equals mizan backtest there', async () => {
    const storage = join(tmp.dir, 's.sqlite');
    const report = join(tmp.dir, 'wf.html');
    const r = await mizan(
      [
        'optimize',
        'config/backtest-sweep.yaml',
        '--param',
        'fast=5..30',
        '--param',
        'slow=40..120',
        '--objective',
        'return',
        '--trials',
        '8',
        '--workers',
        '1',
        '--seed',
        '5',
        '--study',
        'wf',
        '--storage',
        storage,
        '--walk-forward',
        'train=14d,test=7d',
        '--report',
        report,
      ],
      { timeoutMs: 400_000 },
    );
    expect(r.code, r.all).toBe(0);
    expect(r.stdout).toContain('walk-forward train=14d,test=7d: 3 window(s), objective return');
    expect(r.stdout).toMatch(/^ +1 {2}2023-01-03T00:00Z\.\.2023-01-17T00:00Z {2}2023-01-17T00:00Z\.\.2023-01-24T00:00Z /m);
    expect(r.stdout).toMatch(/^ +2 {2}2023-01-10T00:00Z\.\.2023-01-24T00:00Z {2}2023-01-24T00:00Z\.\.2023-01-31T00:00Z /m);
    expect(r.stdout).toMatch(/^ +3 {2}2023-01-17T00:00Z\.\.2023-01-31T00:00Z {2}2023-01-31T00:00Z\.\.2023-02-07T00:00Z /m);
    expect(r.stdout).toMatch(
      /^ {2}overall: in-sample -?[\d.]+, out-of-sample -?[\d.]+ \(means over the windows\); stitched out-of-sample equity: return -?[\d.]+%/m,
    );
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    for (const k of [1, 2, 3]) expect(r.stderr).toContain(`study wf/wf${k} (walk-forward window ${k}: train `);

    const db = new Database(storage, { readonly: true });
    const wf = JSON.parse((db.prepare('SELECT result FROM walk_forward WHERE study_name = ?').get('wf') as { result: string }).result) as WalkForwardResult;
    const counts = db.prepare('SELECT s.name, COUNT(*) AS n FROM trials t JOIN studies s ON s.id = t.study_id GROUP BY s.name ORDER BY s.name').all();
    const ranges = db.prepare('SELECT name, range_from, range_to FROM studies ORDER BY name').all() as { name: string; range_from: number; range_to: number }[];
    db.close();
    expect(counts).toEqual([
      { name: 'wf/wf1', n: 8 },
      { name: 'wf/wf2', n: 8 },
      { name: 'wf/wf3', n: 8 },
    ]);
    expect(ranges.map((x) => [x.name, iso(x.range_from), iso(x.range_to)])).toEqual([
      ['wf/wf1', '2023-01-03', '2023-01-17'],
      ['wf/wf2', '2023-01-10', '2023-01-24'],
      ['wf/wf3', '2023-01-17', '2023-01-31'],
    ]);
    expect(wf.windows.length).toBe(3);
    expect(wf.overall.isValue).toBeCloseTo(mean(wf.windows.map((w) => w.isValue!)), 9);
    expect(wf.overall.oosValue).toBeCloseTo(mean(wf.windows.map((w) => w.oosValue!)), 9);
    // The stitched out-of-sample curve runs from the first test window's start to the last's end.
    expect(wf.stitched.times[0]).toBeGreaterThanOrEqual(Date.parse('2023-01-17T00:00:00Z'));
    expect(wf.stitched.times[0]).toBeLessThan(Date.parse('2023-01-17T00:10:00Z'));
    expect(wf.stitched.times.at(-1)).toBeLessThanOrEqual(Date.parse('2023-02-07T00:00:00Z'));
    expect(wf.stitched.times.at(-1)).toBeGreaterThan(Date.parse('2023-02-06T23:00:00Z'));
    const chained = wf.windows.reduce((eq, w) => eq * (1 + (w.outOfSample!.totalReturnPct as number) / 100), 1);
    expect(wf.overall.oosMetrics.totalReturnPct).toBeCloseTo((chained - 1) * 100, 6);

    // Window 2's best parameters, backtested over its test window by mizan backtest: the same return.
    const w2 = wf.windows[1]!;
    const p = w2.params as Record<string, number>;
    const cfg = tmp.file(
      'w2.yaml',
      readFileSync(join(REPO, 'config/backtest-sweep.yaml'), 'utf8')
        .replace('params: { fast: 10, slow: 30, fraction: 0.5 }', `params: { fast: ${p['sma.fast']}, slow: ${p['sma.slow']}, fraction: 0.5 }`)
        .replace('file: backtest/data/', `file: ${REPO}/backtest/data/`),
    );
    const out = join(tmp.dir, 'bt');
    const bt = await mizan(['backtest', cfg, '--from', '2023-01-24', '--to', '2023-01-31', '--out', out], { timeoutMs: 120_000 });
    expect(bt.code, bt.all).toBe(0);
    const res = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as { metrics: { totalReturnPct: { value: number }; trades: { value: number } } };
    expect(w2.oosValue).toBe(res.metrics.totalReturnPct.value);
    expect(w2.outOfSample!.trades).toBe(res.metrics.trades.value);

    const html = readFileSync(report, 'utf8');
    expect(html).toContain('data-chart="walk-forward"');
    expect(html).toContain('data-chart="oos-equity"');
  }, 600_000);
});
