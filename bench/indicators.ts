/**
 * Benchmark: updates per second of each streaming indicator over a pre-built random walk of candles
 * (plain numbers, no allocation in the timed loop).
 * Run alone: `node bin/run-ts.js bench/indicators.ts`; results go to bench/results/indicators.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sma, Ema, Rma, Wma, RollingStdDev, BollingerBands, Rsi, Atr, Macd, Stochastic, RollingVwap, SessionVwap } from '../src/strategy/indicators/index.js';

export interface IndicatorsBenchResult {
  /** Indicator name -> updates per second (one update = one candle). */
  updatesPerSecond: Record<string, number>;
  candles: number;
  secondsPerIndicator: number;
  machine: { cpus: string; cores: number; node: string; platform: string };
  date: string;
}

const N = 1 << 16; // candles in the pre-built series (cycled)
const MASK = N - 1;

function series(): { h: Float64Array; l: Float64Array; c: Float64Array; v: Float64Array; t: Float64Array } {
  let seed = 12345;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const h = new Float64Array(N);
  const l = new Float64Array(N);
  const c = new Float64Array(N);
  const v = new Float64Array(N);
  const t = new Float64Array(N);
  let p = 6_000_000_000;
  for (let i = 0; i < N; i++) {
    p *= 1 + (rnd() - 0.5) * 0.004;
    c[i] = p;
    h[i] = p * (1 + rnd() * 0.002);
    l[i] = p * (1 - rnd() * 0.002);
    v[i] = rnd() * 3;
    t[i] = i * 60_000;
  }
  return { h, l, c, v, t };
}

function timeLoop(seconds: number, body: (i: number) => void): number {
  for (let i = 0; i < 20_000; i++) body(i & MASK); // warm up the JIT
  const start = process.hrtime.bigint();
  const limit = BigInt(Math.round(seconds * 1e9));
  let count = 0;
  for (;;) {
    for (let j = 0; j < 4096; j++) body(count++ & MASK);
    if (process.hrtime.bigint() - start >= limit) break;
  }
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  return Math.round(count / elapsed);
}

export function run(options: { seconds?: number; outFile?: string } = {}): IndicatorsBenchResult {
  const seconds = options.seconds ?? 0.5;
  const { h, l, c, v, t } = series();
  const close: Record<string, { update(x: number): number }> = {
    'SMA(20)': new Sma(20),
    'EMA(20)': new Ema(20),
    'RMA(14)': new Rma(14),
    'WMA(20)': new Wma(20),
    'StdDev(20)': new RollingStdDev(20),
    'Bollinger(20,2)': new BollingerBands(20),
    'RSI(14)': new Rsi(14),
    'MACD(12,26,9)': new Macd(),
  };
  const updatesPerSecond: Record<string, number> = {};
  for (const [name, ind] of Object.entries(close)) {
    updatesPerSecond[name] = timeLoop(seconds, (i) => ind.update(c[i]!));
  }
  const atr = new Atr(14);
  updatesPerSecond['ATR(14)'] = timeLoop(seconds, (i) => atr.update(h[i]!, l[i]!, c[i]!));
  const sto = new Stochastic();
  updatesPerSecond['Stochastic(14,3)'] = timeLoop(seconds, (i) => sto.update(h[i]!, l[i]!, c[i]!));
  const rv = new RollingVwap(14);
  updatesPerSecond['RollingVWAP(14)'] = timeLoop(seconds, (i) => rv.update(c[i]!, v[i]!));
  // monotone time across the cycled series: add the lap count
  const sv = new SessionVwap({ sessionMs: 86_400_000 });
  let lap = 0;
  updatesPerSecond['SessionVWAP(1d)'] = timeLoop(seconds, (i) => {
    if (i === 0) lap++;
    sv.update(c[i]!, v[i]!, lap * N * 60_000 + t[i]!);
  });
  const result: IndicatorsBenchResult = {
    updatesPerSecond,
    candles: N,
    secondsPerIndicator: seconds,
    machine: { cpus: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version, platform: process.platform },
    date: new Date().toISOString(),
  };
  const outFile = options.outFile ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'results/indicators.json');
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, JSON.stringify(result, null, 2) + '\n');
  return result;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = run();
  process.stdout.write(JSON.stringify(r, null, 2) + '\n');
}
