/**
 * `mizan candles` against the simulator's `/v1/udf/history`: exact CSV, paging with a progress bar
 * on a terminal, gaps reported, the second run served from the cache, option errors named.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.js';
import type { Candle } from '../../../src/core/types/market.js';
import { runSim, type RunningSim } from '../../../src/sim/run-sim.js';
import { capture, program } from './helpers.js';

let running: RunningSim;
let url: string;
let dir: string;
const T0 = 1_714_521_600; // 2024-05-01T00:00:00Z
const MISSING = new Set([5, 6, 7, 1500]);
const candles: Candle[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mizan-candles-'));
  running = await runSim({ port: 0, replay: false });
  url = running.server.url;
  for (let i = 0; i < 2000; i++) {
    if (MISSING.has(i)) continue;
    const o = new Decimal('4123456789.5').plus(i * 1000);
    candles.push({
      time: T0 + i * 60,
      open: o,
      high: o.plus('1500.25'),
      low: o.minus('0.75'),
      close: o.plus(7),
      volume: new Decimal(`0.${String(i + 1).padStart(6, '0')}`),
    });
  }
  running.sim.setCandles('BTCTMN', candles, 60);
});
afterAll(async () => {
  await running.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('mizan candles', () => {
  it('writes exact CSV over several pages with a progress bar, reports gaps, then reads the cache', async () => {
    const out = path.join(dir, 'btc.csv');
    const err = capture(true);
    const args = [
      'candles',
      'btctmn',
      '--resolution',
      '1',
      '--from',
      '2024-05-01T00:00:00Z',
      '--to',
      String(T0 + 2000 * 60),
      '--out',
      out,
      '--url',
      url,
      '--cache',
      path.join(dir, 'cache'),
    ];
    await program({ stdout: capture(), stderr: err }).parseAsync(args, { from: 'user' });
    const rows = readFileSync(out, 'utf8').trimEnd().split('\n');
    expect(rows[0]).toBe('time,open,high,low,close,volume');
    expect(rows).toHaveLength(1 + 2000 - MISSING.size);
    expect(rows[1]).toBe(`${T0},4123456789.5,4123458289.75,4123456788.75,4123456796.5,0.000001`);
    const c = candles.at(-1)!;
    expect(rows.at(-1)).toBe(`${c.time},${c.open.toFixed()},${c.high.toFixed()},${c.low.toFixed()},${c.close.toFixed()},${c.volume.toFixed()}`);
    // The bar (cli-progress) reached 100 % of 2000 periods; 2 pages of 1000.
    expect(err.text).toContain('100% | 2000/2000 periods');
    expect(err.text).toMatch(/1996 candles from 2024-05-01T00:00:00Z to 2024-05-02T09:20:00Z \(exclusive\) written to .*btc\.csv \(2 requests\)/);
    expect(err.text).toContain('2 gaps, 4 missing periods');
    expect(err.text).toContain('gap 2024-05-01T00:05:00Z .. 2024-05-01T00:07:00Z (3 candles)');
    expect(err.text).toContain('gap 2024-05-02T01:00:00Z .. 2024-05-02T01:00:00Z (1 candle)');

    const again = capture(false);
    const stdout = capture();
    await program({ stdout, stderr: again }).parseAsync(
      args.filter((a, i) => a !== '--out' && args[i - 1] !== '--out'),
      { from: 'user' },
    );
    expect(stdout.text).toBe(readFileSync(out, 'utf8'));
    expect(again.text).toContain('(0 requests, from the cache)');
    expect(again.text).not.toContain('periods |'); // no bar when stderr is not a terminal
  });

  it('resamples to a larger resolution and accepts Unix seconds', async () => {
    const stdout = capture();
    await program({ stdout, stderr: capture() }).parseAsync(
      ['candles', 'BTCTMN', '--resolution', '60', '--from', String(T0), '--to', String(T0 + 3600), '--url', url, '--cache', path.join(dir, 'c2')],
      { from: 'user' },
    );
    const rows = stdout.text.trimEnd().split('\n');
    expect(rows).toHaveLength(2);
    const hour = candles.filter((k) => k.time < T0 + 3600);
    const high = Decimal.max(...hour.map((k) => k.high));
    const vol = hour.reduce((s, k) => s.plus(k.volume), new Decimal(0));
    expect(rows[1]).toBe(`${T0},${hour[0]!.open.toFixed()},${high.toFixed()},${hour[0]!.low.toFixed()},${hour.at(-1)!.close.toFixed()},${vol.toFixed()}`);
  });

  it('names the option and the value on bad input', async () => {
    const run = (extra: string[]) =>
      program({ stdout: capture(), stderr: capture() }).parseAsync(['candles', 'BTCTMN', '--url', url, '--cache', path.join(dir, 'c3'), ...extra], {
        from: 'user',
      });
    await expect(run(['--resolution', '7', '--from', '0', '--to', '60'])).rejects.toThrow(/invalid --resolution: "?7"?/);
    await expect(run(['--resolution', '1', '--from', 'yesterday', '--to', '60'])).rejects.toThrow(/invalid --from: "?yesterday"?/);
    await expect(run(['--resolution', '1', '--from', '2024-05-02', '--to', '2024-05-01'])).rejects.toThrow(
      /invalid --from: 1714608000 \(a time before --to \(1714521600; --to is exclusive\)\)/,
    );
  });
});
