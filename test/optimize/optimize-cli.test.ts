/**
 * `mizan optimize` and `mizan study` on the user's path: `node bin/mizan.js …` child processes over
 * the bundled data (config/backtest-sweep.yaml: sma-cross on BTC/USDT 5 m, 2023-01-03..2023-02-09),
 * studies in a temp SQLite file. Resume after SIGINT and SIGKILL (the trial count continues, no
 * trial lost or counted twice, the same trials as an uninterrupted run), mismatched studies refused,
 * and the acceptance test: TPE with 60 trials reaches at least the best of a 100-point grid.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mizan, REPO, startRun, tempDir, type TempDir } from '../e2e/cli.js';
import { waitFor } from '../support/wait-for.js';

const CONFIG = 'config/backtest-sweep.yaml';
const SPACE = ['--param', 'fast=5..50', '--param', 'slow=20..200', '--param', 'fraction=0.1..1'];
let tmp: TempDir;

beforeAll(() => {
  tmp = tempDir('mizan-optimize-');
});
afterAll(() => tmp.remove());

interface Row {
  number: number;
  params: string;
  state: string;
  value: number | null;
}

function trialsOf(storage: string, study: string): Row[] {
  const db = new Database(storage, { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare('SELECT t.number, t.params, t.state, t.value FROM trials t JOIN studies s ON s.id = t.study_id WHERE s.name = ? ORDER BY t.number')
      .all(study) as Row[];
  } finally {
    db.close();
  }
}

/** Waits until `cond` holds on the study file (an error reading it counts as not yet: the file or table may not be there). */
async function untilDb(what: string, cond: () => boolean, timeoutMs: number): Promise<void> {
  const holds = () => {
    try {
      return cond();
    } catch {
      return false;
    }
  };
  await waitFor(holds, { what, timeout: timeoutMs, interval: 20 });
}

describe('mizan optimize: resume', () => {
  // 14 trials (24 before): each run below stops (or is stopped) at trial 5 to 8, so its resume still
  // reaches TPE's model-based trials (after its 10 random start-up ones), which must match the
  // uninterrupted reference's; each trial more is a backtest of the whole range the suite waits on.
  const TRIALS = 14;
  const args = (storage: string, study: string, trials = TRIALS) => [
    'optimize',
    CONFIG,
    ...SPACE,
    '--trials',
    String(trials),
    '--seed',
    '11',
    '--workers',
    '1',
    '--study',
    study,
    '--storage',
    storage,
  ];
  let reference: Row[];

  beforeAll(async () => {
    const storage = join(tmp.dir, 'reference.sqlite');
    const r = await mizan(args(storage, 'ref'), { timeoutMs: 240_000 });
    expect(r.code, r.all).toBe(0);
    reference = trialsOf(storage, 'ref');
    expect(reference.length).toBe(TRIALS);
  }, 300_000);

  it('Ctrl-C stops after the running trial; the same command resumes and the study holds each trial once', async () => {
    const storage = join(tmp.dir, 'sigint.sqlite');
    const run = startRun(args(storage, 'int'));
    try {
      await run.waitFor(/^trial 6 complete/m, 180_000);
      run.interrupt();
      const r = await run.exited;
      expect(r.code, r.all).toBe(130);
      expect(r.stderr).toMatch(/stopping after the running trials/);
      expect(r.stderr).toMatch(/interrupted; run the same command \(--study int\) to resume/);
    } finally {
      run.kill();
    }
    const before = trialsOf(storage, 'int');
    expect(before.every((t) => t.state !== 'running')).toBe(true);
    expect(before.length).toBeGreaterThanOrEqual(7);
    expect(before.length).toBeLessThan(TRIALS);
    const again = await mizan(args(storage, 'int'), { timeoutMs: 240_000 });
    expect(again.code, again.all).toBe(0);
    expect(again.stderr).toContain(`study int: resumed with ${before.length} finished trial(s)`);
    // The resumed run starts at the next number.
    expect(again.stderr).toMatch(new RegExp(`^trial ${before.length} complete`, 'm'));
    expect(again.stderr).not.toMatch(new RegExp(`^trial ${before.length - 1} `, 'm'));
    const after = trialsOf(storage, 'int');
    expect(after.map((t) => t.number)).toEqual(Array.from({ length: TRIALS }, (_, i) => i));
    // Same seed, one worker: the interrupted study ran exactly the trials of the uninterrupted one.
    expect(after.map((t) => [t.params, t.state, t.value])).toEqual(reference.map((t) => [t.params, t.state, t.value]));
    // mizan study show counts them all, lists the top 3, the importance, and writes the report.
    const html = join(tmp.dir, 'int.html');
    const show = await mizan(['study', 'show', 'int', '--storage', storage, '--top', '3', '--report', html]);
    expect(show.code, show.all).toBe(0);
    expect(show.stdout).toMatch(new RegExp(`^trials: ${TRIALS} \\(complete \\d+, infeasible \\d+, failed \\d+, running 0\\)`, 'm'));
    expect(show.stdout).toMatch(/^top 3:\n.*\n {5}1 .*\n {5}2 .*\n {5}3 .*\nparameter importance/m);
    expect(show.stdout).toMatch(/^ {2}sma\.(fast|slow|fraction) +\d\.\d{3} {2}\(\d+\.\d%\)$/m);
    expect(show.stdout).toContain(`wrote ${html}`);
    expect(readFileSync(html, 'utf8')).toContain('data-chart="heatmap"');
  }, 600_000);

  it('SIGKILL mid-trial: the trial left running is run again (same number and params) and counted once', async () => {
    const storage = join(tmp.dir, 'sigkill.sqlite');
    const run = startRun(args(storage, 'kill'));
    let killedWhileRunning: Row | undefined;
    try {
      await untilDb(
        'trial 5 or later running (then SIGKILL)',
        () => {
          const ts = trialsOf(storage, 'kill');
          const running = ts.find((t) => t.state === 'running');
          if (running && running.number >= 5) {
            run.kill();
            return true;
          }
          return false;
        },
        180_000,
      );
      await run.exited;
    } finally {
      run.kill();
    }
    const before = trialsOf(storage, 'kill');
    killedWhileRunning = before.find((t) => t.state === 'running');
    expect(killedWhileRunning, JSON.stringify(before)).toBeDefined();
    const again = await mizan(args(storage, 'kill'), { timeoutMs: 240_000 });
    expect(again.code, again.all).toBe(0);
    expect(again.stderr).toContain(`re-ran trial(s) ${killedWhileRunning!.number} left running by a stopped process`);
    const after = trialsOf(storage, 'kill');
    expect(after.map((t) => t.number)).toEqual(Array.from({ length: TRIALS }, (_, i) => i));
    expect(after.every((t) => t.state !== 'running')).toBe(true);
    expect(after.find((t) => t.number === killedWhileRunning!.number)!.params).toBe(killedWhileRunning!.params);
    expect(after.map((t) => [t.params, t.state, t.value])).toEqual(reference.map((t) => [t.params, t.state, t.value]));
  }, 600_000);

  it('refuses to run a study another live process is running', async () => {
    const storage = join(tmp.dir, 'busy.sqlite');
    // 24 trials here: the first run must still be running when the second has started up (about a
    // second) and found the study taken.
    const busy = (s: string) => args(s, 'busy', 24);
    const first = startRun(busy(storage));
    try {
      await first.waitFor(/^trial 1 /m, 180_000);
      const second = await mizan(busy(storage), { timeoutMs: 120_000 });
      expect(second.code, second.all).toBe(1);
      expect(second.stderr).toContain(`mizan: study busy is being run by process ${first.pid}: stop it first (or wait for it to finish)`);
      first.interrupt();
      expect((await first.exited).code).toBe(130);
    } finally {
      first.kill();
    }
    // Released on exit: the next run resumes it.
    const third = await mizan(busy(storage), { timeoutMs: 240_000 });
    expect(third.code, third.all).toBe(0);
    expect(trialsOf(storage, 'busy').length).toBe(24);
  }, 600_000);

  it('refuses a study name with a different param space, config, objective or seed', async () => {
    const storage = join(tmp.dir, 'reference.sqlite');
    const base = ['optimize', CONFIG, '--trials', String(TRIALS), '--workers', '1', '--study', 'ref', '--storage', storage];
    const space = await mizan([...base, '--param', 'fast=5..40', '--param', 'slow=20..200', '--param', 'fraction=0.1..1', '--seed', '11']);
    expect(space.code).toBe(1);
    expect(space.stderr).toMatch(/mizan: study ref exists with a different param space \(stored: .*"high":50.*; given: .*"high":40.*\)/);
    const cfg = tmp.file(
      'other.yaml',
      `mode: backtest
strategies:
  - { name: sma, strategy: sma-cross, markets: [BTCUSDT], resolution: "300s", params: { fast: 10, slow: 30, fraction: 0.5 } }
backtest:
  data: [ { symbol: BTCUSDT, file: backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz } ]
  from: 2023-01-03
  to: 2023-02-09
  balances: { USDT: 5000 }
journal: { file: ":memory:" }
logging: { level: warn, pretty: false }
`,
    );
    const config = await mizan(['optimize', cfg, ...SPACE, '--trials', String(TRIALS), '--study', 'ref', '--storage', storage]);
    expect(config.code).toBe(1);
    expect(config.stderr).toMatch(
      /study ref exists with a different config \(stored: .*backtest-sweep\.yaml sha256 \w{12}; given: .*other\.yaml sha256 \w{12}\)/,
    );
    const objective = await mizan([...base, ...SPACE, '--objective', 'return']);
    expect(objective.stderr).toMatch(/study ref exists with a different objective \(stored: sharpe; given: return\)/);
    const seed = await mizan([...base, ...SPACE, '--seed', '12']);
    expect(seed.stderr).toMatch(/study ref exists with a different seed \(stored: 11; given: 12\)/);
    // Nothing was added to the study.
    expect(trialsOf(storage, 'ref').length).toBe(TRIALS);
  }, 120_000);
});

describe('mizan optimize: option errors name the option and the value', () => {
  const cases: [string[], RegExp][] = [
    [['--param', 'fast=5..x'], /--param fast: "5\.\.x" has an upper bound "x" that is not a number/],
    [['--param', 'fast=50..5'], /--param fast: "50\.\.5" needs LOW < HIGH \(got 50 and 5\)/],
    [['--param', 'fast=1..50'], /--param fast: "1\.\.50" goes below the declared minimum 2/],
    [['--param', 'fast=5.5..50'], /--param fast: "5\.5\.\.50" has 5\.5, not a whole number \(fast is declared int\)/],
    [['--param', 'fraction=0..1:log'], /--param fraction: "0\.\.1:log" is on a log scale, which needs LOW > 0 \(got 0\)/],
    [['--param', 'fast=5..50:lin'], /--param fast: "5\.\.50:lin" has "lin" after ":"/],
    [['--param', 'nope=1..2'], /--param nope: sma-cross declares no parameter nope/],
    [['--param', 'fast=5..50', '--sampler', 'cmaes'], /--sampler "cmaes": expected tpe, random or grid/],
    [['--param', 'fast=5..50', '--objective', 'luck'], /--objective "luck": unknown/],
    [['--param', 'fast=5..50', '--trials', '0'], /--trials "0": expected a whole number from 1/],
    [['--param', 'fast=5..50', '--min-trades', '-3'], /--min-trades "-3": expected a whole number >= 0/],
    [['--param', 'fraction=0.1..1', '--sampler', 'grid'], /--param sma\.fraction: .*continuous range: the grid sampler needs a step/],
    [['--param', 'fast=5..50', '--walk-forward', 'train=90d'], /--walk-forward "train=90d": needs train=… and test=…/],
    [['--param', 'fast=5..50', '--walk-forward', 'train=30d,test=10x'], /--walk-forward "train=30d,test=10x": test=10x is not a duration/],
    [
      ['--param', 'fast=5..50', '--walk-forward', 'train=30d,test=30d'],
      /--walk-forward "train=30d,test=30d": no window fits the range .* \(37 days; one window needs train \+ test = 60 days\)/,
    ],
  ];
  it.each(cases)(
    '%j',
    async (extra, re) => {
      const storage = join(tmp.dir, 'errors.sqlite');
      const r = await mizan(['optimize', CONFIG, '--storage', storage, ...extra]);
      expect(r.code, r.all).toBe(1);
      expect(r.stderr).toMatch(re);
      expect(r.stderr).not.toMatch(/^\s+at /m);
    },
    60_000,
  );
});

describe('acceptance: TPE against a grid on sma-cross over the bundled data', () => {
  it('--sampler tpe --trials 60 reaches at least the best sharpe of a 100-point grid (10 fast × 10 slow), for seeds 1, 2 and 3', async () => {
    const storage = join(tmp.dir, 'acceptance.sqlite');
    const grid = await mizan(
      [
        'optimize',
        CONFIG,
        '--param',
        'fast=5..50:5',
        '--param',
        'slow=20..200:20',
        '--sampler',
        'grid',
        '--trials',
        '100',
        '--workers',
        '2',
        '--study',
        'grid',
        '--storage',
        storage,
      ],
      { timeoutMs: 400_000 },
    );
    expect(grid.code, grid.all).toBe(0);
    const best = (rows: Row[]) => Math.max(...rows.filter((r) => r.state === 'complete').map((r) => r.value!));
    const g = trialsOf(storage, 'grid');
    expect(g.length).toBe(100);
    const side: Record<string, { runs: number; best: number }> = { grid: { runs: g.length, best: best(g) } };
    for (const seed of [1, 2, 3]) {
      const tpe = await mizan(
        [
          'optimize',
          CONFIG,
          '--param',
          'fast=5..50',
          '--param',
          'slow=20..200',
          '--sampler',
          'tpe',
          '--trials',
          '60',
          '--seed',
          String(seed),
          '--workers',
          '1',
          '--study',
          `tpe${seed}`,
          '--storage',
          storage,
        ],
        { timeoutMs: 400_000 },
      );
      expect(tpe.code, tpe.all).toBe(0);
      const t = trialsOf(storage, `tpe${seed}`);
      expect(t.length).toBe(60);
      side[`tpe seed ${seed}`] = { runs: t.length, best: best(t) };
    }
    console.log(
      'acceptance (sharpe, higher is better):\n' +
        Object.entries(side)
          .map(([k, v]) => `  ${k.padEnd(11)} ${String(v.runs).padStart(3)} runs  best ${v.best.toFixed(4)}`)
          .join('\n'),
    );
    for (const seed of [1, 2, 3]) expect(side[`tpe seed ${seed}`]!.best).toBeGreaterThanOrEqual(side.grid!.best);
    // Side by side in mizan study list.
    const list = await mizan(['study', 'list', '--storage', storage]);
    expect(list.stdout).toMatch(/^grid {2}100 trials {2}grid {2}sharpe best -?[\d.]+ \(#\d+\)/m);
    for (const seed of [1, 2, 3]) expect(list.stdout).toMatch(new RegExp(`^tpe${seed} {2}60 trials {2}tpe {2}sharpe best -?[\\d.]+ \\(#\\d+\\)`, 'm'));
  }, 900_000);
});

it('the storage directory is created when missing', async () => {
  const storage = join(tmp.dir, 'nested/dir/s.sqlite');
  const r = await mizan(
    ['optimize', CONFIG, '--param', 'fast=5..10', '--param', 'slow=30', '--trials', '2', '--workers', '1', '--seed', '1', '--storage', storage],
    { timeoutMs: 120_000 },
  );
  expect(r.code, r.all).toBe(0);
  expect(existsSync(storage)).toBe(true);
}, 180_000);

describe('mizan optimize: constraints, objectives, grid, workers', () => {
  it('--min-trades and --max-drawdown make trials infeasible (stored with the reason, never best); --objective drawdown is minimised', async () => {
    const storage = join(tmp.dir, 'constraints.sqlite');
    const r = await mizan(
      [
        'optimize',
        CONFIG,
        ...SPACE,
        '--objective',
        'drawdown',
        '--min-trades',
        '45',
        '--max-drawdown',
        '20',
        '--trials',
        '16',
        '--seed',
        '4',
        '--workers',
        '1',
        '--study',
        'c',
        '--storage',
        storage,
      ],
      { timeoutMs: 240_000 },
    );
    expect(r.code, r.all).toBe(0);
    const db = new Database(storage, { readonly: true });
    const rows = db
      .prepare("SELECT t.number, t.state, t.value, t.metrics, t.reason FROM trials t JOIN studies s ON s.id = t.study_id WHERE s.name = 'c' ORDER BY t.number")
      .all() as { number: number; state: string; value: number | null; metrics: string; reason: string | null }[];
    db.close();
    const m = (x: { metrics: string }) => JSON.parse(x.metrics) as { trades?: number; maxDrawdownPct?: number };
    const few = rows.filter((x) => x.state === 'infeasible' && /trades, under --min-trades 45$/.test(x.reason ?? ''));
    const deep = rows.filter((x) => x.state === 'infeasible' && /^max drawdown [\d.]+%, over --max-drawdown 20$/.test(x.reason ?? ''));
    expect(few.length + deep.length).toBeGreaterThan(0);
    for (const x of few) expect(m(x).trades!).toBeLessThan(45);
    for (const x of deep) expect(m(x).maxDrawdownPct!).toBeGreaterThan(20);
    const complete = rows.filter((x) => x.state === 'complete');
    expect(complete.length).toBeGreaterThan(0);
    for (const x of complete) {
      expect(m(x).trades!).toBeGreaterThanOrEqual(45);
      expect(x.value).toBe(m(x).maxDrawdownPct);
      expect(x.value!).toBeLessThanOrEqual(20);
    }
    // The best is the smallest drawdown among the feasible trials, not an infeasible trial's smaller one.
    const best = complete.reduce((a, b) => (b.value! < a.value! ? b : a));
    expect(r.stdout).toContain(`best: trial #${best.number} drawdown `);
    expect(r.stdout).toMatch(/^constraints: trades >= 45, max drawdown <= 20%$/m);
    expect(r.stderr).toMatch(
      /^trial \d+ infeasible drawdown [\d.]+ \| .*\| (\d+ trades, under --min-trades 45|max drawdown [\d.]+%, over --max-drawdown 20)$/m,
    );
  }, 300_000);

  it('the grid runs each point once and stops when exhausted', async () => {
    const storage = join(tmp.dir, 'grid.sqlite');
    const r = await mizan(
      [
        'optimize',
        CONFIG,
        '--param',
        'fast=10..20:10',
        '--param',
        'slow=60,90',
        '--sampler',
        'grid',
        '--trials',
        '10',
        '--workers',
        '2',
        '--study',
        'g',
        '--storage',
        storage,
      ],
      { timeoutMs: 240_000 },
    );
    expect(r.code, r.all).toBe(0);
    expect(r.stderr).toContain('the grid is exhausted: every point has run');
    const rows = trialsOf(storage, 'g');
    expect(rows.map((x) => x.params).sort()).toEqual([
      '{"sma.fast":10,"sma.slow":60}',
      '{"sma.fast":10,"sma.slow":90}',
      '{"sma.fast":20,"sma.slow":60}',
      '{"sma.fast":20,"sma.slow":90}',
    ]);
  }, 300_000);

  it('is reproducible with the same --seed and --workers 2 (batches of two asked from the same history)', async () => {
    const storage = join(tmp.dir, 'workers.sqlite');
    const run = (study: string) =>
      mizan(['optimize', CONFIG, ...SPACE, '--trials', '14', '--seed', '9', '--workers', '2', '--study', study, '--storage', storage], { timeoutMs: 240_000 });
    const a = await run('w2a');
    expect(a.code, a.all).toBe(0);
    expect(a.stderr).toContain('2 worker(s)');
    const b = await run('w2b');
    expect(b.code, b.all).toBe(0);
    const strip = (rows: Row[]) => rows.map((x) => [x.number, x.params, x.state, x.value]);
    expect(strip(trialsOf(storage, 'w2a'))).toEqual(strip(trialsOf(storage, 'w2b')));
    expect(trialsOf(storage, 'w2a').length).toBe(14);
  }, 400_000);
});

it('on a terminal (a pty from script(1)) shows a progress bar with the best so far', async () => {
  if (!existsSync('/usr/bin/script')) expect.fail('/usr/bin/script (util-linux) is missing');
  const storage = join(tmp.dir, 'tty.sqlite');
  const { spawnSync } = await import('node:child_process');
  const cmd = `${JSON.stringify(process.execPath)} bin/mizan.js optimize ${CONFIG} --param fast=5..50 --param slow=60 --trials 4 --workers 1 --seed 1 --study tty --storage ${JSON.stringify(storage)}`;
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.VITEST;
  delete env.VITEST_WORKER_ID;
  delete env.VITEST_POOL_ID;
  delete env.NODE_OPTIONS;
  const r = spawnSync('/usr/bin/script', ['-qec', cmd, '/dev/null'], { cwd: REPO, env, encoding: 'utf8', timeout: 120_000 });
  expect(r.status, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toMatch(/optimize \[[█░]{40}\] 0\/4 trials \| best sharpe n\/a/);
  expect(r.stdout).toMatch(/optimize \[█{40}\] 4\/4 trials \| best sharpe -?[\d.]+ \(#\d\)/);
  // Not the per-trial lines of a pipe.
  expect(r.stdout).not.toMatch(/^trial 0 complete/m);
}, 180_000);
