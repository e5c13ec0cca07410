import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import {
  BUNDLED_HEADER,
  detectCandleFormat,
  findGaps,
  readBundledMeta,
  readCandleColumns,
  readCandles,
  summarizeGaps,
  writeBundledCandles,
} from '../../../src/market/files/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const DATA = resolve(here, '../../fixtures/data');

describe('bundled format', () => {
  it('round-trips candles exactly, gzipped or not, with its metadata sidecar', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mizan-bundled-'));
    const candles = [
      { time: 1700000000, open: d('61000.01'), high: d('61010'), low: d('60990.5'), close: d('61005'), volume: d('1.23456789') },
      { time: 1700000060, open: d('61005'), high: d('61005'), low: d('61005'), close: d('61005'), volume: d('0') },
    ];
    for (const name of ['a.csv', 'b.csv.gz']) {
      const p = join(dir, name);
      const meta = writeBundledCandles(p, candles, { symbol: 'BTCUSDT', resolutionSec: 60, source: 'test', licence: 'MIT' });
      expect(meta.rows).toBe(2);
      expect(meta.first).toBe('2023-11-14T22:13:20.000Z');
      expect(detectCandleFormat(p)).toBe('bundled');
      const back = readCandles(p);
      expect(back.map((c) => [c.time, c.open.toFixed(), c.low.toFixed(), c.volume.toFixed()])).toEqual([
        [1700000000, '61000.01', '60990.5', '1.23456789'],
        [1700000060, '61005', '61005', '0'],
      ]);
      expect(readBundledMeta(p)?.symbol).toBe('BTCUSDT');
    }
    expect(readFileSync(join(dir, 'a.csv'), 'utf8').split('\n')[0]).toBe(BUNDLED_HEADER);
    expect(readBundledMeta(join(dir, 'none.csv'))).toBeUndefined();
  });

  it('refuses non-integer times when writing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mizan-bundled-'));
    const c = [{ time: 1.5, open: d(1), high: d(1), low: d(1), close: d(1), volume: d(1) }];
    expect(() => writeBundledCandles(join(dir, 'x.csv'), c, { symbol: 'X', resolutionSec: 60, source: 's', licence: 'l' })).toThrow(/integer seconds/);
  });
});

describe('gap detection', () => {
  it('finds the gaps of the freqtrade 1m file (423 one-bar gaps, 78 two-bar gaps, ...)', () => {
    const cols = readCandleColumns(join(DATA, 'freqtrade/UNITTEST_BTC-1m.json'));
    const gaps = findGaps(cols.time, 60);
    const s = summarizeGaps(gaps);
    expect(s.byLength.get(1)).toBe(423);
    expect(s.byLength.get(2)).toBe(78);
    // rows + missing bars = every minute of the span
    const span = (cols.time[cols.length - 1]! - cols.time[0]!) / 60 + 1;
    expect(cols.length + s.missingBars).toBe(span);
    const g = gaps[0]!;
    const idx = Array.from(cols.time).indexOf(g.from - 60);
    expect(cols.time[idx + 1]).toBe(g.to + 60);
  });

  it('finds none in a continuous file and works on Candle objects', () => {
    const c = readCandles(join(DATA, 'freqtrade/orderflow/candles.json'));
    expect(findGaps(c, 300)).toEqual([]);
    expect(findGaps([{ time: 0 }, { time: 60 }, { time: 240 }], 60)).toEqual([{ from: 120, to: 180, missing: 2 }]);
    expect(() => findGaps([], 0)).toThrow(RangeError);
  });

  it('finds the same gaps in a time column as in the same times listed', () => {
    // On the grid, off it (a bar 90 s after the last: one missing), a long hole, a repeated time.
    const times = [0, 60, 240, 330, 360, 360, 3960, 4020, 4050];
    const expected = findGaps(times, 60);
    expect(expected).toEqual([
      { from: 120, to: 180, missing: 2 },
      { from: 300, to: 300, missing: 1 },
      { from: 420, to: 3900, missing: 59 },
    ]);
    expect(findGaps(Float64Array.from(times), 60)).toEqual(expected);
    expect(findGaps(new Float64Array(0), 60)).toEqual([]);
    expect(() => findGaps(new Float64Array(2), 0)).toThrow(RangeError);
  });
});
