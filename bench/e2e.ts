/**
 * End to end, as a user runs it: `node bin/mizan.js backtest <config>` (a whole child process) on
 * 1,000,000 one-minute candles read from a CSV, sma-cross fast 10 slow 30 fraction 0.99, resolution
 * "1", fees 0, 100,000 USDT, against backtesting.py's long-only SmaCross(10, 30) on the same candles
 * (../shared/peers/bt_longonly.py, run with Debian's python3-pandas). The two run alternately,
 * A B A B (absolute times on a shared machine drift by tens of percent), and the median wall time of
 * each, their ratio, both trade counts and each one's peak RSS (/usr/bin/time) are reported.
 * Also measured on their own: process start to the first candle (a probe strategy reads
 * performance.now(), which counts from the process start), beside node's own start in the same
 * environment (a script printing performance.now() first thing: NODE_EXTRA_CA_CERTS alone, set on
 * this machine, costs node ~85 ms before any code runs); reading the 1M-row CSV; the time `mizan
 * backtest` spends after the last candle of the 1M run (result, metrics, breakdowns, summary, exit:
 * a probe beside sma-cross notes its last candle and the process's exit); and the garbage
 * collections of one 1M-candle run (--trace-gc-nvp: counts, bytes promoted, scavenge pauses).
 * And the floor under the 10× target: the same whole process without its orders (noOrders1M).
 * The peer runs only when its folder and python3-pandas are present; the JSON says why when not.
 * Writes bench/results/e2e.json. Alone: node bin/run-ts.js bench/e2e.ts [pairs]
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stitch, writeCandleCsv } from './backtest.js';
import { startBreakdown } from './start-profile.js';
import { readCandleColumns, readCandleColumnsFromText } from '../src/market/files/read.js';

const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, '..');
export const ROWS = 1_000_000;
const FROM_SEC = Date.parse('2020-01-01T00:00:00Z') / 1000;
const PEER_TRADES = 20_586;
const TIME = '/usr/bin/time';
const PYTHON = '/usr/bin/python3';

/** The peers folder: MIZAN_PEERS_DIR, else ../shared/peers next to the checkout (or its parent, for a worktree). */
function peersDir(): string | undefined {
  const candidates = [process.env.MIZAN_PEERS_DIR, resolve(REPO, '../shared/peers'), resolve(REPO, '../../shared/peers')];
  return candidates.find((d): d is string => d !== undefined && existsSync(join(d, 'bt_longonly.py')));
}

function peerStatus(): { dir?: string; missing?: string } {
  const dir = peersDir();
  if (!dir) return { missing: 'the peers folder (../shared/peers with bt_longonly.py; or set MIZAN_PEERS_DIR) is not there' };
  if (!existsSync(PYTHON)) return { missing: `${PYTHON} is not installed` };
  const r = spawnSync(PYTHON, ['-c', 'import pandas'], { encoding: 'utf8' });
  if (r.status !== 0) return { missing: 'python3-pandas is not installed (apt-get install -y python3-pandas)' };
  return { dir };
}

interface ProcRun {
  wallMs: number;
  peakRssMB?: number;
  stdout: string;
  stderr: string;
}

/** Run a whole process and time it; peak RSS from /usr/bin/time -f %M when it is installed. */
function timed(cmd: string, args: string[], env?: NodeJS.ProcessEnv): ProcRun {
  const useTime = existsSync(TIME);
  const t0 = performance.now();
  const r = useTime
    ? spawnSync(TIME, ['-f', 'MAXRSS_KB %M', cmd, ...args], { cwd: REPO, encoding: 'utf8', maxBuffer: 1 << 26, env: env ?? process.env })
    : spawnSync(cmd, args, { cwd: REPO, encoding: 'utf8', maxBuffer: 1 << 26, env: env ?? process.env });
  const wallMs = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status}: ${r.stderr.slice(-2000)}`);
  const m = /MAXRSS_KB (\d+)/.exec(r.stderr);
  return { wallMs: Math.round(wallMs), ...(m ? { peakRssMB: Math.round(Number(m[1]) / 1024) } : {}), stdout: r.stdout, stderr: r.stderr };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The side-by-side run's config: `strategies` (YAML list items) on the 1M-row CSV `csv`, fees 0, 100,000 USDT. */
export function config(csv: string, strategies: string): string {
  return `mode: backtest
strategies:
${strategies}
backtest:
  data: [ { symbol: BTCUSDT, file: ${JSON.stringify(csv)} } ]
  from: ${FROM_SEC}
  to: ${FROM_SEC + ROWS * 60}
  balances: { USDT: 100000 }
  fees: { maker: 0, taker: 0 }
journal: { file: ":memory:" }
logging: { level: warn, pretty: false }
`;
}

export const SMA = '  - { name: sma, strategy: sma-cross, markets: [BTCUSDT], resolution: "1", params: { fast: 10, slow: 30, fraction: 0.99 } }';

/**
 * A TypeScript strategy (importing `mizan`, as a user's does) that prints, at its first candle, the
 * milliseconds since its process started (and the monotonic clock in µs, the clock of V8's CPU
 * profiles); at the exit, the times of its last candle and of the exit.
 */
function writeProbe(dir: string): string {
  const file = join(dir, 'first-candle-probe.ts');
  writeFileSync(
    file,
    // As a user's strategy is written: 'mizan' is the running mizan's package (its compiled build).
    `import { defineStrategy } from 'mizan';
let seen = false;
export default defineStrategy({
  name: 'first-candle-probe',
  description: 'bench: prints the time from process start to its first candle',
  params: {},
  create() {
    return {
      onCandle() {
        last = performance.now();
        if (!seen) { seen = true; process.stderr.write('FIRST_CANDLE_MS ' + last.toFixed(1) + ' MONO_US ' + process.hrtime.bigint() / 1000n + '\\n'); }
      },
    };
  },
});
let last = 0;
process.on('exit', () => process.stderr.write('LAST_CANDLE_MS ' + last.toFixed(1) + ' EXIT_MS ' + performance.now().toFixed(1) + '\\n'));
`,
  );
  return file;
}

/**
 * sma-cross without its orders, as a bundled strategy (plain JavaScript beside the compiled ones): the
 * same two averages, the same two plots and the same position read per candle, and no intent. The
 * same strategy as bench/backtest.ts's in-process floor (smaWatch).
 */
const SMA_WATCH_JS = `import { defineStrategy, Sma } from '../src/index.js';
export default defineStrategy({
  name: 'sma-watch',
  description: 'bench: sma-cross without its orders',
  params: {},
  plots: { fastSma: { pane: 'price' }, slowSma: { pane: 'price' } },
  create(ctx) {
    const fast = new Sma(10);
    const slow = new Sma(30);
    return {
      onCandle(symbol, bar) {
        const f = fast.update(bar.c);
        const s = slow.update(bar.c);
        ctx.plot('fastSma', f, symbol);
        ctx.plot('slowSma', s, symbol);
        if (Number.isNaN(f - s)) return;
        ctx.position(symbol)?.quantity.isZero();
      },
    };
  },
});
`;

/**
 * A copy of the built package in `dir` (bin/, dist/ and package.json; node_modules linked) with
 * sma-watch among its bundled strategies, so `mizan backtest` runs it as it runs sma-cross: no
 * TypeScript loader, no file strategy. The copy has no src/, so bin/mizan.js skips a checkout's
 * build check there, as in an installed package: the with-orders run it is compared to runs from the
 * copy too. The checkout is left as it is.
 */
function packageCopyWithWatch(dir: string): string {
  const pkg = join(dir, 'pkg');
  mkdirSync(pkg);
  cpSync(join(REPO, 'bin'), join(pkg, 'bin'), { recursive: true });
  cpSync(join(REPO, 'dist'), join(pkg, 'dist'), { recursive: true });
  cpSync(join(REPO, 'package.json'), join(pkg, 'package.json'));
  symlinkSync(join(REPO, 'node_modules'), join(pkg, 'node_modules'), 'dir');
  writeFileSync(join(pkg, 'dist/strategies/sma-watch.js'), SMA_WATCH_JS);
  // `mizan backtest` runs from the bundle (dist/bundle/), whose bundled strategies import its own API.
  writeFileSync(join(pkg, 'dist/bundle/strategy-sma-watch.js'), SMA_WATCH_JS.replace("'../src/index.js'", "'./index.js'"));
  return pkg;
}

function mizanTrades(out: string): number {
  const m = /trades (\d+)/.exec(out);
  if (!m) throw new Error(`no trade count in mizan's output: ${out.slice(0, 500)}`);
  return Number(m[1]);
}

export async function run(pairs = Number(process.env.BENCH_E2E_PAIRS ?? 3)): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'mizan-bench-e2e-'));
  try {
    const csv = join(dir, 'BTCUSDT-1m.csv');
    writeCandleCsv(stitch(ROWS), csv);
    const cfg = join(dir, 'sma.yaml');
    writeFileSync(cfg, config(csv, SMA));
    const mizanArgs = [join(REPO, 'bin/mizan.js'), 'backtest', cfg];

    // Reading the 1M-row CSV into columns (in this process: the first read, then the best of 3).
    const readMs = (fn: (file: string) => ReturnType<typeof readCandleColumns>) => {
      const t0 = performance.now();
      const c = fn(csv);
      if (c.length !== ROWS) throw new Error(`read ${c.length} rows, expected ${ROWS}`);
      return Math.round(performance.now() - t0);
    };
    const bytesReads = [readMs(readCandleColumns), readMs(readCandleColumns), readMs(readCandleColumns)];
    const textReads = [readMs(readCandleColumnsFromText), readMs(readCandleColumnsFromText), readMs(readCandleColumnsFromText)];
    // As a backtest reads it: once, in a fresh process (the compiled reader mizan runs, its memory new).
    const readUrl = pathToFileURL(join(REPO, 'dist/src/market/files/read.js')).href;
    const freshReads = [0, 1, 2].map(() => {
      const script = `const { readCandleColumns } = await import(${JSON.stringify(readUrl)}); const t0 = performance.now(); const c = readCandleColumns(${JSON.stringify(csv)}); if (c.length !== ${ROWS}) throw new Error('rows ' + c.length); console.log(Math.round(performance.now() - t0));`;
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`the fresh-process CSV read failed: ${r.stderr}`);
      return Number(r.stdout.trim());
    });

    // Process start to the first candle: a probe strategy alone, on the bundled 5m candles and on the 1M CSV.
    const probe = writeProbe(dir);
    const probeStrategy = `  - { name: probe, strategy: ${JSON.stringify(probe)}, markets: [BTCUSDT], resolution: "1" }`;
    // The same probe as a JavaScript file (its text is JavaScript too).
    const probeJs = probe.replace(/\.ts$/, '.js');
    cpSync(probe, probeJs);
    const firstCandle = (data: string, from: number, to: number, res: string, strategy = probeStrategy, name = `probe-${res}.yaml`) => {
      const f = join(dir, name);
      writeFileSync(
        f,
        config(data, strategy.replace('"1"', `"${res}"`))
          .replace(`from: ${FROM_SEC}`, `from: ${from}`)
          .replace(`to: ${FROM_SEC + ROWS * 60}`, `to: ${to}`),
      );
      const ms: number[] = [];
      for (let i = 0; i < 3; i++) {
        const r = timed(process.execPath, [join(REPO, 'bin/mizan.js'), 'backtest', f]);
        const m = /FIRST_CANDLE_MS ([\d.]+)/.exec(r.stderr);
        if (!m) throw new Error(`the probe printed no first candle: ${r.stderr.slice(-1000)}`);
        ms.push(Number(m[1]));
      }
      return { medianMs: Math.round(median(ms)), eachMs: ms.map(Math.round) };
    };
    const bundled = join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz');
    const startSmall = firstCandle(bundled, Date.parse('2023-01-03T00:00:00Z') / 1000, Date.parse('2023-02-09T00:00:00Z') / 1000, '300s');
    const start1M = firstCandle(csv, FROM_SEC, FROM_SEC + ROWS * 60, '1');
    const startSmallJs = firstCandle(
      bundled,
      Date.parse('2023-01-03T00:00:00Z') / 1000,
      Date.parse('2023-02-09T00:00:00Z') / 1000,
      '300s',
      probeStrategy.replace(JSON.stringify(probe), JSON.stringify(probeJs)),
      'probe-js-300s.yaml',
    );
    // Where that time goes: one more probe process on the bundled file, under V8's CPU profiler.
    const startProf = join(dir, 'start-prof');
    const profiled = timed(process.execPath, ['--cpu-prof', '--cpu-prof-dir', startProf, join(REPO, 'bin/mizan.js'), 'backtest', join(dir, 'probe-300s.yaml')]);
    const profiledFirst = /FIRST_CANDLE_MS ([\d.]+) MONO_US (\d+)/.exec(profiled.stderr);
    if (!profiledFirst) throw new Error(`the profiled probe printed no first candle: ${profiled.stderr.slice(-1000)}`);
    const startWhere = { firstCandleMs: Math.round(Number(profiledFirst[1])), ...startBreakdown(startProf, Number(profiledFirst[2])) };

    // node's own start in this environment: process start to the first line of a script.
    const floorScript = join(dir, 'floor.mjs');
    writeFileSync(floorScript, "process.stdout.write(performance.now().toFixed(1) + '\\n');\n");
    const floors = [0, 1, 2].map(() => Number(timed(process.execPath, [floorScript]).stdout.trim()));

    // After the last candle of the 1M run (sma-cross with the probe beside it: it places no order).
    const afterCfg = join(dir, 'sma-probe.yaml');
    writeFileSync(afterCfg, config(csv, `${SMA}\n${probeStrategy}`));
    const afterRuns = [0, 1].map(() => {
      const r = timed(process.execPath, [join(REPO, 'bin/mizan.js'), 'backtest', afterCfg]);
      const m = /LAST_CANDLE_MS ([\d.]+) EXIT_MS ([\d.]+)/.exec(r.stderr);
      if (!m) throw new Error(`the probe printed no last candle: ${r.stderr.slice(-1000)}`);
      if (mizanTrades(r.stdout) !== PEER_TRADES) throw new Error(`sma-cross beside the probe made ${mizanTrades(r.stdout)} trades`);
      return Math.round(Number(m[2]) - Number(m[1]));
    });

    // The collections of one 1M-candle run (V8's name=value trace: one line per collection).
    // Memory by kind at the run's largest sampled RSS: the same run through the API mizan's CLI calls
    // (loadConfig, runBacktest), sampling process.memoryUsage() at each progress tick (every 50,000
    // candles), with bin/mizan.js's V8 flag; a sample can only come from JavaScript, which the loop
    // leaves only at those ticks.
    const memScript = join(dir, 'memory-by-kind.mjs');
    const api = pathToFileURL(join(REPO, 'dist/src/api/backtest.js')).href;
    writeFileSync(
      memScript,
      `import v8 from 'node:v8';
v8.setFlagsFromString('--no-allocation-site-pretenuring');
const { loadConfig, runBacktest } = await import(${JSON.stringify(api)});
let top = process.memoryUsage();
const run = await runBacktest(await loadConfig(${JSON.stringify(cfg)}), { onProgress: () => { const m = process.memoryUsage(); if (m.rss > top.rss) top = m; } });
process.stdout.write(JSON.stringify({ trades: run.result.summary.trades, top, maxRssKB: process.resourceUsage().maxRSS }) + '\\n');
`,
    );
    const memRun = JSON.parse(timed(process.execPath, [memScript]).stdout.trim().split('\n').pop()!) as {
      trades: number;
      top: NodeJS.MemoryUsage;
      maxRssKB: number;
    };
    const mb = (b: number) => Number((b / 2 ** 20).toFixed(1));
    const memoryByKind = {
      what: 'the 1M-candle run through the API the CLI calls (loadConfig, runBacktest; same V8 flag as bin/mizan.js): process.memoryUsage() at the largest RSS sampled at its progress ticks (every 50,000 candles), MiB: the JavaScript heap V8 holds (total) and uses, ArrayBuffers (the six Float64Array candle columns are candleColumnsMB of them), and the rest of the RSS (code, node itself, the C++ heap, freed pages kept)',
      trades: memRun.trades,
      peakRssMB: mb(memRun.maxRssKB * 1024),
      sampledRssMB: mb(memRun.top.rss),
      heapTotalMB: mb(memRun.top.heapTotal),
      heapUsedMB: mb(memRun.top.heapUsed),
      arrayBuffersMB: mb(memRun.top.arrayBuffers),
      candleColumnsMB: mb(6 * 8 * ROWS),
      restOfRssMB: mb(memRun.top.rss - memRun.top.heapTotal - memRun.top.arrayBuffers),
    };
    const gcRun = timed(process.execPath, ['--trace-gc-nvp', ...mizanArgs]);
    const nvp = gcRun.stdout.split('\n').filter((l) => / gc=\w+ /.test(l));
    const field = (l: string, k: string) => Number(new RegExp(` ${k}=([\\d.]+)`).exec(l)?.[1] ?? 0);
    const scavengeLines = nvp.filter((l) => l.includes(' gc=s '));
    const gc = {
      scavenges: scavengeLines.length,
      markCompacts: nvp.filter((l) => l.includes(' gc=mc ')).length,
      minorMarkSweeps: nvp.filter((l) => l.includes(' gc=mmc ')).length,
      // What the scavenges promoted to the old generation, and their pauses: an object kept through
      // two scavenges is promoted (src/core/churn-map.ts, BACKTEST_RETAINED_ORDERS).
      promotedMB: Number((scavengeLines.reduce((a, l) => a + field(l, 'promoted'), 0) / 1e6).toFixed(1)),
      scavengePauseMs: Math.round(scavengeLines.reduce((a, l) => a + field(l, 'pause'), 0)),
    };

    // A B A B: mizan, then the peer.
    const peer = peerStatus();
    let btCsv: string | undefined;
    if (peer.dir) {
      btCsv = join(dir, 'BTCUSDT-1m-bt.csv');
      const conv = spawnSync(PYTHON, [join(peer.dir, 'to_btpy_csv.py'), csv, btCsv], { encoding: 'utf8' });
      if (conv.status !== 0) throw new Error(`to_btpy_csv.py failed: ${conv.stderr}`);
    }
    // The floor: the same run without its orders, and with them, from a copy of the package.
    const pkg = packageCopyWithWatch(dir);
    const watchCfg = join(dir, 'sma-watch.yaml');
    writeFileSync(watchCfg, config(csv, SMA.replace('strategy: sma-cross', 'strategy: sma-watch').replace(/params: \{[^}]*\}/, 'params: {}')));
    const copyArgs = (c: string) => [join(pkg, 'bin/mizan.js'), 'backtest', c];
    const loadBefore = loadavg()[0]!;
    const a: ProcRun[] = [];
    const b: ProcRun[] = [];
    const withCopy: ProcRun[] = [];
    const without: ProcRun[] = [];
    const peerOut: { trades: number; run_s: number; load_s: number }[] = [];
    for (let i = 0; i < pairs; i++) {
      a.push(timed(process.execPath, mizanArgs));
      withCopy.push(timed(process.execPath, copyArgs(cfg)));
      without.push(timed(process.execPath, copyArgs(watchCfg)));
      if (peer.dir && btCsv) {
        const r = timed(PYTHON, [join(peer.dir, 'bt_longonly.py'), btCsv, '0']);
        b.push(r);
        peerOut.push(JSON.parse(r.stdout.trim().split('\n').pop()!) as { trades: number; run_s: number; load_s: number });
      }
    }
    const mTrades = a.map((r) => mizanTrades(r.stdout));
    const mizan = {
      command: `node bin/mizan.js backtest <config> (sma-cross fast 10 slow 30 fraction 0.99, resolution "1", fees 0, 100,000 USDT, ${ROWS} candles from a CSV)`,
      medianWallMs: median(a.map((r) => r.wallMs)),
      wallMs: a.map((r) => r.wallMs),
      trades: mTrades[0],
      tradesSameEveryRun: mTrades.every((t) => t === mTrades[0]),
      peakRssMB: a.map((r) => r.peakRssMB),
    };
    const peerResult = peer.dir
      ? {
          command: `python3 bt_longonly.py <csv> 0 (backtesting.py SmaCross(10, 30) long-only, commission 0; from ${peer.dir})`,
          medianWallMs: median(b.map((r) => r.wallMs)),
          wallMs: b.map((r) => r.wallMs),
          trades: peerOut[0]!.trades,
          ownRunS: peerOut.map((o) => Number(o.run_s.toFixed(3))),
          ownLoadS: peerOut.map((o) => Number(o.load_s.toFixed(3))),
          peakRssMB: b.map((r) => r.peakRssMB),
        }
      : { skipped: `backtesting.py not run: ${peer.missing}` };
    const ratio = peer.dir ? Number((median(b.map((r) => r.wallMs)) / mizan.medianWallMs).toFixed(2)) : null;
    for (const r of withCopy) if (mizanTrades(r.stdout) !== mTrades[0]) throw new Error(`the package copy's sma-cross made ${mizanTrades(r.stdout)} trades`);
    for (const r of without) if (!/orders 0, trades 0/.test(r.stdout)) throw new Error(`sma-watch ordered: ${r.stdout.slice(0, 300)}`);
    const withMs = median(withCopy.map((r) => r.wallMs));
    const withoutMs = median(without.map((r) => r.wallMs));
    const noOrders = {
      what: `the same whole process without its orders: sma-watch (sma-cross's averages, plots and position read, no intent) in sma-cross's place, and sma-cross itself, both from a copy of the built package (no checkout build check), alternated with the pairs above; speedupWithFreeOrders = the peer's median wall / the no-order median: what mizan would reach if its orders cost nothing`,
      wallMs: without.map((r) => r.wallMs),
      medianWallMs: withoutMs,
      withOrdersWallMs: withCopy.map((r) => r.wallMs),
      withOrdersMedianWallMs: withMs,
      ordersShareOfWall: Number(((withMs - withoutMs) / withMs).toFixed(2)),
      peakRssMB: without.map((r) => r.peakRssMB),
      speedupWithFreeOrders: peer.dir ? Number((median(b.map((r) => r.wallMs)) / withoutMs).toFixed(2)) : null,
    };
    const maxRss = Math.max(...a.map((r) => r.peakRssMB ?? 0));
    const result = {
      what: `whole processes on ${ROWS} one-minute candles (bundled BTC/USDT 5m candles, every other copy reversed, as gen_candles.py), alternating mizan, the package copy with and without orders (noOrders1M), backtesting.py (${pairs} pairs); speedup = peer median wall / mizan median wall`,
      loadAverage1mBefore: Number(loadBefore.toFixed(2)),
      loadAverage1mAfter: Number(loadavg()[0]!.toFixed(2)),
      mizan,
      backtestingPy: peerResult,
      speedup: ratio,
      sameTrades: peer.dir ? mizan.trades === peerResult.trades : mizan.trades === PEER_TRADES,
      noOrders1M: noOrders,
      startToFirstCandle: {
        what: 'process start (performance.timeOrigin) to the first candle reaching a probe strategy (a .ts file; bundled5mJs: the same as a .js file), median of 3 processes (the first compiles the probe with esbuild, the others import the compiled copy from .mizan/cache/strategies/): on the bundled 5m file (10,999 rows, gzip) and on the 1M-row CSV (read included); the targets: under 200 ms for the .js file, under 300 ms for the .ts one, on the bundled file',
        bundled5m: startSmall,
        bundled5mJs: startSmallJs,
        csv1M: start1M,
        where: {
          what: "one more probe process on the bundled file under V8's CPU profiler (which slows it): its samples up to the first onCandle, by what ran (node's own start, before the profiler, is nodeStart below)",
          ...startWhere,
        },
      },
      nodeStart: {
        what: 'node alone in the same environment: process start to the first line of a script (performance.now()), 3 processes; NODE_EXTRA_CA_CERTS (set here) makes node load the CA file before any code runs',
        eachMs: floors.map(Math.round),
        nodeExtraCaCerts: process.env.NODE_EXTRA_CA_CERTS ?? null,
      },
      afterLastCandle1M: {
        what: 'the 1M-candle sma-cross run (20,586 trades) with the probe beside it: from its last candle to the process exit (closing trades, result, metrics, breakdowns, summary, exit), 2 processes',
        eachMs: afterRuns,
      },
      readCsv1M: {
        what: 'readCandleColumns on the 1M-row CSV (55 MB): once in each of 3 fresh processes, as a backtest reads it (the target); and in the bench process, the byte scanner (the one backtests use) and the previous text scanner, 3 reads each',
        freshProcessMs: freshReads,
        medianFreshProcessMs: median(freshReads),
        bytesMs: bytesReads,
        textMs: textReads,
      },
      peakRssMB1M: maxRss || null,
      memoryByKind1M: memoryByKind,
      gc1M: { what: 'garbage collections in one 1M-candle mizan backtest (node --trace-gc-nvp): counts, bytes the scavenges promoted, their pauses', ...gc },
      targets: { speedup: 10, startToFirstCandleJsMs: 200, startToFirstCandleTsMs: 300, readCsv1MMs: 300, peakRssMB: 150 },
      met: {
        speedup: ratio !== null && ratio >= 10,
        startToFirstCandleJs: startSmallJs.medianMs < 200,
        startToFirstCandleTs: startSmall.medianMs < 300,
        readCsv1M: median(freshReads) < 300,
        peakRss: maxRss > 0 && maxRss < 150,
      },
      node: process.version,
    };
    mkdirSync(join(here, 'results'), { recursive: true });
    writeFileSync(join(here, 'results', 'e2e.json'), JSON.stringify(result, null, 2) + '\n');
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = await run(process.argv[2] ? Number(process.argv[2]) : undefined);
  process.stdout.write(JSON.stringify(r, null, 2) + '\n');
}
