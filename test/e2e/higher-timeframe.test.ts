/**
 * Issue 16 item 12: a strategy reads candles of a resolution that is not a multiple of its own when
 * it declares it in the config (`candles:`): `mizan backtest` builds them from the backtest's data
 * (a candle shows once it closed), refuses a declared resolution the data cannot give (naming the
 * field and the value), and `ctx.candles()` of an undeclared one is an error naming the field, never
 * an empty list forever. Child processes running `node bin/mizan.js backtest`.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, tempDir } from './cli.js';

const FIX = resolve(import.meta.dirname, 'fixtures');
const tmp = tempDir('mizan-e2e-tf-');
afterAll(() => tmp.remove());

const T0 = 1672704000; // 2023-01-03T00:00:00Z, a multiple of 120 s

/** One-minute candles from T0 − 600 s (40 of them); candle i: open 100+i, high +0.5, low −0.5, close +0.25, volume 1. */
function minuteCsv(name: string, stepSec = 60, n = 40): string {
  const rows = ['time,open,high,low,close,volume'];
  for (let i = 0; i < n; i++) rows.push(`${T0 - 600 + stepSec * i},${100 + i},${100 + i + 0.5},${100 + i - 0.5},${100 + i + 0.25},1`);
  return tmp.file(name, rows.join('\n') + '\n');
}

function config(name: string, data: string, entries: { name: string; res: number; candles?: string }[]): string {
  return tmp.file(
    `${name}.yaml`,
    [
      'mode: backtest',
      'strategies:',
      ...entries.flatMap((e) => [
        `  - name: ${e.name}`,
        `    strategy: ${join(FIX, 'read-candles.ts')}`,
        '    markets: [BTCUSDT]',
        '    resolution: "300s"',
        ...(e.candles ? [`    candles: ${e.candles}`] : []),
        `    params: { res: ${e.res} }`,
      ]),
      'backtest:',
      `  data: [{ symbol: BTCUSDT, file: ${data} }]`,
      '  from: 2023-01-03T00:00:00Z',
      '  to: 2023-01-03T00:30:00Z',
      'logging: { level: info, pretty: false }',
      'journal: { file: ":memory:" }',
      '',
    ].join('\n'),
  );
}

interface Read {
  strategy: string;
  barTime: number;
  now: number;
  res: number;
  n: number;
  last: { time: number; open: number; high: number; low: number; close: number; volume: number } | null;
}

function reads(stderr: string): Read[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{') && l.includes('"tf read"'))
    .map((l) => JSON.parse(l) as Read);
}

describe('declared candle resolutions in mizan backtest', { timeout: 120_000 }, () => {
  it('a 300 s strategy reads the 60 s and 120 s candles it declared, built from the data, each once it closed', async () => {
    const data = minuteCsv('m1.csv');
    const cfg = config('ok', data, [
      { name: 'm1', res: 60, candles: '["1"]' },
      { name: 'm120', res: 120, candles: '["120s"]' },
    ]);
    const out = join(tmp.dir, 'ok-out');
    const r = await mizan(['backtest', cfg, '--out', out]);
    expect(r.code, r.all).toBe(0);
    const all = reads(r.stderr);
    const m1 = all.filter((x) => x.strategy === 'm1');
    const m120 = all.filter((x) => x.strategy === 'm120');
    // Six 300 s candles in the run (00:00 .. 00:30), each read once.
    expect(m1.map((x) => x.barTime)).toEqual([0, 1, 2, 3, 4, 5].map((k) => T0 + 300 * k));
    // At the close of the k-th candle: the 10 minutes of data before the run and 5k minutes, the newest ending then.
    m1.forEach((x, k) => {
      expect(x.now).toBe((T0 + 300 * (k + 1)) * 1000);
      expect(x.n).toBe(10 + 5 * (k + 1));
      const i = 9 + 5 * (k + 1);
      expect(x.last).toEqual({ time: T0 - 600 + 60 * i, open: 100 + i, high: 100 + i + 0.5, low: 100 + i - 0.5, close: 100 + i + 0.25, volume: 1 });
    });
    // 120 s candles (epoch-aligned) visible only after their close: at 00:05 the one of 00:02..00:04 is the newest (00:04..00:06 is still open).
    expect(m120.map((x) => x.n)).toEqual([7, 10, 12, 15, 17, 20]);
    expect(m120[0]!.last).toEqual({ time: T0 + 120, open: 112, high: 113.5, low: 111.5, close: 113.25, volume: 2 });
    expect(m120[2]!.last!.time).toBe(T0 + 720); // at 00:15: 00:12..00:14 (00:14..00:16 still open)
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as { errors: { total: number } };
    expect(result.errors.total).toBe(0);
  });

  it('a declared resolution the data cannot give stops the run naming the field and the value', async () => {
    const data = minuteCsv('m5.csv', 300, 8);
    const cfg = config('bad', data, [{ name: 'a', res: 450, candles: '["450s", "1"]' }]);
    const r = await mizan(['backtest', cfg]);
    expect(r.code, r.all).toBe(1);
    expect(r.all).toMatch(/strategies\[0\]\.candles\[0\]: "450s" \(450s\) cannot be built from the backtest data of BTCUSDT .*300s long/);
    expect(r.all).toMatch(/strategies\[0\]\.candles\[1\]: "1" \(60s\) cannot be built from the backtest data of BTCUSDT/);
    expect(r.all).not.toMatch(/^\s+at /m);
  });

  it('ctx.candles() of an undeclared resolution that is not a multiple is an error naming the field to declare it', async () => {
    const data = minuteCsv('m1b.csv');
    const cfg = config('undeclared', data, [{ name: 'u', res: 450 }]);
    const r = await mizan(['backtest', cfg]);
    expect(r.code, r.all).toBe(1);
    expect(r.all).toMatch(/strategy u: ctx\.candles\("BTCUSDT", 450\) reads 450s candles, which are neither its resolution \(300s\) nor a multiple of it, and the config does not declare them: add "450s" to this strategy's `candles:` list/);
    expect(reads(r.stderr)).toEqual([]);
  });

  it('mizan check names a bad value of candles: with its path and line, and accepts good ones', async () => {
    const data = minuteCsv('m1c.csv');
    const bad = config('check-bad', data, [{ name: 'c', res: 60, candles: '["1", "7", 450]' }]);
    const r = await mizan(['check', bad]);
    expect(r.code, r.all).toBe(1);
    expect(r.all).toMatch(/strategies\[0\]\.candles\[1\]: "7" is not a resolution .*\(line 7\)/);
    expect(r.all).toMatch(/strategies\[0\]\.candles\[2\]: 450 is not a resolution/);
    const good = config('check-good', data, [{ name: 'c', res: 60, candles: '["1", "450s", "60"]' }]);
    const g = await mizan(['check', good]);
    expect(g.code, g.all).toBe(0);
    expect(g.stdout).toContain(`${good}: ok`);
    // the declared resolutions are listed with the strategy's own
    expect(g.stdout).toMatch(/^ {2}c +read-candles +BTCUSDT +300s \(\+60s,450s,3600s\) +res=60$/m);
  });

  it('mizan sweep: the workers get the declared resolutions built from the data too', async () => {
    const data = minuteCsv('m1s.csv');
    const cfg = config('sweep', data, [{ name: 's', res: 60, candles: '["1", "120s"]' }]);
    const csv = join(tmp.dir, 'sweep.csv');
    const r = await mizan(['sweep', cfg, '--param', 'res=60,120', '--workers', '1', '--out', csv]);
    expect(r.code, r.all).toBe(0);
    const rows = readFileSync(csv, 'utf8').trim().split('\n');
    expect(rows.length, rows.join('\n')).toBe(3);
    // The last column is the run's error: empty for both.
    expect(rows[0]!.split(',').at(-1)).toBe('error');
    for (const row of rows.slice(1)) expect(row.endsWith(','), row).toBe(true);
  });
});
