/**
 * Backtest benchmark: sma-cross through the full pipeline (data file -> columns -> trading core ->
 * risk -> execution -> SimulatedExchange with the candle fill model -> metrics), single thread, on
 * at least 1,000,000 one-minute candles: the bundled real BTC/USDT candles stitched end to end
 * (each copy scaled so it starts at the previous copy's last close). Also the sweep's speed-up on
 * all cores against one. Writes bench/results/backtest.json. Run alone:
 *   node bin/run-ts.js bench/backtest.ts
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseConfig } from '../src/config/load.js';
import { runBacktest } from '../src/backtest/run.js';
import { expandSweep, parseParamRange, runSweep } from '../src/backtest/sweep.js';
import { readCandleColumns } from '../src/market/files/read.js';

const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, '..');
const TARGET = 1_000_000;

function stitch(dir: string): { file: string; rows: number; fromSec: number } {
  const src = readCandleColumns(join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz'));
  const fromSec = Date.parse('2020-01-01T00:00:00Z') / 1000;
  const lines: string[] = ['time,open,high,low,close,volume'];
  let scale = 1;
  let k = 0;
  while (k < TARGET) {
    for (let i = 0; i < src.length && k < TARGET; i++, k++) {
      const f = (x: number) => (x * scale).toFixed(2);
      lines.push(`${fromSec + k * 60},${f(src.open[i]!)},${f(src.high[i]!)},${f(src.low[i]!)},${f(src.close[i]!)},${src.volume[i]!}`);
    }
    scale *= src.open[0]! / src.close[src.length - 1]!;
  }
  const file = join(dir, 'stitched-1m.csv');
  writeFileSync(file, lines.join('\n') + '\n');
  return { file, rows: k, fromSec };
}

function configText(file: string, fromSec: number, rows: number): string {
  return `mode: backtest
strategies:
  - { name: sma, strategy: sma-cross, markets: [BTCUSDT], resolution: "1", params: { fast: 10, slow: 30, fraction: 0.5 } }
backtest:
  data: [ { symbol: BTCUSDT, file: ${JSON.stringify(file)} } ]
  from: ${fromSec + 30 * 60}
  to: ${fromSec + rows * 60}
  balances: { USDT: 10000 }
  slippagePct: 0.05
journal: { file: ":memory:" }
`;
}

export async function run(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'mizan-bench-bt-'));
  const { file, rows, fromSec } = stitch(dir);
  const config = parseConfig(configText(file, fromSec, rows), { baseDir: dir });
  global.gc?.();
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  const res = await runBacktest(config);
  const wallMs = performance.now() - t0;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const candlesPerSec = Math.round(res.candles / (wallMs / 1000));

  // Sweep speed-up: the same 8 runs of the bundled 5-minute config on 1 worker and on all cores.
  const sweepFile = join(REPO, 'config/backtest-sweep.yaml');
  const cwd = process.cwd();
  process.chdir(REPO);
  const { loadConfig } = await import(pathToFileURL(join(REPO, 'src/config/load.ts')).href as string) as typeof import('../src/config/load.js');
  const sweepCfg = await loadConfig(sweepFile);
  const combos = await expandSweep(sweepCfg, [parseParamRange('fast=5..20:5'), parseParamRange('slow=30,40')]);
  const cores = availableParallelism();
  const s1 = performance.now();
  await runSweep(combos, { configFile: sweepFile, workers: 1 });
  const oneMs = performance.now() - s1;
  const sN = performance.now();
  await runSweep(combos, { configFile: sweepFile, workers: cores });
  const allMs = performance.now() - sN;
  process.chdir(cwd);

  const out = {
    candles: res.candles,
    trades: res.result.summary.trades,
    orders: res.result.summary.orders,
    wallMs: Math.round(wallMs),
    candlesPerSec,
    peakRssMB: Math.round(peakRss / 1048576),
    targets: { candlesPerSec: 1_000_000, peakRssMB: 300 },
    met: { candlesPerSec: candlesPerSec >= 1_000_000, peakRss: peakRss / 1048576 < 300 },
    sweep: { runs: combos.length, cores, oneWorkerMs: Math.round(oneMs), allCoresMs: Math.round(allMs), speedup: Number((oneMs / allMs).toFixed(2)) },
    node: process.version,
  };
  mkdirSync(join(here, 'results'), { recursive: true });
  writeFileSync(join(here, 'results', 'backtest.json'), JSON.stringify(out, null, 2) + '\n');
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = await run();
  process.stdout.write(JSON.stringify(r, null, 2) + '\n');
}
