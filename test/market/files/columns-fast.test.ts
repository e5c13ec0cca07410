import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { candlesToColumns, columnsToCandles, readCandleColumns, readCandles } from '../../../src/market/files/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const BUNDLED = resolve(here, '../../../backtest/data');

describe('columnar fast path', () => {
  it('reads plain decimals exactly as Number() does, for many shapes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mizan-cols-'));
    let seed = 12345;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
    const vals: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const intPart = String(Math.floor(rnd() * 10 ** Math.floor(rnd() * 9)));
      const fracLen = Math.floor(rnd() * 12);
      const frac = Array.from({ length: fracLen }, () => Math.floor(rnd() * 10)).join('');
      const v = fracLen ? `${intPart}.${frac}` : intPart;
      // Prices must be positive (a zero row is refused); the shapes of zero are in volume tests.
      if (Number(v) > 0) vals.push(v);
    }
    vals.push('0.1', '0.30000000000000004', '123456789012345.6', '1234567890123456789', '.5', '5.');
    const rows = vals.map((v, i) => `${1_600_000_000 + i * 60},${v},${v},${v},${v},${v}`);
    const p = join(dir, 'x.csv');
    writeFileSync(p, `time,open,high,low,close,volume\r\n${rows.join('\r\n')}\r\n`);
    const c = readCandleColumns(p);
    expect(c.format).toBe('bundled');
    expect(c.length).toBe(vals.length);
    const wrong = vals.filter((v, i) => c.open[i] !== Number(v) || c.volume[i] !== Number(v));
    expect(wrong).toEqual([]);
  });

  it('matches the Decimal reader on the bundled 5m file, and converts both ways', () => {
    const f = join(BUNDLED, 'BTCUSDT-5m-freqtrade-2023.csv.gz');
    const dec = readCandles(f);
    const col = readCandleColumns(f);
    expect(col.length).toBe(10999);
    const same = candlesToColumns(dec);
    for (const k of ['time', 'open', 'high', 'low', 'close', 'volume'] as const) expect(col[k]).toEqual(same[k]);
    const back = columnsToCandles(col);
    expect(back[10998]!.close.toFixed()).toBe(dec[10998]!.close.toFixed());
  });

  it('falls back per line for ISO times and still names bad fields', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mizan-cols-'));
    const p = join(dir, 'iso.csv');
    writeFileSync(p, 'Date,Open,High,Low,Close,Volume\n2024-01-01,1,2,0.5,1,3\n1704153600,1,2,0.5,1,3\n2024-01-03,1,2,x,1,3\n');
    expect(() => readCandleColumns(p)).toThrow(/line 4, field low: expected a number, got "x"/);
    for (const bad of ['-', '.', '', '1.2.3', '--1']) {
      writeFileSync(p, `time,open,high,low,close,volume\n1704153600,1,2,0.5,1,${bad}\n`);
      expect(() => readCandleColumns(p)).toThrow(/line 2, field volume: expected a number/);
    }
  });
});
