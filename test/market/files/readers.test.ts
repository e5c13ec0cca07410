import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CandleFileError, detectCandleFormat, readCandleColumns, readCandleFile, readCandles } from '../../../src/market/files/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const DATA = resolve(here, '../../fixtures/data');
const iso = (sec: number) => new Date(sec * 1000).toISOString();

describe('real candle files', () => {
  it('freqtrade JSON arrays (UNITTEST_BTC-1m.json): 13681 rows, first and last values', () => {
    const { format, candles } = readCandleFile(join(DATA, 'freqtrade/UNITTEST_BTC-1m.json'));
    expect(format).toBe('freqtrade-json');
    expect(candles).toHaveLength(13681);
    expect(iso(candles[0]!.time)).toBe('2017-11-04T23:02:00.000Z');
    expect(candles[0]!.open.toFixed()).toBe('0.00162008');
    expect(candles[0]!.volume.toFixed()).toBe('108.14853839');
    expect(iso(candles[13680]!.time)).toBe('2017-11-14T22:59:00.000Z');
  });

  it('freqtrade JSON arrays gzipped (UNITTEST_BTC-8m.json.gz) give the same 1m candles', () => {
    const a = readCandles(join(DATA, 'freqtrade/UNITTEST_BTC-1m.json'));
    const b = readCandles(join(DATA, 'freqtrade/UNITTEST_BTC-8m.json.gz'));
    expect(b).toHaveLength(13681);
    expect(b[500]!.time).toBe(a[500]!.time);
    expect(b[500]!.close.eq(a[500]!.close)).toBe(true);
  });

  it('freqtrade column-dict JSON (orderflow/candles.json): BTC/USDT 5m, 10999 rows, continuous', () => {
    const { format, candles } = readCandleFile(join(DATA, 'freqtrade/orderflow/candles.json'));
    expect(format).toBe('freqtrade-columns');
    expect(candles).toHaveLength(10999);
    expect(iso(candles[0]!.time)).toBe('2023-01-02T16:45:00.000Z');
    expect(iso(candles[10998]!.time)).toBe('2023-02-09T21:15:00.000Z');
    expect(candles[0]!.open.toFixed()).toBe('16727.3');
    expect(candles[10998]!.close.toFixed()).toBe('21925.7');
  });

  it('backtesting.py CSV with an unnamed naive-date index (GOOG, EURUSD, BTCUSD)', () => {
    const goog = readCandleFile(join(DATA, 'backtesting-py/GOOG.csv'));
    expect(goog.format).toBe('csv');
    expect(goog.candles).toHaveLength(2148);
    expect(iso(goog.candles[0]!.time)).toBe('2004-08-19T00:00:00.000Z');
    expect(goog.candles[0]!.high.toFixed()).toBe('104.06');
    expect(goog.candles[0]!.volume.toFixed()).toBe('22351900');
    expect(iso(goog.candles[2147]!.time)).toBe('2013-03-01T00:00:00.000Z');
    const eur = readCandles(join(DATA, 'backtesting-py/EURUSD.csv'));
    expect(eur).toHaveLength(5000);
    expect(iso(eur[0]!.time)).toBe('2017-04-19T09:00:00.000Z');
    expect(iso(eur[4999]!.time)).toBe('2018-02-07T15:00:00.000Z');
    expect(readCandles(join(DATA, 'backtesting-py/BTCUSD.csv'))).toHaveLength(156);
  });

  it('backtrader CSVs: Date header, Date+Time columns, and rows with split date and time', () => {
    const day = readCandles(join(DATA, 'backtrader/2006-day-001.txt'));
    expect(day).toHaveLength(255);
    expect(day[0]!.open.toFixed()).toBe('3578.73');
    expect(iso(day[254]!.time)).toBe('2006-12-29T00:00:00.000Z');
    const min5 = readCandles(join(DATA, 'backtrader/2006-min-005.txt'));
    expect(min5).toHaveLength(2142);
    expect(iso(min5[0]!.time)).toBe('2006-01-02T09:05:00.000Z');
    expect(iso(min5[2141]!.time)).toBe('2006-01-30T17:30:00.000Z');
    const min1 = readCandles(join(DATA, 'backtrader/2006-01-02-volume-min-001.txt'));
    expect(min1).toHaveLength(30889);
    expect(iso(min1[0]!.time)).toBe('2006-01-02T09:01:00.000Z');
    expect(min1[0]!.volume.toFixed()).toBe('5699');
    expect(iso(min1[30888]!.time)).toBe('2006-02-27T22:00:00.000Z');
  });

  it('Yahoo CSV with CRLF line endings and an Adj Close column (BRK-B)', () => {
    const c = readCandles(join(DATA, 'cinar-indicator/asset/testdata/repository/brk-b.csv'));
    expect(c).toHaveLength(251);
    expect(c[0]!.close.toFixed()).toBe('318.600006');
    expect(c[0]!.volume.toFixed()).toBe('7919700');
  });

  it('the columnar reader gives the same numbers as the Decimal reader', () => {
    for (const f of ['freqtrade/orderflow/candles.json', 'backtesting-py/EURUSD.csv', 'freqtrade/UNITTEST_BTC-8m.json.gz']) {
      const dec = readCandles(join(DATA, f));
      const col = readCandleColumns(join(DATA, f));
      expect(col.length).toBe(dec.length);
      expect(col.time).toBeInstanceOf(Float64Array);
      for (const i of [0, 1, Math.floor(dec.length / 2), dec.length - 1]) {
        expect(col.time[i]).toBe(dec[i]!.time);
        expect(col.open[i]).toBe(dec[i]!.open.toNumber());
        expect(col.high[i]).toBe(dec[i]!.high.toNumber());
        expect(col.low[i]).toBe(dec[i]!.low.toNumber());
        expect(col.close[i]).toBe(dec[i]!.close.toNumber());
        expect(col.volume[i]).toBe(dec[i]!.volume.toNumber());
      }
    }
  });
});

describe('plain CSV details and errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mizan-files-'));
  const put = (name: string, text: string | Buffer) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it('detects Unix seconds and milliseconds, case-insensitive names, gzip by magic bytes', () => {
    const s = put('s.csv', 'Timestamp,OPEN,High,low,Close,Volume\n1700000000,1,2,0.5,1.5,10\n1700000060,1.5,2,1,1,0\n');
    const ms = put('ms.data', gzipSync('timestamp,open,high,low,close,volume\n1700000000000,1,2,0.5,1.5,10\n'));
    expect(readCandles(s)[1]!.time).toBe(1700000060);
    expect(readCandles(ms)[0]!.time).toBe(1700000000);
    expect(detectCandleFormat(ms)).toBe('csv');
  });

  it('reads ISO times with offsets and keeps decimals exact', () => {
    const p = put('iso.csv', 'datetime,open,high,low,close,volume\n2024-01-01T03:30:00+03:30,0.1,0.30000000000000001,0.1,0.2,1e-8\n');
    const c = readCandles(p)[0]!;
    expect(iso(c.time)).toBe('2024-01-01T00:00:00.000Z');
    expect(c.high.toFixed()).toBe('0.30000000000000001');
    expect(c.volume.toFixed()).toBe('0.00000001');
  });

  it("reads the base asset's Volume <BASE> column when there is no volume column, by every reader", () => {
    // Bitstamp's Kaggle files: Volume_(BTC) and Volume_(Currency); the Decimal, text and byte readers agree.
    const f = put('bitstamp.csv', 'Timestamp,Open,High,Low,Close,Volume_(BTC),Volume_(Currency),Weighted_Price\n1700000000,10,11,9,10.5,1.25,12.5,10\n');
    expect(readCandles(f, { base: 'BTC' })[0]!.volume.toFixed()).toBe('1.25');
    expect(readCandleColumns(f, { base: 'BTC' })).toMatchObject({ volumeColumn: 'Volume_(BTC)', length: 1 });
    expect(readCandleColumns(f, { base: 'BTC' }).volume[0]).toBe(1.25);
    expect(() => readCandles(f)).toThrow(/line 1, field volume: volume columns "Volume_\(BTC\)", "Volume_\(Currency\)", and no market was given/);
    // A `volume` column is the volume whatever else the header has; none at all: volume 0, said.
    const both = put('both.csv', 'time,open,high,low,close,Volume BTC,volume\n1700000000,10,11,9,10.5,1.25,7\n');
    expect(readCandleColumns(both)).toMatchObject({ volumeColumn: 'volume' });
    expect(readCandleColumns(both).volume[0]).toBe(7);
    const none = put('none.csv', 'time,open,high,low,close,tradecount\n1700000000,10,11,9,10.5,3\n');
    expect(readCandleColumns(none)).toMatchObject({ volumeColumn: null });
    expect(readCandleColumns(none).volume[0]).toBe(0);
  });

  it('names the file, line and field of a bad value', () => {
    const p = put('bad.csv', 'time,open,high,low,close,volume\n1700000000,1,2,0.5,1.5,10\n1700000060,1,abc,0.5,1.5,10\n');
    expect(() => readCandles(p)).toThrow(CandleFileError);
    expect(() => readCandles(p)).toThrow(`${p}, line 3, field high: expected a number, got "abc"`);
    expect(() => readCandleColumns(p)).toThrow(`line 3, field high`);
  });

  it('rejects bad times, decreasing times, missing columns, and impossible bars', () => {
    const t = put('t.csv', 'date,open,high,low,close,volume\n02/03/2010,1,1,1,1,1\n');
    expect(() => readCandles(t)).toThrow(/line 2, field time: expected an epoch number or an ISO date, got "02\/03\/2010"/);
    const dec = put('dec.csv', 'time,open,high,low,close,volume\n1700000060,1,1,1,1,1\n1700000000,1,1,1,1,1\n');
    expect(() => readCandles(dec)).toThrow(/line 3, field time: times must increase/);
    const miss = put('miss.csv', 'time,open,high,close,volume\n1,1,1,1,1\n');
    expect(() => readCandles(miss)).toThrow(/line 1, field low: no low column/);
    const hl = put('hl.csv', 'time,open,high,low,close,volume\n1700000000,1,1,2,1,1\n');
    expect(() => readCandleColumns(hl)).toThrow(/line 2, field low: low 2 is above high 1/);
    const neg = put('neg.json', '[[1700000000000,1,1,1,1,-5]]');
    expect(() => readCandles(neg)).toThrow(/row 1 \(index 0\), field volume: volume -5 is negative/);
    const junk = put('junk.json', '{"a": 1}');
    expect(() => readCandles(junk)).toThrow(CandleFileError);
  });
});
