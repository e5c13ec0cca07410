/**
 * The cost of one order on its own, from the strategy's intent to the fill booked in the portfolio:
 * risk check, execution engine, backtest venue, simulated exchange (matching, settlement, events)
 * and the fill's booking (trades, portfolio, equity), in the backtest pipeline of bench/backtest.ts.
 * A bench strategy alternates a market buy and a market sell of 0.01 BTC on every candle of 50,000
 * stitched one-minute candles (fees 0); the same strategy with `trade: false` decides the same way
 * and emits nothing. Per order = (run with orders − run without) / orders placed, both runs in one
 * process, alternated A B A B after one warm-up pair, on the main thread's CPU time (wall time when
 * /proc is not there). Reported: the median of the per-pair estimates, their range, and the
 * target (3 µs, issue #32). Writes bench/results/order-cost.json. Alone: node bin/run-ts.js bench/order-cost.ts [pairs]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseConfig } from '../src/config/load.js';
import { runBacktest } from '../src/backtest/run.js';
import { loadStrategyInstances } from '../src/runtime/strategy-loader.js';
import { mainThreadCpuMs, stitch } from './backtest.js';

const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, '..');
const CANDLES = 50_000;
const TARGET_US = 3;
const FROM_SEC = Date.parse('2020-01-01T00:00:00Z') / 1000;

const STRATEGY = `import { defineStrategy, market, qty, Decimal } from ${JSON.stringify(pathToFileURL(join(REPO, 'src/index.ts')).href)};
const Q = new Decimal('0.01');
export default defineStrategy({
  name: 'flip',
  description: 'bench: a market buy, then a market sell, of 0.01 BTC on alternate candles',
  params: { trade: { type: 'boolean', default: true, description: 'emit the orders (false: decide only)' } },
  create(ctx) {
    let n = 0;
    return {
      onCandle(symbol) {
        const buy = n++ % 2 === 0;
        const intent = market(buy ? 'BUY' : 'SELL', symbol, qty(Q));
        if (ctx.params.trade) return intent;
      },
    };
  },
});
`;

function configText(file: string, trade: boolean): string {
  return `mode: backtest
strategies:
  - { name: flip, strategy: ${JSON.stringify(file)}, markets: [BTCUSDT], resolution: "1", params: { trade: ${trade} } }
backtest:
  data: [ { symbol: BTCUSDT, file: in-memory.csv } ]
  from: ${FROM_SEC}
  to: ${FROM_SEC + CANDLES * 60}
  balances: { USDT: 100000, BTC: 1 }
  fees: { maker: 0, taker: 0 }
journal: { file: ":memory:" }
`;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export async function run(pairs = Number(process.env.BENCH_ORDER_PAIRS ?? 5)): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'mizan-bench-order-'));
  try {
    const file = join(dir, 'flip.mts');
    writeFileSync(file, STRATEGY);
    const cols = stitch(CANDLES);
    const setups = await Promise.all(
      [true, false].map(async (trade) => {
        const config = parseConfig(configText(file, trade), { baseDir: REPO });
        return { config, instances: await loadStrategyInstances(config) };
      }),
    );
    const once = async (k: 0 | 1) => {
      global.gc?.();
      const { config, instances } = setups[k]!;
      const cpu0 = mainThreadCpuMs();
      const t0 = performance.now();
      const res = await runBacktest(config, { instances, columns: { BTCUSDT: { cols, resSec: 60, source: 'stitched bundled candles' } } });
      const wall = performance.now() - t0;
      const cpu1 = mainThreadCpuMs();
      return { ms: cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : wall, orders: res.result.summary.orders, denials: res.result.summary.denials };
    };
    await once(0);
    await once(1); // warm-up pair, not counted
    const load0 = loadavg()[0]!;
    const each: { withMs: number; withoutMs: number; orders: number; perOrderUs: number }[] = [];
    for (let i = 0; i < pairs; i++) {
      const a = await once(0);
      const b = await once(1);
      if (a.denials > 0) throw new Error(`the bench strategy's orders were denied (${a.denials}): the estimate would not be the cost of a filled order`);
      if (b.orders !== 0) throw new Error(`the run without orders placed ${b.orders}`);
      each.push({
        withMs: Math.round(a.ms),
        withoutMs: Math.round(b.ms),
        orders: a.orders,
        perOrderUs: Number((((a.ms - b.ms) * 1000) / a.orders).toFixed(2)),
      });
    }
    const perOrderUs = median(each.map((e) => e.perOrderUs));
    const out = {
      what: `one order from intent to booked fill on its own: (run with a market order on every candle − the same run deciding without ordering) / orders, ${CANDLES} stitched one-minute candles, main-thread CPU time, ${pairs} alternated pairs in one process after a warm-up pair`,
      loadAverage1m: [Number(load0.toFixed(2)), Number(loadavg()[0]!.toFixed(2))],
      orders: each[0]?.orders,
      perOrderUsMedian: perOrderUs,
      perOrderUsRange: [Math.min(...each.map((e) => e.perOrderUs)), Math.max(...each.map((e) => e.perOrderUs))],
      pairs: each,
      targetUs: TARGET_US,
      met: perOrderUs <= TARGET_US,
    };
    writeFileSync(join(here, 'results', 'order-cost.json'), JSON.stringify(out, null, 2) + '\n');
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const pairs = process.argv[2] ? Number(process.argv[2]) : undefined;
  process.stdout.write(`${JSON.stringify(await run(pairs), null, 2)}\n`);
}
