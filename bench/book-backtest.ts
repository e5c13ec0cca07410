/**
 * `npm run bench` → bench/results/book-backtest.json: the order-book backtest's replay speed
 * (docs/book-backtests.md). The bundled config/book-backtest.yaml (the market maker on the bundled
 * hftbacktest capture of Binance spot BTCUSDT, 11 minutes, 32,888 events: 12,986 one-side depth
 * frames of 50 levels and 19,902 trades), run whole in this process `RUNS` times after one warm-up
 * run, and beside it the capture's conversion alone (reading, gunzipping and rebuilding Binance's
 * full book, the events the replay is fed): events per second of each, medians of wall and
 * main-thread CPU time (on a loaded machine `eventsPerCpuS`, by the main thread's CPU time, is the
 * steadier figure). The target is 1,000,000 events a second through the engine and a
 * market-making strategy.
 *
 * Run alone: `node bin/run-ts.js bench/book-backtest.ts`.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { loadConfig } from '../src/config/load.js';
import { runBookBacktest } from '../src/backtest/book/run.js';
import { bookSource } from '../src/backtest/book/sources.js';
import { mainThreadCpuMs } from './backtest.js';

const RUNS = Number(process.env.BENCH_BOOK_RUNS ?? 5);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TARGET_EVENTS_PER_S = 1_000_000;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

async function timed(fn: () => Promise<number>): Promise<{ events: number; wallMs: number; cpuMs: number }> {
  const c0 = mainThreadCpuMs() ?? 0;
  const w0 = performance.now();
  const events = await fn();
  return { events, wallMs: performance.now() - w0, cpuMs: (mainThreadCpuMs() ?? 0) - c0 };
}

export async function run(): Promise<Record<string, unknown>> {
  const config = await loadConfig(join(root, 'config/book-backtest.yaml'));
  const dir = config.backtest!.recordings[0]!.dir;
  const market = config.strategies[0]!.markets[0]!;
  const whole = async (): Promise<number> => (await runBookBacktest(config, {})).events;
  const source = async (): Promise<number> => {
    let n = 0;
    for await (const _ of bookSource('hftbacktest', dir, [market]).events(Infinity)) n++;
    return n;
  };
  const load0 = loadavg()[0]!;
  await whole(); // warm-up: compile, first allocations
  const runs: Awaited<ReturnType<typeof timed>>[] = [];
  const conversions: Awaited<ReturnType<typeof timed>>[] = [];
  for (let i = 0; i < RUNS; i++) {
    conversions.push(await timed(source));
    runs.push(await timed(whole));
  }
  const events = runs[0]!.events;
  const wallMs = median(runs.map((r) => r.wallMs));
  const cpuMs = median(runs.map((r) => r.cpuMs));
  const convWallMs = median(conversions.map((r) => r.wallMs));
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    load: { start: Number(load0.toFixed(2)), end: Number(loadavg()[0]!.toFixed(2)) },
    config: 'config/book-backtest.yaml',
    runs: RUNS,
    events,
    backtest: {
      wallMs: Math.round(wallMs),
      cpuMs: Math.round(cpuMs),
      eventsPerS: Math.round((events / wallMs) * 1000),
      perEventUs: Number(((wallMs * 1000) / events).toFixed(1)),
      eventsPerCpuS: Math.round((events / cpuMs) * 1000),
    },
    conversion: { events: conversions[0]!.events, wallMs: Math.round(convWallMs), eventsPerS: Math.round((conversions[0]!.events / convWallMs) * 1000) },
    target: { eventsPerS: TARGET_EVENTS_PER_S, met: (events / wallMs) * 1000 >= TARGET_EVENTS_PER_S },
    samples: { wallMs: runs.map((r) => Math.round(r.wallMs)), conversionWallMs: conversions.map((r) => Math.round(r.wallMs)) },
  };
  writeFileSync(join(root, 'bench/results/book-backtest.json'), JSON.stringify(result, null, 2) + '\n');
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(JSON.stringify(await run(), null, 2));
