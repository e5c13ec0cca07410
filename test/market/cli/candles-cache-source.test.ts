/**
 * `mizan candles` (a child process) against two simulators on different ports sharing one cache
 * directory: each address gets its own candles, and a cached range extended by one period fetches
 * that period (issue 16 item 21).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.js';
import type { Candle } from '../../../src/core/types/market.js';
import { runSim, type RunningSim } from '../../../src/sim/run-sim.js';
import { runCli } from '../../backtest/cli/run-cli.js';

const T0 = 1_714_521_600; // 2024-05-01T00:00:00Z
let a: RunningSim;
let b: RunningSim;
let dir: string;

function series(base: number): Candle[] {
  const out: Candle[] = [];
  for (let i = 0; i < 30; i++) {
    const o = new Decimal(base + i);
    out.push({ time: T0 + i * 60, open: o, high: o.plus(2), low: o.minus(1), close: o.plus(1), volume: new Decimal('0.5') });
  }
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mizan-cache-src-'));
  a = await runSim({ port: 0, replay: false });
  b = await runSim({ port: 0, replay: false });
  a.sim.setCandles('BTCTMN', series(1000), 60);
  b.sim.setCandles('BTCTMN', series(5000), 60);
});
afterAll(async () => {
  await a.stop();
  await b.stop();
  rmSync(dir, { recursive: true, force: true });
});

const opens = (csv: string) =>
  csv
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => Number(l.split(',')[1]));

describe('mizan candles: the cache is kept per source', () => {
  it('serves each simulator its own candles from one cache directory', async () => {
    const cache = path.join(dir, 'cache');
    const args = (url: string, out: string) => [
      'candles',
      'BTCTMN',
      '--resolution',
      '1',
      '--from',
      String(T0),
      '--to',
      String(T0 + 10 * 60),
      '--url',
      url,
      '--cache',
      cache,
      '--out',
      out,
    ];
    const first = await runCli(args(a.server.url, path.join(dir, 'a.csv')));
    expect(first.code, first.stderr).toBe(0);
    expect(opens(readFileSync(path.join(dir, 'a.csv'), 'utf8'))).toEqual(Array.from({ length: 10 }, (_, i) => 1000 + i));
    const second = await runCli(args(b.server.url, path.join(dir, 'b.csv')));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('(1 request)');
    expect(opens(readFileSync(path.join(dir, 'b.csv'), 'utf8'))).toEqual(Array.from({ length: 10 }, (_, i) => 5000 + i));
    // Each source is read from the cache the second time.
    const again = await runCli(args(a.server.url, path.join(dir, 'a2.csv')));
    expect(again.stderr).toContain('(0 requests, from the cache)');
    expect(readFileSync(path.join(dir, 'a2.csv'), 'utf8')).toBe(readFileSync(path.join(dir, 'a.csv'), 'utf8'));
  }, 60_000);

  it('extends a cached range by one period', async () => {
    const cache = path.join(dir, 'cache2');
    const args = (to: number, out: string) => [
      'candles',
      'BTCTMN',
      '--resolution',
      '1',
      '--from',
      String(T0),
      '--to',
      String(to),
      '--url',
      a.server.url,
      '--cache',
      cache,
      '--out',
      out,
    ];
    // --to is exclusive: up to (not including) the period starting at T0 + 600, then through it.
    const first = await runCli(args(T0 + 600, path.join(dir, 'e1.csv')));
    expect(opens(readFileSync(path.join(dir, 'e1.csv'), 'utf8'))).toEqual(Array.from({ length: 10 }, (_, i) => 1000 + i));
    expect(first.code, first.stderr).toBe(0);
    const second = await runCli(args(T0 + 660, path.join(dir, 'e2.csv')));
    expect(second.stderr).not.toContain('invalid from');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('(1 request)');
    expect(opens(readFileSync(path.join(dir, 'e2.csv'), 'utf8'))).toEqual(Array.from({ length: 11 }, (_, i) => 1000 + i));
    // Seconds after the last period start hold no new period: no request at all.
    const third = await runCli(args(T0 + 630, path.join(dir, 'e3.csv')));
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toContain('(0 requests, from the cache)');
  }, 60_000);
});
