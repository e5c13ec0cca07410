/**
 * Soak: `npm start`'s paper bot (config/default.yaml: the four example strategies on the embedded
 * simulator replaying backtest/data) as a user runs it, `node bin/mizan.js run <config>`, in a child
 * process for SOAK_MINUTES minutes (default 60). Every 30 s it reads the child's resident set size
 * (/proc/<pid>/status VmRSS) and the size of its journal (the SQLite file with its -wal). At the end
 * the bot is stopped with SIGINT, as Ctrl-C does, and the kernel's own peak (VmHWM) is read first.
 * Reported: the peak RSS (the largest of the samples and VmHWM), the least-squares slope of RSS after
 * the warm-up (MB/h; the warm-up is the first 10 minutes, or the first third of a shorter run), the
 * journal's growth over the same window (MB/h and MB/day), every sample, and whether the targets of
 * issue #33 are met (peak under 250 MB, slope under 10 MB/h).
 * The journal is written to a temporary folder (the config is copied with `journal.file` pointing
 * there), so a soak never touches the checkout's .mizan/paper.sqlite.
 * Writes bench/results/soak.json. Alone: node bin/run-ts.js bench/soak.ts [minutes]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, '..');
const SAMPLE_MS = 30_000;
const TARGET_PEAK_MB = 250;
const TARGET_SLOPE_MB_H = 10;

export interface SoakSample {
  /** Seconds since the child was started. */
  t: number;
  rssMB: number;
  journalMB: number;
  /** The machine's 1-minute load average (/proc/loadavg) when the sample was taken. */
  load1: number;
}

/** Least-squares slope of y against x. */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  if (n < 2) return NaN;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}

/** A kB field of /proc/<pid>/status in MB, or undefined once the process is gone. */
function procStatusMB(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

function fileMB(file: string): number {
  let bytes = 0;
  for (const f of [file, `${file}-wal`]) if (existsSync(f)) bytes += statSync(f).size;
  return bytes / 1024 / 1024;
}

export interface MemSample {
  t: number;
  rssMB: number;
  heapTotalMB: number;
  heapUsedMB: number;
  externalMB: number;
  arrayBuffersMB: number;
}

function readMemory(file: string): MemSample[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as MemSample);
}

const round = (x: number, dp = 1) => (Number.isFinite(x) ? Number(x.toFixed(dp)) : null);

export async function run(minutes = Number(process.env.SOAK_MINUTES ?? 60)): Promise<Record<string, unknown>> {
  if (!(minutes > 0)) throw new RangeError(`SOAK_MINUTES must be a positive number of minutes, got ${process.env.SOAK_MINUTES ?? minutes}`);
  if (!existsSync('/proc/self/status')) throw new Error('the soak reads /proc/<pid>/status: Linux only');
  const dir = mkdtempSync(join(tmpdir(), 'mizan-soak-'));
  const journal = join(dir, 'paper.sqlite');
  const source = readFileSync(join(REPO, 'config/default.yaml'), 'utf8');
  const config = source.replace(/^(\s+file:\s*)\.mizan\/paper\.sqlite\s*$/m, `$1${journal}`);
  if (config === source) throw new Error('config/default.yaml: its journal.file (.mizan/paper.sqlite) was not found to redirect');
  const cfgFile = join(dir, 'default.yaml');
  writeFileSync(cfgFile, config);

  // bench/soak-mem.mjs, preloaded, writes the bot's own process.memoryUsage() every 30 s to memFile.
  const memFile = join(dir, 'memory.jsonl');
  const child = spawn(process.execPath, ['--import', pathToFileURL(join(here, 'soak-mem.mjs')).href, join(REPO, 'bin/mizan.js'), 'run', cfgFile], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MIZAN_SOAK_MEM: memFile },
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start node bin/mizan.js run');
  let out = '';
  let err = '';
  let statusLines = 0;
  child.stdout.on('data', (b: Buffer) => {
    const s = b.toString();
    statusLines += (s.match(/^\S*\[paper /gm) ?? []).length;
    out = (out + s).slice(-20_000);
  });
  child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-20_000)));
  let exited: { code: number | null; signal: string | null } | undefined;
  const exit = new Promise<void>((r) => child.on('exit', (code, signal) => ((exited = { code, signal }), r())));
  const t0 = Date.now();
  const endAt = t0 + minutes * 60_000;
  const samples: SoakSample[] = [];
  let hwm = 0;
  try {
    // The bot is up once it has printed its first status line (every 5 s); a bot that dies or never
    // prints one within 2 minutes fails the bench.
    while (statusLines === 0) {
      if (exited) throw new Error(`the bot exited (${JSON.stringify(exited)}) before its first status line: ${err.slice(-2_000)}`);
      if (Date.now() - t0 > 120_000) throw new Error(`no status line within 2 minutes: ${out.slice(-2_000)} ${err.slice(-2_000)}`);
      await Promise.race([exit, new Promise((r) => setTimeout(r, 200))]);
    }
    for (let next = t0; next <= endAt; next += SAMPLE_MS) {
      const wait = next - Date.now();
      if (wait > 0) await Promise.race([exit, new Promise((r) => setTimeout(r, wait))]);
      if (exited) throw new Error(`the bot exited during the soak (${JSON.stringify(exited)}): ${err.slice(-2_000)}`);
      const rss = procStatusMB(pid, 'VmRSS');
      if (rss === undefined) continue;
      samples.push({
        t: Math.round((Date.now() - t0) / 1000),
        rssMB: round(rss) ?? 0,
        journalMB: round(fileMB(journal), 3) ?? 0,
        load1: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
      });
      const m = samples.length;
      if (m % 10 === 0) process.stdout.write(`soak ${samples[m - 1]!.t}s: rss ${rss.toFixed(1)} MB, journal ${samples[m - 1]!.journalMB} MB\n`);
    }
    hwm = procStatusMB(pid, 'VmHWM') ?? 0;
  } finally {
    if (!exited) child.kill('SIGINT');
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exit;
    clearTimeout(killer);
  }
  const warmupMin = Math.min(10, minutes / 3);
  const after = samples.filter((s) => s.t >= warmupMin * 60);
  const hours = (s: { t: number }) => s.t / 3600;
  const rssSlope = slope(
    after.map(hours),
    after.map((s) => s.rssMB),
  );
  const journalSlope = slope(
    after.map(hours),
    after.map((s) => s.journalMB),
  );
  const peak = Math.max(hwm, ...samples.map((s) => s.rssMB));
  const memory = readMemory(memFile);
  const memAfter = memory.filter((m) => m.t >= warmupMin * 60);
  const memSlope = (k: keyof MemSample) =>
    round(
      slope(
        memAfter.map(hours),
        memAfter.map((m) => m[k]),
      ),
    );
  // RSS minus the V8 heap's committed size: native memory (SQLite's page cache, zlib, Buffers,
  // sockets) and the allocator's free-but-kept pages.
  const nonHeap = memAfter.map((m) => m.rssMB - m.heapTotalMB);
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    command: 'node bin/mizan.js run config/default.yaml (journal.file in a temporary folder)',
    minutes,
    sampleEverySec: SAMPLE_MS / 1000,
    warmupMinutes: round(warmupMin, 2),
    peakRssMB: round(peak),
    peakRssFrom: hwm >= Math.max(...samples.map((s) => s.rssMB)) ? 'VmHWM' : 'samples',
    rssAfterWarmupMB: {
      min: round(Math.min(...after.map((s) => s.rssMB))),
      max: round(Math.max(...after.map((s) => s.rssMB))),
      last: after.at(-1)?.rssMB ?? null,
    },
    rssSlopeMBPerHour: round(rssSlope),
    load1: { mean: round(samples.reduce((a, s) => a + s.load1, 0) / samples.length), max: round(Math.max(...samples.map((s) => s.load1))) },
    journal: {
      finalMB: samples.at(-1)?.journalMB ?? null,
      slopeMBPerHour: round(journalSlope, 2),
      MBPerDay: round(journalSlope * 24),
    },
    targets: { peakRssMB: TARGET_PEAK_MB, slopeMBPerHour: TARGET_SLOPE_MB_H },
    met: { peak: peak < TARGET_PEAK_MB, slope: rssSlope < TARGET_SLOPE_MB_H },
    // From the bot itself (bench/soak-mem.mjs), same window: which part of RSS grows.
    inProcessSlopesMBPerHour: {
      rss: memSlope('rssMB'),
      heapTotal: memSlope('heapTotalMB'),
      heapUsed: memSlope('heapUsedMB'),
      external: memSlope('externalMB'),
      arrayBuffers: memSlope('arrayBuffersMB'),
      rssMinusHeapTotal: round(slope(memAfter.map(hours), nonHeap)),
    },
    botExit: exited ?? null,
    samples,
    memory,
  };
  mkdirSync(join(here, 'results'), { recursive: true });
  writeFileSync(join(here, 'results', 'soak.json'), JSON.stringify(result, null, 2) + '\n');
  rmSync(dir, { recursive: true, force: true });
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = await run(process.argv[2] ? Number(process.argv[2]) : undefined);
  const { samples: _samples, ...rest } = r;
  process.stdout.write(JSON.stringify(rest, null, 2) + '\n');
}
