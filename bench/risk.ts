/**
 * Benchmark: one full risk check per intent with every rule on (trading state and a cooldown lock,
 * market limits with price rounding and fraction sizing, price sanity against the mid, exposure with
 * open-order, position-value and capital limits, balance reservation, order rate, margin limits), on
 * a mix of limit buys, limit sells and market buys. Each passed intent's reservation is released
 * right after, as the executor would when the order ends. Warm-up first; median and p99 of single
 * checks timed with process.hrtime.bigint.
 * Run alone: `node bin/run-ts.js bench/risk.ts`; results go to bench/results/risk.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../src/core/clock.js';
import { d } from '../src/core/decimal.js';
import type { Intent } from '../src/core/intents.js';
import type { BookLevel } from '../src/core/types/market.js';
import { RiskEngine } from '../src/risk/engine.js';
import type { RiskBook, RiskMarket } from '../src/risk/ports.js';

export interface RiskBenchResult {
  checks: number;
  medianUs: number;
  p99Us: number;
  meanUs: number;
  passed: number;
  denied: number;
  targetMedianUs: number;
  machine: { cpus: string; cores: number; node: string; platform: string };
  date: string;
}

const market: RiskMarket = {
  symbol: 'BTCUSDT',
  base: 'BTC',
  quote: 'USDT',
  qtyStep: d('0.000001'),
  priceTick: d('0.01'),
  minQty: d('0.00001'),
  maxQty: d('100'),
  minNotional: d('5'),
  makerFee: d('0.001'),
  takerFee: d('0.002'),
};

function levels(start: number, step: number): BookLevel[] {
  return Array.from({ length: 50 }, (_, i) => ({ price: d((start + i * step).toFixed(2)), quantity: d('0.35') }));
}
const asks = levels(60_010, 1.25);
const bids = levels(59_990, -1.25);
const book: RiskBook = {
  bestBid: () => bids[0]!.price,
  bestAsk: () => asks[0]!.price,
  mid: () => bids[0]!.price.plus(asks[0]!.price).div(2),
  bids: () => bids,
  asks: () => asks,
  health: () => ({ healthy: true, reasons: [] }),
};

// The portfolio hands out the records it keeps: no Decimal is parsed per call.
const held = [{ strategy: 'bench', symbol: 'BTCUSDT', quantity: d('0.5'), cost: d('30000') }];
const resting = [{ symbol: 'BTCUSDT', strategy: 'other' }];

function engine(): RiskEngine {
  const clock = new ManualClock(Date.UTC(2025, 0, 6));
  const bal = { USDT: { value: d('1000000'), locked: d('0') }, BTC: { value: d('20'), locked: d('0') } } as const;
  return new RiskEngine({
    clock,
    ports: {
      market: (s) => (s === 'BTCUSDT' ? market : undefined),
      book: () => book,
      balance: (_a, asset) => bal[asset as keyof typeof bal],
      openOrders: () => resting,
      positions: () => held,
      marginPositions: () => [],
    },
    limits: {
      maxPriceDeviationPct: 5,
      maxSlippagePct: 2,
      maxOpenOrders: 50,
      maxOpenOrdersPerMarket: 20,
      maxPositionValue: { market: { BTCUSDT: d('500000') }, asset: { BTC: d('10') }, total: { USDT: d('800000') } },
      maxRiskCoef: d('5'),
      maxTotalLoan: { USDT: d('100000') },
      minCallDistancePct: 5,
      // The bot's real budget would deny almost everything in a tight loop; a wide one keeps every rule running.
      orderRate: { limit: 1_000_000_000, windowMs: 1, reserveForCancels: 4 },
    },
    strategies: { bench: { capital: { USDT: d('900000') }, maxOpenOrders: 40 } },
    protections: { dailyLossLimitPct: 5, maxDrawdownPct: 10, cooldown: { losingTrades: 3, minutes: 30 } },
  });
}

function intents(): Intent[] {
  const out: Intent[] = [];
  for (let i = 0; i < 64; i++) {
    const px = d((59_800 + (i % 16) * 25.003).toFixed(3));
    if (i % 4 === 0)
      out.push({
        kind: 'order',
        strategy: 'bench',
        symbol: 'BTCUSDT',
        side: 'SELL',
        type: 'LIMIT',
        size: { kind: 'base', quantity: d('0.0123456') },
        price: px,
      });
    else if (i % 4 === 1)
      out.push({ kind: 'order', strategy: 'bench', symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', size: { kind: 'base', quantity: d('0.25') } });
    else if (i % 4 === 2)
      out.push({ kind: 'order', strategy: 'bench', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', size: { kind: 'fraction', fraction: 0.01 }, price: px });
    else out.push({ kind: 'order', strategy: 'bench', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', size: { kind: 'quote', amount: d('750.5') }, price: px });
  }
  return out;
}

/** Measures and writes bench/results/risk.json (alone or from `npm run bench`). */
export function run(iterations = 50_000, warmup = 10_000): RiskBenchResult {
  const r = measure(iterations, warmup);
  const dir = path.join(path.dirname(self), 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'risk.json'), JSON.stringify(r, null, 2) + '\n');
  return r;
}

function measure(iterations: number, warmup: number): RiskBenchResult {
  const e = engine();
  const list = intents();
  let passed = 0;
  let denied = 0;
  const once = (i: number): bigint => {
    const intent = list[i % list.length]!;
    const t0 = process.hrtime.bigint();
    const v = e.check(intent);
    const t1 = process.hrtime.bigint();
    if (v.ok) {
      passed++;
      if (v.reservationId) e.release(v.reservationId);
    } else denied++;
    return t1 - t0;
  };
  for (let i = 0; i < warmup; i++) once(i);
  passed = 0;
  denied = 0;
  const times = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) times[i] = Number(once(i)) / 1000;
  times.sort();
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
  let sum = 0;
  for (const t of times) sum += t;
  const cpus = os.cpus();
  return {
    checks: iterations,
    medianUs: round(q(0.5)),
    p99Us: round(q(0.99)),
    meanUs: round(sum / iterations),
    passed,
    denied,
    targetMedianUs: 20,
    machine: { cpus: cpus[0]?.model ?? 'unknown', cores: cpus.length, node: process.version, platform: `${process.platform}-${process.arch}` },
    date: new Date().toISOString(),
  };
}

const round = (x: number) => Math.round(x * 100) / 100;

const self = fileURLToPath(import.meta.url);
if (process.argv[1] && path.resolve(process.argv[1]) === self) {
  const r = run();
  process.stdout.write(
    `risk check: median ${r.medianUs} µs, p99 ${r.p99Us} µs, mean ${r.meanUs} µs over ${r.checks} checks (${r.passed} passed, ${r.denied} denied)\n`,
  );
}
