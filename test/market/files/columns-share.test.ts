import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { allocColumns, shareColumns, trimColumns } from '../../../src/market/files/columns.js';
import { sharedColumns } from '../../../src/backtest/worker-pool.js';

function filled(n: number, capacity: number) {
  const c = allocColumns(capacity);
  for (let i = 0; i < n; i++) {
    c.time[i] = 1_600_000_000 + i * 60;
    c.open[i] = 100 + i;
    c.high[i] = 101 + i;
    c.low[i] = 99 + i;
    c.close[i] = 100.5 + i;
    c.volume[i] = 0.001 * i;
  }
  c.length = n;
  return c;
}

describe('shareColumns', () => {
  it('copies the rows (not the spare capacity) into one SharedArrayBuffer, values unchanged', () => {
    const plain = trimColumns(filled(5, 64));
    const shared = shareColumns(plain);
    const buf = shared.time.buffer;
    expect(buf).toBeInstanceOf(SharedArrayBuffer);
    expect(buf.byteLength).toBe(6 * 5 * 8);
    for (const k of ['time', 'open', 'high', 'low', 'close', 'volume'] as const) {
      expect(shared[k].buffer).toBe(buf);
      expect([...shared[k]]).toEqual([...plain[k]]);
    }
    expect(shared.length).toBe(5);
    // Already shared: the same object back, no second copy.
    expect(shareColumns(shared)).toBe(shared);
  });

  it('serializes to the same bytes as the plain columns (the job queue names candles by their hash)', () => {
    const plain = trimColumns(filled(7, 7));
    const shared = shareColumns(plain);
    expect(Buffer.compare(serialize({ c: shared }), serialize({ c: plain }))).toBe(0);
  });

  it('sharedColumns shares every series of a sweep, its declared resolutions included', () => {
    const cols = trimColumns(filled(3, 8));
    const out = sharedColumns({ BTCUSDT: { cols, resSec: 60, source: 'x.csv', declared: [{ cols, resSec: 60 }] } });
    expect(out.BTCUSDT!.cols.close.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(out.BTCUSDT!.declared![0]!.cols.close.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(out.BTCUSDT!.source).toBe('x.csv');
    expect([...out.BTCUSDT!.cols.close]).toEqual([...cols.close]);
  });
});
