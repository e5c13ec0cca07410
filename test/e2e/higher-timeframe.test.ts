/**
 * Issue 16 item 12: a strategy reads candles of a resolution that is not a multiple of its own when
 * it declares it in the config (`candles:`): `mizan backtest` builds them from the backtest's data
 * (a candle shows once it closed), refuses a declared resolution the data cannot give (naming the
 * field and the value), and `ctx.candles()` of an undeclared one is an error naming the field, never
 * an empty list forever; with `fetch: true` data (fetched from the simulator over HTTP) a declared
 * resolution the fetched candles cannot give is refused before any fetch; `mizan check` checks the
 * declared resolutions against the configured data. Child processes running `node bin/mizan.js`.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import type { Candle } from '../../src/core/types/market.js';
import { runSim, type RunningSim } from '../../src/sim/run-sim.js';
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
    expect(r.all).toMatch(
      /strategies\[0\]\.candles\[0\]: strategy a declares "450s" \(450s\), which cannot be built from the backtest data of BTCUSDT .*300s long/,
    );
    expect(r.all).toMatch(/strategies\[0\]\.candles\[1\]: strategy a declares "1" \(60s\), which cannot be built from the backtest data of BTCUSDT/);
    expect(r.all).not.toMatch(/^\s+at /m);
  });

  it('ctx.candles() of an undeclared resolution that is not a multiple is an error naming the field to declare it', async () => {
    const data = minuteCsv('m1b.csv');
    const cfg = config('undeclared', data, [{ name: 'u', res: 450 }]);
    const r = await mizan(['backtest', cfg]);
    expect(r.code, r.all).toBe(1);
    expect(r.all).toMatch(
      /strategy u: ctx\.candles\("BTCUSDT", 450\) reads 450s candles, which are neither its resolution \(300s\) nor a multiple of it, and the config does not declare them: add "450s" to this strategy's `candles:` list/,
    );
    expect(reads(r.stderr)).toEqual([]);
  });

  it('mizan check names a bad value of candles: with its path and line, and accepts good ones', async () => {
    const data = minuteCsv('m1c.csv');
    const bad = config('check-bad', data, [{ name: 'c', res: 60, candles: '["1", "7", 450]' }]);
    const r = await mizan(['check', bad]);
    expect(r.code, r.all).toBe(1);
    expect(r.all).toMatch(/strategies\[0\]\.candles\[1\]: "7" is not a resolution .*\(line 7\)/);
    expect(r.all).toMatch(/strategies\[0\]\.candles\[2\]: 450 is not a resolution/);
    const good = config('check-good', data, [{ name: 'c', res: 60, candles: '["1", "420s", "60"]' }]);
    const g = await mizan(['check', good]);
    expect(g.code, g.all).toBe(0);
    expect(g.stdout).toContain(`${good}: ok`);
    // the declared resolutions are listed with the strategy's own
    expect(g.stdout).toMatch(/^ {2}c +read-candles +BTCUSDT +300s \(\+60s,420s,3600s\) +res=60$/m);
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

describe('declared candle resolutions against fetch: true data (the simulator over HTTP)', { timeout: 120_000 }, () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await runSim({ port: 0, replay: false });
    const candles: Candle[] = [];
    for (let i = 0; i < 40; i++) {
      const o = new Decimal(60_000 + i);
      candles.push({ time: T0 - 600 + 60 * i, open: o, high: o.plus(5), low: o.minus(5), close: o.plus(1), volume: new Decimal(1) });
    }
    sim.sim.setCandles('BTCUSDT', candles, 60);
  });
  afterAll(async () => {
    await sim.stop();
  });

  function fetchConfig(name: string, resolution: string, candles: string, res = 60): string {
    return tmp.file(
      `${name}.yaml`,
      [
        'mode: backtest',
        `exchange: { baseUrl: ${JSON.stringify(sim.server.url)} }`,
        'strategies:',
        `  - name: ${name}`,
        `    strategy: ${join(FIX, 'read-candles.ts')}`,
        '    markets: [BTCUSDT]',
        `    resolution: "${resolution}"`,
        `    candles: ${candles}`,
        `    params: { res: ${res} }`,
        'backtest:',
        '  data: [{ symbol: BTCUSDT, fetch: true }]',
        '  from: 2023-01-03T00:00:00Z',
        '  to: 2023-01-03T00:20:00Z',
        'logging: { level: info, pretty: false }',
        'journal: { file: ":memory:" }',
        '',
      ].join('\n'),
    );
  }

  it('a declared resolution finer than the fetched candles, or not a multiple of them, is refused naming the strategy, the field and the values', async () => {
    const cfg = fetchConfig('fine', '1', '["30s", "90s"]', 30);
    const r = await mizan(['backtest', cfg], { cwd: tmp.dir });
    expect(r.code, r.all).toBe(1);
    expect(r.all).toMatch(
      /strategies\[0\]\.candles\[0\]: strategy fine declares "30s" \(30s\), which cannot be built from the backtest data of BTCUSDT \(\/v1\/udf\/history BTCUSDT\): its candles are 60s long, and a declared resolution must be at least that long and a multiple of them/,
    );
    expect(r.all).toMatch(
      /strategies\[0\]\.candles\[1\]: strategy fine declares "90s" \(90s\), which cannot be built from the backtest data of BTCUSDT \(\/v1\/udf\/history BTCUSDT\): its candles are 60s long, and a declared resolution must be a multiple of them/,
    );
    expect(r.all).not.toMatch(/^\s+at /m);
    expect(reads(r.stderr)).toEqual([]);
  });

  it('a declared multiple of the fetched resolution is built from them: the run reads it', async () => {
    const cfg = fetchConfig('coarse', '1', '["120s"]', 120);
    const r = await mizan(['backtest', cfg], { cwd: tmp.dir });
    expect(r.code, r.all).toBe(0);
    const all = reads(r.stderr);
    expect(all.length).toBe(20);
    // the fetched range starts at 00:00: at 00:01 no 120 s candle closed yet; at 00:02 the one of 00:00..00:02
    expect(all[0]!.last).toBeNull();
    expect(all[1]!.last).toEqual({ time: T0, open: 60_010, high: 60_016, low: 60_005, close: 60_012, volume: 2 });
    expect(all[19]!.last!.time).toBe(T0 + 1080);
  });

  it('mizan check: a fetched resolution the exchange does not serve and a declared one finer than it', async () => {
    const cfg = fetchConfig('chk', '2s', '["1s"]', 1);
    const r = await mizan(['check', cfg]);
    expect(r.code, r.all).toBe(1);
    expect(r.all).toMatch(
      /strategies\[0\]\.resolution: strategy chk: "2s" \(2s\) cannot be fetched for BTCUSDT \(backtest\.data fetch: true\): \/v1\/udf\/history serves .* \(line 7\)/,
    );
    expect(r.all).toMatch(
      /strategies\[0\]\.candles\[0\]: strategy chk declares "1s" \(1s\), which cannot be built from the backtest data of BTCUSDT .*its candles are 2s long.* \(line 8\)/,
    );
  });
});

describe('mizan check: declared and own resolutions against the data files', { timeout: 120_000 }, () => {
  it('reports, in the order of the file, each resolution the data cannot give, naming the strategy, the field, the value and the data', async () => {
    const data = minuteCsv('m5-check.csv', 300, 8);
    const cfg = tmp.file(
      'check-data.yaml',
      [
        'mode: backtest',
        'strategies:',
        '  - name: ok',
        `    strategy: ${join(FIX, 'read-candles.ts')}`,
        '    markets: [BTCUSDT]',
        '    resolution: "300s"',
        '    candles: ["600s", "1D"]',
        '  - name: finer',
        `    strategy: ${join(FIX, 'read-candles.ts')}`,
        '    markets: [BTCUSDT]',
        '    resolution: "120s"',
        '    candles: ["1", "450s", "15"]',
        'backtest:',
        `  data: [{ symbol: BTCUSDT, file: ${data} }]`,
        '  from: 2023-01-03T00:00:00Z',
        '  to: 2023-01-03T00:30:00Z',
        'journal: { file: ":memory:" }',
        '',
      ].join('\n'),
    );
    const r = await mizan(['check', cfg]);
    expect(r.code, r.all).toBe(1);
    expect(r.all).toContain(`${cfg}: 3 problems`);
    expect(r.all).toMatch(
      new RegExp(
        `strategies\\[1\\]\\.resolution: strategy finer: "120s" \\(120s\\) cannot be built from the backtest data of BTCUSDT \\(${data.replace(/[.]/g, '\\.')}\\): its candles are 300s long.* \\(line 11\\)`,
      ),
    );
    expect(r.all).toMatch(
      /strategies\[1\]\.candles\[0\]: strategy finer declares "1" \(60s\), which cannot be built from the backtest data of BTCUSDT .*300s long, and a declared resolution must be at least that long and a multiple of them \(line 12\)/,
    );
    expect(r.all).toMatch(/strategies\[1\]\.candles\[1\]: strategy finer declares "450s" \(450s\), which cannot be built .*a multiple of them \(line 12\)/);
    expect(r.all).not.toMatch(/candles\[2\]|strategies\[0\]/);
    expect(r.all).not.toMatch(/^\s+at /m);
    // the same file with data it can give: ok
    const fine = tmp.file(
      'check-data-ok.yaml',
      readFileSync(cfg, 'utf8').replace('resolution: "120s"', 'resolution: "600s"').replace('["1", "450s", "15"]', '["15"]'),
    );
    const g = await mizan(['check', fine]);
    expect(g.code, g.all).toBe(0);
    expect(g.stdout).toContain(`${fine}: ok`);
  });

  it('a data file that cannot be read is a problem of its entry', async () => {
    const cfg = config('check-missing', join(tmp.dir, 'no-such.csv'), [{ name: 'm', res: 60, candles: '["1"]' }]);
    const r = await mizan(['check', cfg]);
    expect(r.code, r.all).toBe(1);
    expect(r.all).toMatch(/backtest\.data\[0\]\.file: .*no-such\.csv/);
  });
});
