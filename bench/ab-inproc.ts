/**
 * In-process A/B of source trees (git worktrees) on the backtest pipeline: every tree's own
 * runBacktest, config parser and strategy loader are imported into ONE process (each tree is its
 * own module graph) and run on the same in-memory candles (bench/backtest.ts's stitch: 1,000,000
 * one-minute candles, sma-cross 10/30, fraction 0.99, fees 0), alternating A B A B after one
 * discarded warm-up run each. With no process start, JIT warm-up or data load in the measure, and
 * the trees taking turns within seconds, it resolves smaller differences than bench/ab.ts on a
 * loaded machine. Main-thread CPU time (/proc) and wall time per run; medians and ranges.
 * `--workload quiet`: rsi-reversion at levels it never reaches instead (no order in 1,000,000
 * candles), where the walk's own cost per candle weighs most.
 *
 *   node --expose-gc bin/run-ts.js bench/ab-inproc.ts [--workload sma|quiet] --rounds 7 --out FILE A=/path/to/old B=.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { stitch } from './backtest.js';

type RunBacktest = typeof import('../src/backtest/run.js').runBacktest;
type ParseConfig = typeof import('../src/config/load.js').parseConfig;
type LoadInstances = typeof import('../src/runtime/strategy-loader.js').loadStrategyInstances;

const FROM_SEC = Date.parse('2020-01-01T00:00:00Z') / 1000;

function mainThreadCpuMs(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

const argv = process.argv.slice(2);
let rounds = 7;
let out: string | undefined;
let workload = 'sma';
const specs: { name: string; dir: string }[] = [];
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]!;
  if (a === '--rounds') rounds = Number(argv[++i]);
  else if (a === '--out') out = resolve(argv[++i]!);
  else if (a === '--workload') workload = argv[++i]!;
  else {
    const m = /^([^=]+)=(.+)$/.exec(a);
    if (!m) throw new Error(`expected NAME=DIR, got ${a}`);
    specs.push({ name: m[1]!, dir: resolve(m[2]!) });
  }
}
if (!(rounds >= 1) || specs.length < 2) throw new Error('usage: bench/ab-inproc.ts [--rounds N] [--out FILE] A=DIR B=DIR ...');

if (workload !== 'sma' && workload !== 'quiet') throw new Error(`--workload: sma or quiet, not ${workload}`);
const cols = stitch();
// sma: the bench's side-by-side run (41,171 orders); quiet: rsi-reversion at levels it never reaches
// (no order at all), so the walk's own cost per candle weighs most.
const instance =
  workload === 'sma'
    ? '{ name: sma, strategy: sma-cross, markets: [BTCUSDT], resolution: "1", params: { fast: 10, slow: 30, fraction: 0.99 } }'
    : '{ name: rsi, strategy: rsi-reversion, markets: [BTCUSDT], resolution: "1", params: { period: 100, oversold: 1, overbought: 99 } }';
const configText = `mode: backtest
strategies:
  - ${instance}
backtest:
  data: [ { symbol: BTCUSDT, file: in-memory.csv } ]
  from: ${FROM_SEC + 30 * 60}
  to: ${FROM_SEC + cols.length * 60}
  balances: { USDT: 100000 }
  fees: { maker: 0, taker: 0 }
journal: { file: ":memory:" }
`;

const trees = [];
for (const s of specs) {
  const imp = async <T>(rel: string) => (await import(pathToFileURL(join(s.dir, rel)).href)) as T;
  const { runBacktest } = await imp<{ runBacktest: RunBacktest }>('src/backtest/run.ts');
  const { parseConfig } = await imp<{ parseConfig: ParseConfig }>('src/config/load.ts');
  const { loadStrategyInstances } = await imp<{ loadStrategyInstances: LoadInstances }>('src/runtime/strategy-loader.ts');
  const config = parseConfig(configText, { baseDir: s.dir });
  const instances = await loadStrategyInstances(config);
  const commit = execFileSync('git', ['-C', s.dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['-C', s.dir, 'status', '--porcelain', '--untracked-files=no', 'src'], { encoding: 'utf8' }).trim() !== '';
  const once = async () => {
    (globalThis as { gc?: () => void }).gc?.();
    const c0 = mainThreadCpuMs();
    const t0 = performance.now();
    const r = await runBacktest(config, { instances, columns: { BTCUSDT: { cols, resSec: 60, source: 'stitched bundled candles' } } });
    return { cpuMs: Math.round(mainThreadCpuMs() - c0), wallMs: Math.round(performance.now() - t0), trades: r.result.summary.trades };
  };
  trees.push({ ...s, commit: dirty ? `${commit}+changes` : commit, once, cpu: [] as number[], wall: [] as number[], trades: new Set<number>() });
}

for (const t of trees) await t.once(); // warm-up, discarded
const loads: number[] = [];
for (let r = 0; r < rounds; r++) {
  loads.push(Number(loadavg()[0]!.toFixed(2)));
  // Alternate the order each round (A B, B A, ...) so neither tree always runs right after the other.
  const order = r % 2 === 0 ? trees : [...trees].reverse();
  for (const t of order) {
    const x = await t.once();
    t.cpu.push(x.cpuMs);
    t.wall.push(x.wallMs);
    t.trades.add(x.trades);
    process.stderr.write(`round ${r + 1}/${rounds} ${t.name} (${t.commit}): ${x.cpuMs} ms CPU, ${x.wallMs} ms wall, ${x.trades} trades\n`);
  }
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const stat = (xs: number[]) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs), each: xs });
const result = {
  what: `in-process A/B: each tree's own runBacktest on the same in-memory 1,000,000 stitched one-minute candles (${workload === 'sma' ? 'sma-cross 10/30, fraction 0.99, fees 0' : 'rsi-reversion period 100 at levels 1/99: no order'}), one discarded warm-up run each, then rounds alternating the trees (order reversed every other round); main-thread CPU ms and wall ms per run`,
  command: `node --expose-gc bin/run-ts.js bench/ab-inproc.ts --workload ${workload} --rounds ${rounds} ${trees.map((t) => `${t.name}=<${t.commit}>`).join(' ')}`,
  date: new Date().toISOString(),
  node: process.version,
  rounds,
  load1mEachRound: loads,
  workload,
  trees: Object.fromEntries(trees.map((t) => [t.name, { commit: t.commit, cpuMs: stat(t.cpu), wallMs: stat(t.wall), trades: [...t.trades] }])),
};
const text = JSON.stringify(result, null, 2) + '\n';
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
}
process.stdout.write(text);
