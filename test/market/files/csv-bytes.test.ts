import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readCandleColumns, readCandleColumnsFromText, readCandleColumnsInBlocks, readCandles } from '../../../src/market/files/read.js';

const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, '../../..');
const COLS = ['time', 'open', 'high', 'low', 'close', 'volume'] as const;
/** Block sizes for reading a file in pieces: smaller than a line, odd, and a few lines. */
const BLOCKS = [1, 7, 61, 4096];

/** What a reader gives: the arrays (as plain arrays, -0 kept apart from 0) and the format, or the error message. */
function outcome(read: (f: string) => ReturnType<typeof readCandleColumns>, file: string): unknown {
  try {
    const c = read(file);
    return { format: c.format, length: c.length, ...Object.fromEntries(COLS.map((k) => [k, Array.from(c[k]).map((v) => (Object.is(v, -0) ? '-0' : v))])) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

function csvFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...csvFiles(p));
    else if (/\.(csv|txt)(\.gz)?$/i.test(name)) out.push(p);
  }
  return out;
}

describe('byte CSV scanner (readCandleColumns) against the text reader', () => {
  it('gives exactly the same arrays (or the same error) on every bundled and fixture CSV', () => {
    const files = [...csvFiles(join(REPO, 'backtest/data')), ...csvFiles(join(REPO, 'test/fixtures/data'))];
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const want = outcome(readCandleColumnsFromText, f);
      expect({ f, r: outcome(readCandleColumns, f) }).toEqual({ f, r: want });
      expect({ f, r: outcome((x) => readCandleColumnsInBlocks(x, 997), f) }).toEqual({ f, r: want });
    }
    const big = readCandleColumns(join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz'));
    expect(big.length).toBe(10999);
    expect(big.close[10998]).toBe(21925.7);
  });

  const cases: Record<string, string> = {
    'CRLF and a final line without newline':
      'time,open,high,low,close,volume\r\n1704067200,1.5,2,1,1.25,3\r\n1704067260,1.5,2,1,1.25,0\r\n1704067320,1,1,1,1,7',
    'blank and whitespace-only lines': 'time,open,high,low,close,volume\n\n1704067200,1.5,2,1,1.25,3\n   \n\r\n1704067260,1.5,2,1,1.25,0\n\n',
    'a UTF-8 BOM': '\ufefftime,open,high,low,close,volume\n1704067200,1.5,2,1,1.25,3\n',
    'quoted fields and spaces': 'time,open,high,low,close,volume\n"1704067200","1.5", 2 ,1,1.25,3\n1704067260,1.5,2,1,1.25,"0"\n',
    'negative zero volume, long mantissas, exponent, leading dot':
      'time,open,high,low,close,volume\n1704067200,.5,5.,0.5,0.5,-0\n1704067260,1234567890.12345678,1234567890.12345678,1234567890.12345678,1234567890.12345678,1e3\n1704067320,0.000000000123456789,0.000000000123456789,0.000000000123456789,0.000000000123456789,0.0000000000000000000001\n',
    'ISO dates (backtesting.py, unnamed index) and extra columns':
      ',Open,High,Low,Close,Volume,Adj Close\n2024-01-01,1,2,0.5,1,3,x\n2024-01-02 00:00:00,1,2,0.5,1,3,1.1\n',
    'date and time columns': 'Date,Time,Open,High,Low,Close,Volume\n2024-01-01,09:00,1,2,0.5,1,3\n2024-01-01,09:01,1,2,0.5,1,3\n',
    'split date/time rows (backtrader)': 'Date,Open,High,Low,Close,Volume\n2006-01-02,09:01:00,1,2,0.5,1,3\n2006-01-02,09:02:00,1,2,0.5,1,3\n',
    'no volume column': 'time,open,high,low,close\n1704067200,1.5,2,1,1.25\n',
    milliseconds: 'time,open,high,low,close,volume\n1704067200000,1.5,2,1,1.25,3\n1704067260000,1.5,2,1,1.25,3\n',
    'zero price': 'time,open,high,low,close,volume\n1704067200,1.5,2,1,1.25,3\n1704067260,0,2,1,1.25,3\n',
    'negative close': 'time,open,high,low,close,volume\n1704067200,1.5,2,1,-1.25,3\n',
    'high below low': 'time,open,high,low,close,volume\n1704067200,1.5,1,2,1.25,3\n',
    'negative volume': 'time,open,high,low,close,volume\n1704067200,1.5,2,1,1.25,-3\n',
    'time not increasing': 'time,open,high,low,close,volume\n1704067200,1.5,2,1,1.25,3\n1704067200,1.5,2,1,1.25,3\n',
    'not a number': 'time,open,high,low,close,volume\n1704067200,1.5,2,x,1.25,3\n',
    'too few fields': 'time,open,high,low,close,volume\n1704067200,1.5,2,1,1.25\n',
    'too many fields': 'time,open,high,low,close,volume\n1704067200,1.5,2,1,1.25,3,9,9\n',
    'a CR inside a field': 'time,open,high,low,close,volume\n1704067200,1.5\r,2,1,1.25,3\n',
    'header only': 'time,open,high,low,close,volume\n',
    'empty file': '',
    'no time column': 'open,high,low,close\n1,2,1,1\n',
    'non-ASCII in a row': 'time,open,high,low,close,volume\n1704067200,1.5,2,1,1.25,3\n1704067260,1,2,1,1,3€\n',
    'more than 15 digits, of which at most 15 significant':
      'time,open,high,low,close,volume\n00000000001704067200,0000000000000001.5,000000000000002.000,1,1.25,3\n1704067260,1.5,2,1,1.25,00000000000000000000000000000.5\n',
    // The arrays are sized from the first 1,000 lines' length: later, shorter lines make them grow.
    'many more rows than the first lines promise':
      'time,open,high,low,close,volume,note\n' +
      Array.from({ length: 1000 }, (_, i) => `${1704067200 + i * 60},1.5,2,1,1.25,3,${'x'.repeat(200)}`).join('\n') +
      '\n' +
      Array.from({ length: 30000 }, (_, i) => `${1704127200 + i * 60},1,1,1,1,0,`).join('\n') +
      '\n',
    'an error after the first chunks':
      'time,open,high,low,close,volume\n' +
      Array.from({ length: 20000 }, (_, i) => `${1704067200 + i * 60},1.5,2,1,${i === 15000 ? 3 : 1.25},3`).join('\n') +
      '\n',
    'an ISO date line after the first chunks':
      'time,open,high,low,close,volume\n' +
      Array.from({ length: 20000 }, (_, i) => `${i === 15000 ? '2024-01-11T10:00:00Z' : 1704067200 + i * 60},1.5,2,1,1.25,3`).join('\n') +
      '\n',
  };
  for (const [name, text] of Object.entries(cases)) {
    it(`same result as the text reader: ${name}`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'mizan-bytes-'));
      const p = join(dir, 'x.csv');
      writeFileSync(p, text);
      const want = outcome(readCandleColumnsFromText, p);
      expect(outcome(readCandleColumns, p)).toEqual(want);
      // Read in blocks that cut lines, fields, a CRLF and the header anywhere: the same.
      for (const block of BLOCKS) expect({ block, r: outcome((f) => readCandleColumnsInBlocks(f, block), p) }).toEqual({ block, r: want });
      const gz = join(dir, 'x.csv.gz');
      writeFileSync(gz, gzipSync(Buffer.from(text)));
      expect(outcome(readCandleColumns, gz)).toEqual(JSON.parse(JSON.stringify(want).replaceAll(p, gz)));
    });
  }

  it('reads blank lines before the header as the Decimal reader does (the text scan took the blank line for the header)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mizan-bytes-'));
    const p = join(dir, 'x.csv');
    writeFileSync(p, '\n\ntime,open,high,low,close,volume\n1704067200,1.5,2,1,1.25,3\n');
    expect(outcome(readCandleColumnsFromText, p)).toEqual({ error: `${p}, line 1, field open: no open column in header ""` });
    const c = readCandleColumns(p);
    expect([c.format, c.length, c.time[0], c.close[0]]).toEqual(['bundled', 1, 1704067200, 1.25]);
    expect(readCandles(p).map((k) => [k.time, k.close.toNumber()])).toEqual([[1704067200, 1.25]]);
  });

  it('names file, line and field for a zero price deep in a file read by bytes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mizan-bytes-'));
    const p = join(dir, 'x.csv');
    const rows = Array.from({ length: 5000 }, (_, i) => `${1704067200 + i * 60},1.5,2,1,${i === 4321 ? '0' : '1.25'},3`);
    writeFileSync(p, `time,open,high,low,close,volume\n${rows.join('\n')}\n`);
    expect(() => readCandleColumns(p)).toThrow(/x\.csv.*line 4323, field close: close 0 is not a positive price/);
  });

  it('reads a plain CSV file in blocks, not whole: a 30 MB file takes far less memory than its size', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mizan-bytes-'));
    const p = join(dir, 'big.csv');
    const rows = 500_000;
    // Written by another process: writing it here would leave a 30 MB buffer for the measurement to count.
    const script = `const fs = require('fs'); const fd = fs.openSync(process.argv[1], 'w'); fs.writeSync(fd, 'time,open,high,low,close,volume\\n');
for (let i = 0; i < ${rows}; i += 1000) { let s = ''; for (let j = i; j < i + 1000; j++) s += (1704067200 + j * 60) + ',62500.12345678,62510.5,62490.25,62505.75,12.345678\\n'; fs.writeSync(fd, s); }
fs.closeSync(fd);`;
    execFileSync(process.execPath, ['-e', script, p]);
    const size = statSync(p).size;
    expect(size).toBeGreaterThan(30e6);
    const before = process.memoryUsage().arrayBuffers;
    const c = readCandleColumns(p);
    const grew = process.memoryUsage().arrayBuffers - before;
    expect([c.length, c.time[rows - 1], c.volume[rows - 1]]).toEqual([rows, 1704067200 + (rows - 1) * 60, 12.345678]);
    // The six columns (6 × 8 bytes a row, 1 % spare) and one block of 1 MB: whole, the file's 30 MB would be on top.
    expect(grew).toBeLessThan(rows * 48 * 1.02 + 4e6);
  });

  it.runIf(process.platform !== 'win32')('reads a named pipe (a process substitution such as <(zcat f.csv.gz)) whole, once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mizan-bytes-'));
    const src = join(dir, 'x.csv');
    writeFileSync(src, 'time,open,high,low,close,volume\n1704067200,1.5,2,1,1.25,3\n1704067260,1.5,2,1,1.5,0\n');
    const fifo = join(dir, 'pipe.csv');
    execFileSync('mkfifo', [fifo]);
    // The writer blocks until the reader opens the pipe; its bytes can be read only once. Then it opens
    // the pipe once more, empty, for at most 3 s: a reader that opened it a second time (and so would
    // wait for a writer forever) then reads an empty file and fails instead of hanging the test.
    const writer = spawn('sh', ['-c', `cat "${src}" > "${fifo}"; exec timeout 3 sh -c ': > "${fifo}"'`], { stdio: 'ignore' });
    try {
      const c = readCandleColumns(fifo);
      expect([c.length, c.time[1], c.close[1]]).toEqual([2, 1704067260, 1.5]);
    } finally {
      writer.kill();
    }
  });
});
