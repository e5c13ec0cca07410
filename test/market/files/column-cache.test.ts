/**
 * The candle column cache (market/files/column-cache.ts): the second read of a file comes from the
 * cache, bit for bit the columns of the first; an entry is never trusted once its file changed
 * (size, time, or the first/last block's bytes with the time put back), damaged entries are rebuilt,
 * and the folder keeps at most MAX_CACHE_ENTRIES entries.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { columnCacheDir, prune, readCandleColumnsCached } from '../../../src/market/files/column-cache.js';
import { readCandleColumns } from '../../../src/market/files/read.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-colcache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function csv(name: string, rows: number, close = (i: number) => 100 + i * 0.01): string {
  const lines = ['timestamp,open,high,low,close,volume'];
  for (let i = 0; i < rows; i++) lines.push(`${1_700_000_000 + 60 * i},${close(i)},${close(i) + 1},${close(i) - 1},${close(i)},${(i % 7) + 0.123}`);
  const file = join(dir, name);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const bits = (c: {
  time: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
  length: number;
}) => [c.time, c.open, c.high, c.low, c.close, c.volume].map((a) => Buffer.from(a.buffer, a.byteOffset, 8 * c.length).toString('base64'));

/** Rewrite `file` with `write`, which keeps its size; its times are put back as they were. */
function keepingSizeAndTime(file: string, write: () => void): void {
  const st = statSync(file);
  write();
  expect(statSync(file).size).toBe(st.size);
  utimesSync(file, st.atime, st.mtime);
}

describe('candle column cache', () => {
  it('reads a file once: the second read comes from the cache, the same columns bit for bit', () => {
    const cache = { dir: join(dir, 'c1') };
    const file = csv('a.csv', 5_000);
    const first = readCandleColumnsCached(file, cache);
    expect(first.source).toBe('file');
    const second = readCandleColumnsCached(file, cache);
    expect(second.source).toBe('cache');
    expect(second.format).toBe(first.format);
    expect(second.length).toBe(5_000);
    expect(bits(second)).toEqual(bits(readCandleColumns(file)));
    // In the cache folder, not beside the data.
    expect(readdirSync(columnCacheDir(cache)).filter((n) => n.endsWith('.cols'))).toHaveLength(1);
    expect(readdirSync(dir).filter((n) => n.endsWith('.cols'))).toEqual([]);
  });

  it('keeps the volume column; one chosen by the base asset (Volume <BASE>) serves that base only', () => {
    const cache = { dir: join(dir, 'c-vol') };
    const lines = ['date,open,high,low,close,Volume BTC,Volume USDT'];
    for (let i = 0; i < 50; i++) lines.push(`${1_700_000_000 + 60 * i},100,101,99,100,${i + 0.5},${(i + 0.5) * 100}`);
    const file = join(dir, 'cdd.csv');
    writeFileSync(file, lines.join('\n') + '\n');
    const first = readCandleColumnsCached(file, { ...cache, base: 'BTC' });
    expect([first.source, first.volumeColumn, first.volume[3]]).toEqual(['file', 'Volume BTC', 3.5]);
    const again = readCandleColumnsCached(file, { ...cache, base: 'BTC' });
    expect([again.source, again.volumeColumn, again.volume[3]]).toEqual(['cache', 'Volume BTC', 3.5]);
    // Read as USDTTMN's (base USDT), the other column; as ETH's, or without a base, none matches.
    const usdt = readCandleColumnsCached(file, { ...cache, base: 'USDT' });
    expect([usdt.source, usdt.volumeColumn, usdt.volume[3]]).toEqual(['file', 'Volume USDT', 350]);
    expect(() => readCandleColumnsCached(file, { ...cache, base: 'ETH' })).toThrow(
      /line 1, field volume: volume columns "Volume BTC", "Volume USDT", none of them is the base asset's volume \(Volume ETH\)/,
    );
    expect(() => readCandleColumnsCached(file, cache)).toThrow(/volume columns "Volume BTC", "Volume USDT", and no market was given/);
    // A plain `volume` column serves every base; a file without volume columns reads volume 0.
    const plain = csv('plain-vol.csv', 10);
    readCandleColumnsCached(plain, { ...cache, base: 'BTC' });
    expect(readCandleColumnsCached(plain, { ...cache, base: 'ETH' }).source).toBe('cache');
    const none = join(dir, 'novol.csv');
    writeFileSync(none, 'time,open,high,low,close\n1700000000,1,1,1,1\n');
    expect(readCandleColumnsCached(none, cache)).toMatchObject({ volumeColumn: null, length: 1 });
    expect(readCandleColumnsCached(none, cache)).toMatchObject({ source: 'cache', volumeColumn: null });
  });

  it('is never trusted once the file changed: size, time, or its first or last block with the time put back', () => {
    const cache = { dir: join(dir, 'c2') };
    const file = csv('b.csv', 3_000);
    readCandleColumnsCached(file, cache);
    expect(readCandleColumnsCached(file, cache).source).toBe('cache');

    // More rows: another size.
    csv('b.csv', 3_001);
    const grown = readCandleColumnsCached(file, cache);
    expect([grown.source, grown.length]).toEqual(['file', 3_001]);
    expect(readCandleColumnsCached(file, cache).source).toBe('cache');

    // The same size and time, one price changed in the last block: the hash catches it.
    const st = statSync(file);
    keepingSizeAndTime(file, () => csv('b.csv', 3_001, (i) => (i === 3_000 ? 200 + i * 0.01 : 100 + i * 0.01)));
    const edited = readCandleColumnsCached(file, cache);
    expect(edited.source).toBe('file');
    expect(edited.close[3_000]).toBe(230);
    expect(readCandleColumnsCached(file, cache).close[3_000]).toBe(230);

    // The same size and time, one price changed in the first block: the hash catches it too.
    const text = readFileSync(file, 'utf8');
    expect(text.length).toBeGreaterThan(2 * 64 * 1024);
    keepingSizeAndTime(file, () => writeFileSync(file, text.replace(',0.123\n', ',0.124\n')));
    const headEdited = readCandleColumnsCached(file, cache);
    expect(headEdited.source).toBe('file');
    expect(headEdited.volume[0]).toBe(0.124);
    expect(readCandleColumnsCached(file, cache).volume[0]).toBe(0.124);

    // Only the time changed: read again (then cached under the new time).
    const later = new Date(st.mtimeMs + 5_000);
    utimesSync(file, later, later);
    expect(readCandleColumnsCached(file, cache).source).toBe('file');
    expect(readCandleColumnsCached(file, cache).source).toBe('cache');
  });

  it('rebuilds a damaged entry, and reads without writing when turned off', () => {
    const cache = { dir: join(dir, 'c3') };
    const file = csv('c.csv', 1_000);
    readCandleColumnsCached(file, cache);
    const entry = join(columnCacheDir(cache), readdirSync(columnCacheDir(cache))[0]!);
    truncateSync(entry, 100);
    const r = readCandleColumnsCached(file, cache);
    expect(r.source).toBe('file');
    expect(bits(r)).toEqual(bits(readCandleColumns(file)));
    expect(readCandleColumnsCached(file, cache).source).toBe('cache');

    const off = { dir: join(dir, 'c4'), enabled: false };
    expect(readCandleColumnsCached(file, off).source).toBe('file');
    expect(readCandleColumnsCached(file, off).source).toBe('file');
  });

  it('a cache folder that cannot be made costs a re-read, never the read', () => {
    const blocker = join(dir, 'not-a-dir');
    writeFileSync(blocker, 'x');
    const file = csv('d.csv', 500);
    const r = readCandleColumnsCached(file, { dir: join(blocker, 'cache') });
    expect([r.source, r.length]).toEqual(['file', 500]);
  });

  it('keeps the most recently used entries', () => {
    const cache = { dir: join(dir, 'c5') };
    const files = [0, 1, 2, 3].map((k) => csv(`e${k}.csv`, 100 + k));
    files.forEach((f, k) => {
      readCandleColumnsCached(f, cache);
      const t = new Date(1_700_000_000_000 + k * 1000);
      const entries = readdirSync(columnCacheDir(cache)).map((n) => join(columnCacheDir(cache), n));
      // Make the order of use explicit (the file system's clock may not tick between writes).
      for (const e of entries) if (statSync(e).mtimeMs > Date.now() - 60_000) utimesSync(e, t, t);
    });
    readCandleColumnsCached(files[0]!, cache); // used again: the most recent
    prune(columnCacheDir(cache), 2);
    expect(readdirSync(columnCacheDir(cache))).toHaveLength(2);
    expect(readCandleColumnsCached(files[0]!, cache).source).toBe('cache');
    expect(readCandleColumnsCached(files[1]!, cache).source).toBe('file');
  });
});
