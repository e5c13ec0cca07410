/**
 * `npm run bench` → bench/results/candle-cache.json: reading the 1M-row one-minute CSV of the e2e
 * bench as a backtest reads it (market/files/column-cache.ts): parsing the text (readCandleColumns,
 * what every run paid before the cache) against the second read, from the cache (target: under
 * 30 ms). Alternated A B A B in one process, medians of wall and main-thread CPU time.
 *
 * `freshMemoryFloor` is the machine's floor for that second read: allocating as many bytes as the
 * cache entry holds and touching one byte per 4 KiB page, timed in the same alternation. A cached read
 * cannot be faster than putting its columns into new memory, and on a VM whose page faults are slow
 * (about 4 ms per MB here) that alone is most of it. `glibcTunables` records GLIBC_TUNABLES (with
 * `glibc.malloc.hugetlb=1` large buffers get transparent huge pages: far fewer faults).
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCandleColumnsCached } from '../src/market/files/column-cache.js';
import { readCandleColumns } from '../src/market/files/read.js';
import { mainThreadCpuMs, stitch, writeCandleCsv } from './backtest.js';

const ROWS = 1_000_000;
const PAIRS = Number(process.env.BENCH_CACHE_PAIRS ?? 7);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** Allocate `bytes` of new memory and touch every page of it (what the kernel does for a fresh read). */
function touchFresh(bytes: number): { length: number } {
  const b = Buffer.allocUnsafeSlow(bytes);
  for (let i = 0; i < bytes; i += 4096) b[i] = 1;
  return { length: ROWS };
}

function timed(fn: () => { length: number }): { wallMs: number; cpuMs: number } {
  const c0 = mainThreadCpuMs() ?? 0;
  const w0 = performance.now();
  const r = fn();
  const wallMs = performance.now() - w0;
  const cpuMs = (mainThreadCpuMs() ?? 0) - c0;
  if (r.length !== ROWS) throw new Error(`read ${r.length} rows, expected ${ROWS}`);
  return { wallMs, cpuMs };
}

export async function run(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'mizan-bench-cache-'));
  try {
    const csv = join(dir, 'BTCUSDT-1m.csv');
    writeCandleCsv(stitch(ROWS), csv);
    const cache = { dir: join(dir, 'cache'), enabled: true };
    const miss = timed(() => readCandleColumnsCached(csv, cache));
    const text: { wallMs: number; cpuMs: number }[] = [];
    const hit: { wallMs: number; cpuMs: number }[] = [];
    const floor: { wallMs: number; cpuMs: number }[] = [];
    const entryBytes = 48 * ROWS;
    for (let i = 0; i < PAIRS; i++) {
      floor.push(timed(() => touchFresh(entryBytes)));
      text.push(timed(() => readCandleColumns(csv)));
      hit.push(
        timed(() => {
          const r = readCandleColumnsCached(csv, cache);
          if (r.source !== 'cache') throw new Error('the second read did not come from the cache');
          return r;
        }),
      );
    }
    const out = {
      date: new Date().toISOString(),
      node: process.version,
      load: +loadavg()[0]!.toFixed(2),
      rows: ROWS,
      csvMB: +(statSync(csv).size / 1048576).toFixed(1),
      pairs: PAIRS,
      firstReadWithCacheWriteMs: +miss.wallMs.toFixed(1),
      parseCsv: { wallMsMedian: +median(text.map((t) => t.wallMs)).toFixed(1), cpuMsMedian: +median(text.map((t) => t.cpuMs)).toFixed(1) },
      fromCache: { wallMsMedian: +median(hit.map((t) => t.wallMs)).toFixed(1), cpuMsMedian: +median(hit.map((t) => t.cpuMs)).toFixed(1) },
      freshMemoryFloor: {
        mb: +(entryBytes / 1048576).toFixed(1),
        wallMsMedian: +median(floor.map((t) => t.wallMs)).toFixed(1),
        cpuMsMedian: +median(floor.map((t) => t.cpuMs)).toFixed(1),
      },
      glibcTunables: process.env.GLIBC_TUNABLES ?? null,
      target: { fromCacheWallMs: 30 },
    };
    const result = { ...out, met: out.fromCache.wallMsMedian < 30 };
    writeFileSync(join(import.meta.dirname, 'results', 'candle-cache.json'), JSON.stringify(result, null, 2) + '\n');
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(JSON.stringify(await run(), null, 2) + '\n');
}
