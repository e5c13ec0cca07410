/**
 * Benchmark: 50-level side snapshots applied per second to a local OrderBook, input shaped as the
 * socket.io stream delivers it (price strings, quantity numbers). Also times the exact queries.
 * Run alone: `node bin/run-ts.js bench/market-book.ts`; results go to bench/results/market-book.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../src/core/clock.js';
import { Decimal } from '../src/core/decimal.js';
import { BookTracker } from '../src/market/book-tracker.js';
import { OrderBook } from '../src/market/order-book.js';
import { parseTicks } from '../src/market/fast-parse.js';
import type { RawLevel } from '../src/market/ports.js';

export interface MarketBookBenchResult {
  snapshotsPerSecond: number;
  levelsPerSecond: number;
  levelsPerSnapshot: number;
  snapshots: number;
  /** Same, levels already parsed to Decimal (what the StreamClient emits; instances reused as its cache does). */
  decimalSnapshotsPerSecond: number;
  /** Through BookTracker.applySide: integrity checks, health evaluation and the `book` event. */
  trackedSnapshotsPerSecond: number;
  /**
   * Only parsing the 50 price strings of a side to ticks at scale 2 (parseTicks, what the book's
   * replace does per level), nothing else: the ceiling of the tracked rate while every price is parsed per side.
   */
  parseOnlySnapshotsPerSecond: number;
  /** trackedSnapshotsPerSecond / parseOnlySnapshotsPerSecond: the share of a tracked side that is parsing its prices. */
  parseShareOfTracked: number;
  /** Exact queries after each fresh side (lazy Decimal parse included). */
  walksPerSecond: number;
  midSpreadPerSecond: number;
  /** `loadAverage1m` at the start: other processes on a shared machine depress every number. */
  machine: { cpus: string; cores: number; node: string; platform: string; loadAverage1m: number };
  date: string;
}

const LEVELS = 50;
const VARIANTS = 64;

/** Pre-built side messages (prices drift so each snapshot differs), like `BTCUSDT@buyDepth`. */
export function makeSides(bid: boolean): RawLevel[][] {
  const out: RawLevel[][] = [];
  for (let v = 0; v < VARIANTS; v++) {
    const levels: RawLevel[] = [];
    const base = 62_500 + v * 0.37;
    for (let i = 0; i < LEVELS; i++) {
      const price = bid ? base - 0.5 - i * 1.25 : base + 0.5 + i * 1.25;
      levels.push({ price: price.toFixed(2), quantity: Number((0.000451 + ((i * 7 + v) % 13) * 0.013).toFixed(6)) });
    }
    out.push(levels);
  }
  return out;
}

function timeLoop(seconds: number, body: (i: number) => void): { count: number; elapsed: number } {
  const start = process.hrtime.bigint();
  const limit = BigInt(Math.round(seconds * 1e9));
  let count = 0;
  for (;;) {
    for (let j = 0; j < 1000; j++) body(count++);
    if (process.hrtime.bigint() - start >= limit) break;
  }
  return { count, elapsed: Number(process.hrtime.bigint() - start) / 1e9 };
}

export function run(options: { seconds?: number; outFile?: string } = {}): MarketBookBenchResult {
  const seconds = options.seconds ?? 2;
  const load = Math.round((os.loadavg()[0] ?? 0) * 100) / 100;
  const bids = makeSides(true);
  const asks = makeSides(false);
  const book = new OrderBook('BTCUSDT');
  book.applySide('bid', bids[0] as RawLevel[], 0);
  book.applySide('ask', asks[0] as RawLevel[], 0);
  // Warm-up so the JIT has compiled the hot path.
  timeLoop(0.3, (i) => {
    book.applySide(i & 1 ? 'ask' : 'bid', (i & 1 ? asks : bids)[(i >> 1) % VARIANTS] as RawLevel[], i);
  });
  const apply = timeLoop(seconds, (i) => {
    const r = book.applySide(i & 1 ? 'ask' : 'bid', (i & 1 ? asks : bids)[(i >> 1) % VARIANTS] as RawLevel[], i);
    if (r !== undefined) throw new Error(`bench side refused: ${r.problem} ${r.detail}`);
  });
  const cache = new Map<string, Decimal>();
  const dec = (v: string | number | Decimal): Decimal => {
    const k = String(v);
    let x = cache.get(k);
    if (!x) cache.set(k, (x = new Decimal(k)));
    return x;
  };
  const toDec = (sides: RawLevel[][]) => sides.map((l) => l.map((x) => ({ price: dec(x.price), quantity: dec(x.quantity) })));
  const dBids = toDec(bids);
  const dAsks = toDec(asks);
  const decBook = new OrderBook('BTCUSDT');
  timeLoop(0.2, (i) => decBook.applySide(i & 1 ? 'ask' : 'bid', (i & 1 ? dAsks : dBids)[(i >> 1) % VARIANTS] as RawLevel[], i));
  const decApply = timeLoop(seconds / 2, (i) => {
    decBook.applySide(i & 1 ? 'ask' : 'bid', (i & 1 ? dAsks : dBids)[(i >> 1) % VARIANTS] as RawLevel[], i);
  });
  const clock = new ManualClock(0);
  const tracker = new BookTracker({ clock, depth: { getDepth: () => Promise.reject(new Error('no REST in the benchmark')) } });
  tracker.track('BTCUSDT');
  let events = 0;
  tracker.on('book', () => events++);
  const tracked = timeLoop(seconds / 2, (i) => {
    tracker.applySide('BTCUSDT', i & 1 ? 'ask' : 'bid', (i & 1 ? asks : bids)[(i >> 1) % VARIANTS] as RawLevel[]);
  });
  tracker.stop();
  if (events !== tracked.count) throw new Error(`tracker refused sides: ${events} of ${tracked.count} applied`);
  let parsedSum = 0;
  const parseOnly = timeLoop(seconds / 2, (i) => {
    const side = (i & 1 ? asks : bids)[(i >> 1) % VARIANTS] as RawLevel[];
    for (let k = 0; k < side.length; k++) parsedSum += parseTicks(side[k]!.price as string, 2);
  });
  if (!(parsedSum > 0)) throw new Error('parsing the bench sides gave nothing');
  const walks = timeLoop(seconds / 2, (i) => {
    book.applySide('ask', asks[i % VARIANTS] as RawLevel[], i);
    book.walk('buy', '0.25');
  });
  const mids = timeLoop(seconds / 2, (i) => {
    book.applySide('bid', bids[i % VARIANTS] as RawLevel[], i);
    book.mid();
    book.spreadBps();
  });
  const snapshotsPerSecond = Math.round(apply.count / apply.elapsed);
  const result: MarketBookBenchResult = {
    snapshotsPerSecond,
    levelsPerSecond: snapshotsPerSecond * LEVELS,
    levelsPerSnapshot: LEVELS,
    snapshots: apply.count,
    decimalSnapshotsPerSecond: Math.round(decApply.count / decApply.elapsed),
    trackedSnapshotsPerSecond: Math.round(tracked.count / tracked.elapsed),
    parseOnlySnapshotsPerSecond: Math.round(parseOnly.count / parseOnly.elapsed),
    parseShareOfTracked: Number((tracked.count / tracked.elapsed / (parseOnly.count / parseOnly.elapsed)).toFixed(2)),
    walksPerSecond: Math.round(walks.count / walks.elapsed),
    midSpreadPerSecond: Math.round(mids.count / mids.elapsed),
    machine: {
      cpus: os.cpus()[0]?.model ?? 'unknown',
      cores: os.cpus().length,
      node: process.version,
      platform: process.platform,
      loadAverage1m: load,
    },
    date: new Date().toISOString(),
  };
  const outFile = options.outFile ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'results/market-book.json');
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, JSON.stringify(result, null, 2) + '\n');
  return result;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = run();
  process.stdout.write(JSON.stringify(r, null, 2) + '\n');
}
