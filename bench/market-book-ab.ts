/**
 * A/B of the tracked side rate (bench/market-book.ts's `trackedSnapshotsPerSecond`) between this
 * checkout and another one, alternated in one process so both see the same machine load:
 * `node bin/run-ts.js bench/market-book-ab.ts /path/to/other/checkout [rounds] [seconds]`.
 * Prints each round and the medians as JSON.
 */
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ManualClock } from '../src/core/clock.js';
import * as ours from '../src/market/book-tracker.js';
import type { RawLevel } from '../src/market/ports.js';
import { makeSides } from './market-book.js';

type TrackerModule = typeof ours;

function rate(mod: TrackerModule, bids: RawLevel[][], asks: RawLevel[][], seconds: number): number {
  const tracker = new mod.BookTracker({ clock: new ManualClock(0), depth: { getDepth: () => Promise.reject(new Error('no REST')) } });
  tracker.track('BTCUSDT');
  let applied = 0;
  tracker.on('book', () => applied++);
  const start = process.hrtime.bigint();
  const limit = BigInt(Math.round(seconds * 1e9));
  let count = 0;
  for (;;) {
    for (let j = 0; j < 1000; j++, count++) {
      tracker.applySide('BTCUSDT', count & 1 ? 'ask' : 'bid', (count & 1 ? asks : bids)[(count >> 1) % bids.length] as RawLevel[]);
    }
    if (process.hrtime.bigint() - start >= limit) break;
  }
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  tracker.stop();
  if (applied !== count) throw new Error(`sides refused: ${count - applied}`);
  return Math.round(count / elapsed);
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : Math.round(((s[m - 1] as number) + (s[m] as number)) / 2);
};

const other = process.argv[2];
if (!other) throw new Error('usage: market-book-ab.ts <other checkout> [rounds] [seconds]');
const rounds = Number(process.argv[3] ?? 7);
const seconds = Number(process.argv[4] ?? 1);
const theirs = (await import(pathToFileURL(path.resolve(other, 'src/market/book-tracker.ts')).href)) as TrackerModule;
const bids = makeSides(true);
const asks = makeSides(false);
rate(ours, bids, asks, 0.3);
rate(theirs, bids, asks, 0.3);
const a: number[] = [];
const b: number[] = [];
const loads: number[] = [];
for (let r = 0; r < rounds; r++) {
  loads.push(os.loadavg()[0] ?? 0);
  // Alternate which goes first so neither always runs right after the other's garbage.
  if (r & 1) {
    b.push(rate(theirs, bids, asks, seconds));
    a.push(rate(ours, bids, asks, seconds));
  } else {
    a.push(rate(ours, bids, asks, seconds));
    b.push(rate(theirs, bids, asks, seconds));
  }
  process.stderr.write(`round ${r + 1}: this ${a[r]}/s, other ${b[r]}/s, load ${loads[r]?.toFixed(2)}\n`);
}
process.stdout.write(
  JSON.stringify(
    {
      thisMedian: median(a),
      otherMedian: median(b),
      ratio: Number((median(a) / median(b)).toFixed(2)),
      this: a,
      other: b,
      loadAverage1m: loads.map((l) => Number(l.toFixed(2))),
      node: process.version,
    },
    null,
    2,
  ) + '\n',
);
