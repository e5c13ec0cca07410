/**
 * A binary cache of candle columns, so a backtest reads each data file's text once: the columns
 * (readCandleColumns' Float64Arrays, bit for bit) are written to the project's cache folder
 * (`.mizan/cache/candles/`, or `$MIZAN_CACHE_DIR/candles/`; never beside the user's data), and the
 * next read maps them back instead of parsing the CSV again.
 *
 * A cache entry is found by the file's absolute path and trusted only while the file is the same:
 * its size, its modification time, and a hash of its first and last 64 KiB (a copy over the file
 * with its time kept is caught by the hash). It keeps the column the volume came from; when that
 * was chosen by the market's base asset (`Volume BTC`: csv.ts), the entry serves that base only. Anything else, a damaged entry, or an entry of another
 * version, is rebuilt from the file. A cache that cannot be written (read-only folder, full disk) is
 * skipped: the columns come from the file as before. `MIZAN_CANDLE_CACHE=off` turns it off.
 *
 * Layout: `MZCOLS01` (8 bytes), the header's byte length (uint32 LE), the header (JSON), zero
 * padding to a multiple of 8, then the six columns (time, open, high, low, close, volume) as
 * Float64 little-endian, `length` values each.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { CandleColumns } from './columns.js';
import { readCandleColumns, type CandleFileFormat, type CandleReadOptions, type ReadColumns } from './read.js';

const MAGIC = 'MZCOLS01';
/** Entries kept: past this many the least recently used are deleted (each use touches its entry). */
const MAX_CACHE_ENTRIES = 64;
const BLOCK = 64 * 1024;
const NAMES = ['time', 'open', 'high', 'low', 'close', 'volume'] as const;

export interface ColumnCacheOptions extends CandleReadOptions {
  /** The cache root (the entries go to `<dir>/candles/`); default `$MIZAN_CACHE_DIR` or `.mizan/cache`. */
  dir?: string;
  /** Off: read the file, write nothing. Default: on unless `MIZAN_CANDLE_CACHE=off`. */
  enabled?: boolean;
}

export type CachedColumns = ReadColumns & { source: 'cache' | 'file' };

interface Header {
  file: string;
  size: number;
  mtimeMs: number;
  head: string;
  tail: string;
  format: CandleFileFormat;
  length: number;
  /** The column the volume was read from (null: none, volume 0). */
  volumeColumn: string | null;
  /** The base asset that chose the volume column (`Volume <BASE>`); null when the choice did not depend on it. */
  volumeBase: string | null;
}

/** The cache folder in use for these options. */
export function columnCacheDir(o: ColumnCacheOptions = {}): string {
  return join(resolve(o.dir ?? process.env.MIZAN_CACHE_DIR ?? '.mizan/cache'), 'candles');
}

function enabled(o: ColumnCacheOptions): boolean {
  return o.enabled ?? !/^(off|0|false|no)$/i.test(process.env.MIZAN_CANDLE_CACHE ?? '');
}

/** sha256 of the file's first and last BLOCK bytes (the whole file when smaller). */
function edgeHashes(file: string, size: number): { head: string; tail: string } {
  const fd = openSync(file, 'r');
  try {
    const read = (pos: number) => {
      const len = Math.min(BLOCK, size - pos);
      const b = Buffer.alloc(len);
      let got = 0;
      while (got < len) {
        const n = readSync(fd, b, got, len - got, pos + got);
        if (n === 0) break;
        got += n;
      }
      return createHash('sha256').update(b.subarray(0, got)).digest('hex');
    };
    return { head: read(0), tail: read(Math.max(0, size - BLOCK)) };
  } finally {
    closeSync(fd);
  }
}

function entryPath(dir: string, file: string): string {
  return join(dir, `${createHash('sha256').update(file).digest('hex').slice(0, 32)}.cols`);
}

/** The entry's columns when its header matches `want` exactly; undefined for anything else. */
function readEntry(path: string, want: Omit<Header, 'format' | 'length' | 'volumeColumn' | 'volumeBase'>, base: string | undefined): ReadColumns | undefined {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch {
    return undefined;
  }
  if (buf.length < 12 || buf.toString('latin1', 0, 8) !== MAGIC) return undefined;
  const hlen = buf.readUInt32LE(8);
  if (12 + hlen > buf.length) return undefined;
  let h: Header;
  try {
    h = JSON.parse(buf.toString('utf8', 12, 12 + hlen)) as Header;
  } catch {
    return undefined;
  }
  if (h.file !== want.file || h.size !== want.size || h.mtimeMs !== want.mtimeMs || h.head !== want.head || h.tail !== want.tail) return undefined;
  // An entry of an older version (no volume column kept), or whose volume column another base chose.
  if (h.volumeColumn === undefined || h.volumeBase === undefined || (h.volumeBase !== null && h.volumeBase !== base)) return undefined;
  const n = h.length;
  const start = align8(12 + hlen);
  if (!Number.isInteger(n) || n < 0 || start + 48 * n !== buf.length) return undefined;
  // Views over the one buffer read (aligned: a large read has its own ArrayBuffer); a copy otherwise.
  const aligned = (buf.byteOffset + start) % 8 === 0;
  const col = (k: number) => {
    const off = start + 8 * n * k;
    return aligned
      ? new Float64Array(buf.buffer, buf.byteOffset + off, n)
      : new Float64Array(buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + off + 8 * n));
  };
  return { length: n, time: col(0), open: col(1), high: col(2), low: col(3), close: col(4), volume: col(5), format: h.format, volumeColumn: h.volumeColumn };
}

/**
 * Make `dir` and its missing parents one level at a time: Node 20's recursive mkdir can retry forever
 * on some ENOENT answers (see store/location.ts). Throws when a level cannot be made.
 */
function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    try {
      if (statSync(d).isDirectory()) break;
      throw new Error(`${d} is not a directory`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(d) === d) throw err;
      missing.unshift(d);
    }
  }
  for (const d of missing) {
    try {
      mkdirSync(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** Mark an entry as just used (its modification time orders the pruning). */
function touch(path: string): void {
  try {
    const now = new Date();
    utimesSync(path, now, now);
  } catch {
    // pruning order only
  }
}

/** Delete the least recently used entries beyond `keep` (and stray temporary files of crashed writers). */
export function prune(dir: string, keep: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const entries: { path: string; used: number }[] = [];
  for (const n of names) {
    const path = join(dir, n);
    try {
      const st = statSync(path);
      if (n.endsWith('.cols')) entries.push({ path, used: st.mtimeMs });
      else if (n.endsWith('.tmp') && Date.now() - st.mtimeMs > 3_600_000) unlinkSync(path);
    } catch {
      // gone meanwhile
    }
  }
  entries.sort((a, b) => b.used - a.used);
  for (const e of entries.slice(keep)) {
    try {
      unlinkSync(e.path);
    } catch {
      // gone meanwhile
    }
  }
}

function align8(n: number): number {
  return (n + 7) & ~7;
}

/** Write an entry (to a temporary name, then renamed: a reader never sees half of one). */
function writeEntry(path: string, h: Header, c: CandleColumns): void {
  const json = Buffer.from(JSON.stringify(h), 'utf8');
  const start = align8(12 + json.length);
  const out = Buffer.alloc(start + 48 * c.length);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(json.length, 8);
  json.copy(out, 12);
  NAMES.forEach((name, k) => {
    const src = c[name];
    Buffer.from(src.buffer, src.byteOffset, 8 * c.length).copy(out, start + 8 * c.length * k);
  });
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, out);
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing was written
    }
    throw err;
  }
}

/**
 * readCandleColumns through the cache: the same columns, bit for bit, from the cache when its entry
 * is of this very file, else from the file (and the entry written). Pipes and devices are read as
 * before, never cached. `source` says which.
 */
export function readCandleColumnsCached(file: string, o: ColumnCacheOptions = {}): CachedColumns {
  const abs = resolve(file);
  let st;
  try {
    st = statSync(abs);
  } catch {
    st = undefined;
  }
  const read: CandleReadOptions = o.base !== undefined ? { base: o.base } : {};
  if (!enabled(o) || !st?.isFile()) return { ...readCandleColumns(file, read), source: 'file' };
  const dir = columnCacheDir(o);
  const path = entryPath(dir, abs);
  const want = { file: abs, size: st.size, mtimeMs: st.mtimeMs, ...edgeHashes(abs, st.size) };
  const hit = readEntry(path, want, o.base);
  if (hit) {
    touch(path);
    return { ...hit, source: 'cache' };
  }
  const cols = readCandleColumns(file, read);
  // The file changed while it was read: nothing is cached (the next read tries again).
  const fd = openSync(abs, 'r');
  let same: boolean;
  try {
    const now = fstatSync(fd);
    same = now.size === st.size && now.mtimeMs === st.mtimeMs;
  } finally {
    closeSync(fd);
  }
  if (same) {
    try {
      makeDirs(dir);
      // Only a column other than `volume` was chosen by the base (Volume <BASE>).
      const byBase = cols.volumeColumn !== null && cols.volumeColumn.toLowerCase() !== 'volume';
      writeEntry(
        path,
        { ...want, format: cols.format, length: cols.length, volumeColumn: cols.volumeColumn, volumeBase: byBase ? (o.base ?? null) : null },
        cols,
      );
      prune(dir, MAX_CACHE_ENTRIES);
    } catch {
      // A cache that cannot be written costs a re-read next time, nothing else.
    }
  }
  return { ...cols, source: 'file' };
}
