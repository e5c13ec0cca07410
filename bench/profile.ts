/**
 * Where the time of `mizan backtest` goes on the 1M-candle side-by-side run (sma-cross 10/30,
 * fraction 0.99, fees 0, 20,586 trades: bench/e2e.ts's run), from V8's CPU profile of the whole
 * process (`node --cpu-prof bin/mizan.js backtest …`): the inclusive time of each part of the
 * pipeline (a sample counts for every part on its stack, so parts nest), decimal.js's own time
 * across all of it, the garbage collector, and the functions with the most self time.
 * Writes bench/results/profile.json. Alone: node bin/run-ts.js bench/profile.ts
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stitch, writeCandleCsv } from './backtest.js';
import { config, ROWS, SMA } from './e2e.js';

const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, '..');

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  startTime: number;
  endTime: number;
}

/** The parts of the pipeline, each a function (name and the end of its file's path) whose inclusive time is its time. */
const PARTS: { part: string; fn: string; file: string }[] = [
  { part: 'reading the CSV (1M rows)', fn: 'readCandleColumns', file: 'src/market/files/read.js' },
  { part: 'the candle loop', fn: 'steps', file: 'src/backtest/walk.js' },
  { part: '  the strategy (sma-cross onCandle)', fn: 'onCandle', file: 'strategies/sma-cross.js' },
  { part: '  the risk check of the intents', fn: 'decide', file: 'src/kernel/trading-core.js' },
  { part: '  placing the orders (execution engine → backtest venue → simulator, fills booked inside)', fn: 'submitOrder', file: 'src/execution/engine.js' },
  { part: '    the simulator matching and settling', fn: 'place', file: 'src/sim/spot-engine.js' },
  { part: '    order events to the execution engine (and the fills they carry)', fn: 'flush', file: 'src/sim/exchange.js' },
  { part: '    booking the fills (trades, portfolio)', fn: 'onFill', file: 'src/kernel/trading-core.js' },
  { part: '  the equity curve', fn: 'refresh', file: 'src/backtest/equity-value.js' },
  { part: 'the result (metrics, breakdowns, summary)', fn: 'buildResult', file: 'src/backtest/result.js' },
];

export function breakdown(p: Profile): Record<string, unknown> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const counts = new Map<number, number>();
  for (const s of p.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
  const msPer = (p.endTime - p.startTime) / 1000 / p.samples.length;
  const partMs = new Array<number>(PARTS.length).fill(0);
  const self = new Map<string, number>();
  let decimalSelf = 0;
  let gc = 0;
  let modules = 0;
  for (const [id, c] of counts) {
    const leaf = byId.get(id)!;
    const k = `${leaf.callFrame.functionName || '(anonymous)'} ${leaf.callFrame.url.replace(/^.*\/(src|strategies|node_modules)\//, '$1/')}:${leaf.callFrame.lineNumber + 1}`;
    self.set(k, (self.get(k) ?? 0) + c);
    if (leaf.callFrame.url.includes('/decimal.js/')) decimalSelf += c;
    if (leaf.callFrame.functionName === '(garbage collector)') gc += c;
    const hit = new Array<boolean>(PARTS.length).fill(false);
    let loading = false;
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) {
      const n = byId.get(x)!;
      if (n.callFrame.url.startsWith('node:internal/modules/')) loading = true;
      PARTS.forEach((part, i) => {
        if (!hit[i] && n.callFrame.functionName === part.fn && n.callFrame.url.endsWith(part.file)) hit[i] = true;
      });
    }
    hit.forEach((h, i) => h && (partMs[i]! += c));
    if (loading) modules += c;
  }
  const ms = (c: number) => Math.round(c * msPer);
  const total = p.samples.length;
  const pct = (c: number) => Number(((100 * c) / total).toFixed(1));
  return {
    profiledMs: ms(total),
    parts: PARTS.map((part, i) => ({ part: part.part, ms: ms(partMs[i]!), pct: pct(partMs[i]!) })),
    decimalJsSelf: { ms: ms(decimalSelf), pct: pct(decimalSelf) },
    garbageCollector: { ms: ms(gc), pct: pct(gc) },
    loadingModules: { ms: ms(modules), pct: pct(modules) },
    topSelf: [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([fn, c]) => ({ fn, ms: ms(c) })),
  };
}

export async function run(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'mizan-bench-profile-'));
  try {
    const csv = join(dir, 'BTCUSDT-1m.csv');
    writeCandleCsv(stitch(ROWS), csv);
    const cfg = join(dir, 'sma.yaml');
    writeFileSync(cfg, config(csv, SMA));
    const profDir = join(dir, 'prof');
    const load0 = loadavg()[0]!;
    const r = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, join(REPO, 'bin/mizan.js'), 'backtest', cfg], {
      cwd: REPO,
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    if (r.status !== 0) throw new Error(`mizan backtest exited with ${r.status}: ${r.stderr.slice(-2000)}`);
    const trades = Number(/trades (\d+)/.exec(r.stdout)?.[1]);
    // The main thread's profile is the largest (a loader thread may write its own).
    const files = readdirSync(profDir).map((f) => join(profDir, f));
    const main = files.map((f) => readFileSync(f, 'utf8')).sort((a, b) => b.length - a.length)[0]!;
    const out = {
      what: `CPU profile of the whole \`mizan backtest\` process on ${ROWS} one-minute candles (sma-cross 10/30, fraction 0.99, fees 0: ${trades} trades); parts are inclusive (a sample counts for every part on its stack), the profiler adds some time`,
      loadAverage1m: [Number(load0.toFixed(2)), Number(loadavg()[0]!.toFixed(2))],
      trades,
      ...breakdown(JSON.parse(main) as Profile),
    };
    writeFileSync(join(here, 'results', 'profile.json'), JSON.stringify(out, null, 2) + '\n');
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
}
