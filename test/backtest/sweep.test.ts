/**
 * `mizan sweep`: the data is loaded and reported once before any worker starts (and stops the sweep
 * as `mizan backtest` does), `fetch: true` data is fetched once in the parent and served to the
 * workers from the cache, option errors name the option and value, counts print as integers, and
 * the default worker count grows only when the remaining work pays for another worker's start-up.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBacktestCommands, sweepCell } from '../../src/cli/backtest.js';
import { BacktestDataError } from '../../src/backtest/run.js';
import { expandSweep, parseParamRange, parseWorkers, runSweep, WorkerScaler } from '../../src/backtest/sweep.js';
import { loadConfig } from '../../src/config/load.js';
import { Decimal } from '../../src/core/decimal.js';
import type { Candle } from '../../src/core/types/market.js';
import type { CandleQuery } from '../../src/market/ports.js';
import { WallexRestClient } from '../../src/exchange/rest/client.js';
import { runSim, type RunningSim } from '../../src/sim/run-sim.js';
import { FIXTURES, REPO } from './helpers.js';

const SWEEP_CONFIG = resolve(REPO, 'config/backtest-sweep.yaml');
const UNITTEST = join(FIXTURES, 'data/freqtrade/UNITTEST_BTC-1m.json');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mizan-sweep-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeConfig(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    `mode: backtest
strategies:
  - { name: sma, strategy: sma-cross, markets: [BTCUSDT], resolution: "60s", params: { fast: 5, slow: 20, fraction: 0.5 } }
${body}
journal: { file: ":memory:" }
logging: { level: warn, pretty: false }
`,
  );
  return file;
}

/** Runs `mizan …` in-process; stdout and stderr captured. */
async function mizan(args: string[]): Promise<{ out: string; err: string }> {
  const program = new Command().exitOverride();
  registerBacktestCommands(program);
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const got = { out: '', err: '' };
  process.stdout.write = ((s: string) => ((got.out += s), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => ((got.err += s), true)) as typeof process.stderr.write;
  const cwd = process.cwd();
  process.chdir(REPO);
  try {
    await program.parseAsync(['node', 'mizan', ...args]);
  } finally {
    process.chdir(cwd);
    process.stdout.write = out;
    process.stderr.write = err;
  }
  return got;
}

describe('sweep data', () => {
  it('reports gaps and a missing start/end once, before any worker starts, then runs', async () => {
    // 2017-11-04T23:02Z .. 2017-11-14T22:59Z with gaps; the range asks for more on both sides.
    const file = writeConfig(
      'gappy.yaml',
      `backtest:
  data: [ { symbol: BTCUSDT, file: ${JSON.stringify(UNITTEST)} } ]
  from: 2017-11-04
  to: 2017-11-16
  balances: { USDT: 10000 }`,
    );
    const config = await loadConfig(file);
    const combos = await expandSweep(config, [parseParamRange('fast=5,8')]);
    const events: string[] = [];
    const rows = await runSweep(combos, {
      configFile: file,
      workers: 2,
      onDataReport: (r) => events.push(`report ${r.ok} ${r.problems.join(' | ')}`),
      onWorkerStart: (n) => events.push(`worker ${n}`),
    });
    expect(events[0]).toMatch(/^report true /);
    expect(events[0]).toMatch(/BTCUSDT: 538 gap\(s\), 717 missing candle\(s\)/);
    expect(events[0]).toContain('(the data starts later)');
    expect(events[0]).toContain('(the data ends earlier)');
    expect(events.slice(1)).toEqual(['worker 1', 'worker 2']);
    expect(rows.map((r) => r.error)).toEqual([undefined, undefined]);
  });

  it('stops with BacktestDataError, before any worker, when a market has no candle in range', async () => {
    const file = writeConfig(
      'outside.yaml',
      `backtest:
  data: [ { symbol: BTCUSDT, file: ${JSON.stringify(UNITTEST)} } ]
  from: 2020-01-01
  to: 2020-02-01
  balances: { USDT: 10000 }`,
    );
    const config = await loadConfig(file);
    const combos = await expandSweep(config, [parseParamRange('fast=5,8')]);
    let workers = 0;
    const run = runSweep(combos, { configFile: file, config, onWorkerStart: () => workers++ });
    await expect(run).rejects.toBeInstanceOf(BacktestDataError);
    await expect(run).rejects.toThrow(/BTCUSDT: no candle in the requested range/);
    expect(workers).toBe(0);
  });

  it('mizan sweep prints the data problems before the runs and stops as mizan backtest does', async () => {
    const gappy = writeConfig(
      'gappy-cli.yaml',
      `backtest:
  data: [ { symbol: BTCUSDT, file: ${JSON.stringify(UNITTEST)} } ]
  from: 2017-11-05
  to: 2017-11-14
  balances: { USDT: 10000 }`,
    );
    const ok = await mizan(['sweep', gappy, '--param', 'fast=5,8', '--workers', '1', '--out', join(dir, 'gappy.csv')]);
    expect(ok.err).toMatch(/^data: BTCUSDT: \d+ gap\(s\), \d+ missing candle\(s\): 2017-11-/m);
    expect(ok.out).toContain('(2 runs, 1 worker)');
    const outside = writeConfig(
      'outside-cli.yaml',
      `backtest:
  data: [ { symbol: BTCUSDT, file: ${JSON.stringify(UNITTEST)} } ]
  from: 2020-01-01
  to: 2020-02-01
  balances: { USDT: 10000 }`,
    );
    await expect(mizan(['sweep', outside, '--param', 'fast=5,8', '--out', join(dir, 'x.csv')])).rejects.toThrow(
      /backtest data is missing:\n {2}BTCUSDT: no candle in the requested range/,
    );
  }, 60_000);
});

describe('sweep with fetch: true', () => {
  let running: RunningSim;
  const T0 = 1_714_521_600; // 2024-05-01T00:00:00Z
  beforeAll(async () => {
    running = await runSim({ port: 0, replay: false });
    const candles: Candle[] = [];
    for (let i = 0; i < 3000; i++) {
      const p = 60000 + 2000 * Math.sin(i / 40) + 300 * Math.sin(i / 7);
      const o = new Decimal(p.toFixed(2));
      candles.push({ time: T0 + i * 60, open: o, high: o.plus(40), low: o.minus(40), close: new Decimal((p + 10).toFixed(2)), volume: new Decimal(5) });
    }
    running.sim.setCandles('BTCUSDT', candles, 60);
  });
  afterAll(async () => {
    await running.stop();
  });

  it('fetches once in the parent, then every worker runs on it; a second sweep reads the cache only', async () => {
    const file = writeConfig(
      'fetch.yaml',
      `exchange: { baseUrl: ${JSON.stringify(running.server.url)} }
backtest:
  data: [ { symbol: BTCUSDT, fetch: true } ]
  from: ${T0 + 3600}
  to: ${T0 + 3000 * 60}
  balances: { USDT: 10000 }`,
    );
    const config = await loadConfig(file);
    const combos = await expandSweep(config, [parseParamRange('fast=3..6:1'), parseParamRange('slow=20,30')]);
    const rest = new WallexRestClient({ baseUrl: config.exchange.baseUrl, timeoutMs: 5000 });
    let requests = 0;
    const counting = { getCandles: (q: CandleQuery) => (requests++, rest.getCandles(q)) };
    const cacheDir = join(dir, 'cache');
    const first = await runSweep(combos, { configFile: file, config, workers: 2, candleSource: counting, cacheDir });
    expect(first.map((r) => r.error)).toEqual(combos.map(() => undefined));
    expect(first.some((r) => (r.metrics.trades ?? 0) > 0)).toBe(true);
    expect(requests).toBeGreaterThan(0);

    const offline = { getCandles: (): Promise<Candle[]> => Promise.reject(new Error('offline')) };
    const second = await runSweep(combos, { configFile: file, config, workers: 2, candleSource: offline, cacheDir });
    expect(second.map((r) => r.metrics)).toEqual(first.map((r) => r.metrics));
  }, 60_000);
});

describe('sweep options', () => {
  it('--workers must be a whole number of threads, 1 or more', async () => {
    for (const bad of ['abc', '0', '-1', '1.5', ''])
      expect(() => parseWorkers(bad)).toThrow(`--workers ${JSON.stringify(bad)}: expected a whole number of worker threads, 1 or more`);
    expect(parseWorkers('3')).toBe(3);
    await expect(mizan(['sweep', SWEEP_CONFIG, '--param', 'fast=5', '--workers', 'abc', '--out', join(dir, 'w.csv')])).rejects.toThrow(
      '--workers "abc": expected a whole number',
    );
    const config = await loadConfig(SWEEP_CONFIG);
    await expect(runSweep([{ sma: { fast: 5 } }], { configFile: SWEEP_CONFIG, config, workers: Number.NaN })).rejects.toThrow(/--workers NaN/);
  });

  it('--param names an instance the config does not have: says so and lists the instances', async () => {
    const config = await loadConfig(SWEEP_CONFIG);
    await expect(expandSweep(config, [parseParamRange('other.fast=5')])).rejects.toThrow(
      '--param other.fast: the config has no strategy instance named other (its instances: sma)',
    );
    await expect(expandSweep(config, [parseParamRange('sma.fast=5')])).resolves.toEqual([{ sma: { fast: 5 } }]);
  });

  it('prints counts as integers in the ranked table', async () => {
    expect(sweepCell(83, 'count')).toBe('83');
    expect(sweepCell(1.23456, 'ratio')).toBe('1.23');
    expect(sweepCell(null, 'pct')).toBe('n/a');
    const { out } = await mizan(['sweep', SWEEP_CONFIG, '--param', 'fast=10,12', '--workers', '1', '--out', join(dir, 'int.csv')]);
    const lines = out.split('\n').filter((l) => /^\s+\d+\s/.test(l));
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(l.trim().split(/\s+/)[4]).toMatch(/^\d+$/); // rank sharpe return drawdown trades
    expect(readFileSync(join(dir, 'int.csv'), 'utf8').split('\n')[0]).toContain('trades');
  }, 60_000);
});

describe('default worker count', () => {
  /** Feeds one worker's results: run durations (ms), each finishing that long after the previous. */
  function feed(s: WorkerScaler, id: number, startMs: number, firstAfter: number, ms: number[]): number {
    let t = startMs + firstAfter - ms[0]!;
    for (const d of ms) s.result(id, d, (t += d));
    return t;
  }

  it('adds no worker to a short sweep: the work left never pays for a start-up', () => {
    const s = new WorkerScaler();
    s.started(0, 0);
    // 120 runs of ~17 ms after a warm-up; 1.6 s to the first result.
    const ms = [875, 309, 255, 142, 96, 84, 63, 59, 45, 30, 26, 25, 22, 20, ...Array<number>(106).fill(17)];
    let t = 1600 - ms[0]!;
    ms.forEach((d, k) => {
      s.result(0, d, (t += d));
      expect(s.shouldAdd(120 - k - 1)).toBe(false);
    });
  });

  it('adds a worker to a long sweep once the runs stopped getting faster, and only then', () => {
    const s = new WorkerScaler();
    s.started(0, 0);
    const t = feed(s, 0, 0, 1400, [880, 608, 349, 336, 309, 314, 322, 318, 311]);
    expect(s.steadyMs(0)).toBeUndefined(); // 9 runs: no estimate yet
    expect(s.shouldAdd(39)).toBe(false);
    s.result(0, 325, t + 325);
    expect(s.steadyMs(0)).toBe(311); // the fastest of the last 5, no longer falling
    // Start cost: 4,592 ms to steady, less 10 runs at 311 ms = 1,482 ms.
    expect(s.startCostMs).toBe(1482);
    expect(s.shouldAdd(38)).toBe(true); // saves 38 × 311 / 2 = 5,909 ms > 1.5 × 1,482
    expect(s.shouldAdd(13)).toBe(false); // 2,022 ms < 2,223 ms
    // With a second worker, nothing more until it is steady too.
    s.started(1, t + 325);
    expect(s.shouldAdd(38)).toBe(false);
  });

  it('a noisy short sweep (runs of 17-55 ms while it warms) does not take its noise for work', () => {
    const s = new WorkerScaler();
    s.started(0, 0);
    // Measured on the bundled 120-run sweep: the slow outliers are collections and compiles.
    const ms = [
      538,
      244,
      178,
      79,
      99,
      56,
      67,
      40,
      29,
      29,
      39,
      27,
      48,
      46,
      55,
      41,
      51,
      68,
      58,
      102,
      75,
      83,
      35,
      41,
      85,
      31,
      21,
      21,
      ...Array<number>(92).fill(17),
    ];
    let t = 2096 - ms[0]!;
    ms.forEach((d, k) => {
      s.result(0, d, (t += d));
      expect(s.shouldAdd(120 - k - 1)).toBe(false);
    });
  });

  it('the default starts one worker on a short sweep; --workers N starts exactly N', async () => {
    const config = await loadConfig(SWEEP_CONFIG);
    const combos = await expandSweep(config, [parseParamRange('fast=10,12,14')]);
    let started = 0;
    const cwd = process.cwd();
    process.chdir(REPO);
    try {
      await runSweep(combos, { configFile: SWEEP_CONFIG, config, onWorkerStart: (n) => (started = n) });
      expect(started).toBe(1);
      const rows = await runSweep(combos, { configFile: SWEEP_CONFIG, config, workers: 2, onWorkerStart: (n) => (started = n) });
      expect(started).toBe(2);
      expect(rows.every((r) => !r.error)).toBe(true);
    } finally {
      process.chdir(cwd);
    }
  }, 60_000);
});
