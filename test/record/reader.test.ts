import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { chunkName, type RecordedLine } from '../../src/record/format.js';
import { readGaps, readRecording } from '../../src/record/reader.js';
import { RecordingWriter } from '../../src/record/writer.js';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'mizan-rec-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const H = Date.UTC(2026, 10, 28, 5, 0, 0); // 05:00 UTC
function member(lines: RecordedLine[]): Buffer {
  return gzipSync(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}
async function all(dir: string, opts?: Parameters<typeof readRecording>[1]) {
  const out = [];
  for await (const ev of readRecording(dir, opts)) out.push(ev);
  return out;
}

describe('recording reader', () => {
  it('yields two markets in time order across two hour chunks of several gzip members', async () => {
    const dir = tmp();
    mkdirSync(join(dir, 'BTCUSDT'));
    mkdirSync(join(dir, 'ETHUSDT'));
    const b1 = join(dir, 'BTCUSDT', chunkName(H - 2000));
    const b2 = join(dir, 'BTCUSDT', chunkName(H + 1000));
    expect(b1.endsWith('2026-11-28T04.jsonl.gz')).toBe(true);
    expect(b2.endsWith('2026-11-28T05.jsonl.gz')).toBe(true);
    writeFileSync(b1, member([{ t: H - 2000, k: 'snapshot', src: 'rest', d: { a: 1 } }]));
    appendFileSync(b1, member([{ t: H - 500, k: 'depth', src: 'ws', side: 'buy', d: [1] }]));
    writeFileSync(b2, member([{ t: H + 1000, k: 'trade', src: 'ws', d: { p: '1' } }]));
    writeFileSync(
      join(dir, 'ETHUSDT', chunkName(H - 1000)),
      member([
        { t: H - 1000, k: 'stats', src: 'socketio', d: {} },
        { t: H + 0, k: 'depth', src: 'socketio', side: 'sell', d: [2] },
      ]),
    );
    const evs = await all(dir);
    expect(evs.map((e) => [e.market, e.t - H, e.k])).toEqual([
      ['BTCUSDT', -2000, 'snapshot'],
      ['ETHUSDT', -1000, 'stats'],
      ['BTCUSDT', -500, 'depth'],
      ['ETHUSDT', 0, 'depth'],
      ['BTCUSDT', 1000, 'trade'],
    ]);
    expect(evs[0]!.d).toEqual({ a: 1 });
    expect((await all(dir, { markets: ['BTCUSDT'], from: H - 1000, to: H + 1000 })).map((e) => e.t - H)).toEqual([-500]);
  });

  it('reads chunks larger than one decompressed block whole, in order, merged and within from/to', async () => {
    // ~600 KB of lines per market: the reader takes them a block (64 KiB) at a time, and lines cross blocks.
    const dir = tmp();
    const lines = (market: number, n: number): RecordedLine[] =>
      Array.from({ length: n }, (_, i) => ({
        t: H + i * 2 + market,
        k: 'depth',
        src: 'ws',
        side: 'buy',
        d: [{ price: `${60000 + i}.5`, quantity: 'x'.repeat(i % 300) }],
      }));
    for (const [m, market] of ['BTCUSDT', 'ETHUSDT'].entries()) {
      mkdirSync(join(dir, market));
      writeFileSync(join(dir, market, chunkName(H)), member(lines(m, 4000)));
    }
    const evs = await all(dir);
    expect(evs).toHaveLength(8000);
    expect(evs.every((e, i) => i === 0 || e.t >= evs[i - 1]!.t)).toBe(true);
    expect(evs.filter((e) => e.market === 'ETHUSDT').map((e) => e.t - H)).toEqual(lines(1, 4000).map((l) => l.t - H));
    expect(evs[7999]).toMatchObject({ market: 'ETHUSDT', t: H + 7999, d: [{ price: '63999.5' }] });
    const part = await all(dir, { from: H + 3001, to: H + 5001 });
    expect(part.map((e) => e.t - H)).toEqual(Array.from({ length: 2000 }, (_, i) => 3001 + i));
  });

  it('a bad line past `to` is never read; before it, the events come first, then the error naming it', async () => {
    const dir = tmp();
    mkdirSync(join(dir, 'BTCUSDT'));
    const good = (i: number) => JSON.stringify({ t: H + i, k: 'trade', src: 'ws', d: { p: String(i) } });
    const text = [...Array.from({ length: 10 }, (_, i) => good(i)), '{"t": broken', good(11)].join('\n') + '\n';
    const file = join(dir, 'BTCUSDT', chunkName(H));
    writeFileSync(file, gzipSync(text));
    expect((await all(dir, { to: H + 5 })).map((e) => e.t - H)).toEqual([0, 1, 2, 3, 4]);
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const ev of readRecording(dir)) seen.push(ev.t - H);
      })(),
    ).rejects.toThrow(`${file}:11: not JSON`);
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('drops a gzip member cut short by a killed recorder and keeps what precedes it', async () => {
    const dir = tmp();
    mkdirSync(join(dir, 'BTCUSDT'));
    const f = join(dir, 'BTCUSDT', chunkName(H));
    writeFileSync(f, member([{ t: H, k: 'depth', src: 'ws', d: 1 }]));
    const cut = member([{ t: H + 5, k: 'depth', src: 'ws', d: 2 }]);
    appendFileSync(f, cut.subarray(0, 14));
    expect((await all(dir)).map((e) => e.d)).toEqual([1]);
  });

  it('names the file, line and field of a bad line', async () => {
    const dir = tmp();
    mkdirSync(join(dir, 'BTCUSDT'));
    writeFileSync(join(dir, 'BTCUSDT', chunkName(H)), gzipSync('{"t":1,"k":"bogus","src":"ws"}\n'));
    await expect(all(dir)).rejects.toThrow(/2026-11-28T05\.jsonl\.gz:1: field "k" has unknown value "bogus"/);
  });
});

describe('recording writer', () => {
  it('appends on reopen, and a session without close becomes a killed gap', async () => {
    const dir = tmp();
    let now = H + 10;
    const w1 = await RecordingWriter.open(dir, ['BTCUSDT'], () => now);
    w1.write('BTCUSDT', { t: H + 20, k: 'depth', src: 'ws', side: 'buy', d: [1] });
    w1.flush(); // the process dies here: no close
    const file = join(dir, 'BTCUSDT', chunkName(H));
    const before = readFileSync(file);
    now = H + 5000;
    const w2 = await RecordingWriter.open(dir, ['BTCUSDT'], () => now);
    w2.write('BTCUSDT', { t: H + 5100, k: 'trade', src: 'ws', d: {} });
    w2.close();
    const after = readFileSync(file);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(statSync(file).size).toBeGreaterThan(before.length);
    expect((await all(dir)).map((e) => [e.t - H, e.k])).toEqual([
      [10, 'open'],
      [20, 'depth'],
      [5000, 'gap'],
      [5000, 'open'],
      [5100, 'trade'],
      [5100, 'close'],
    ]);
    expect(await readGaps(dir)).toEqual([{ market: 'BTCUSDT', start: H + 20, end: H + 5000, cause: 'killed' }]);
  });

  it('a session reopened after a clean close records the time between as a stopped gap', async () => {
    // Before: no gap, and a book backtest took the book as healthy through the time nothing was recorded.
    const dir = tmp();
    let now = H + 10;
    const w1 = await RecordingWriter.open(dir, ['BTCUSDT'], () => now);
    w1.write('BTCUSDT', { t: H + 20, k: 'depth', src: 'ws', side: 'buy', d: [1] });
    now = H + 30;
    w1.close();
    now = H + 32_000;
    const w2 = await RecordingWriter.open(dir, ['BTCUSDT'], () => now);
    w2.close();
    expect((await all(dir)).map((e) => [e.t - H, e.k])).toEqual([
      [10, 'open'],
      [20, 'depth'],
      [30, 'close'],
      [32_000, 'gap'],
      [32_000, 'open'],
      [32_000, 'close'],
    ]);
    expect(await readGaps(dir)).toEqual([{ market: 'BTCUSDT', start: H + 30, end: H + 32_000, cause: 'stopped' }]);
  });
});
