/**
 * Issue 16 item 12 in paper mode: `mizan run` on the embedded simulator with a 6 s strategy that
 * declares 4 s candles (`candles: ["4s"]`, not a multiple of its own): the market-data engine builds
 * them from the trade stream too, and ctx.candles(symbol, 4) returns them, each once it closed.
 */
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startRun, tempDir, type Running } from './cli.js';

const FIX = resolve(import.meta.dirname, 'fixtures');
const tmp = tempDir('mizan-e2e-tf-paper-');
const running: Running[] = [];
afterEach(() => {
  for (const r of running.splice(0)) r.kill();
});
afterAll(() => tmp.remove());

interface Read {
  strategy: string;
  barTime: number;
  barSeconds: number;
  now: number;
  res: number;
  n: number;
  last: { time: number } | null;
}

describe('declared candle resolutions in mizan run (paper)', () => {
  it('a 6 s strategy reads the 4 s candles it declared, built from the trade stream, closed ones only', async () => {
    const config = tmp.file(
      'paper.yaml',
      [
        'mode: paper',
        'exchange: { simulator: true }',
        'simulator: { seed: 1, speed: 1 }',
        'strategies:',
        '  - name: reader',
        `    strategy: ${join(FIX, 'read-candles.ts')}`,
        '    markets: [BTCUSDT]',
        '    resolution: 6s',
        '    candles: ["4s"]',
        '    params: { res: 4 }',
        'paper: { balances: { USDT: 10000 } }',
        `journal: { file: ${join(tmp.dir, 'paper.sqlite')} }`,
        'logging: { level: info, pretty: false }',
        '',
      ].join('\n'),
    );
    const bot = startRun(['run', config]);
    running.push(bot);
    // Three reads after the first candle with 4 s candles in the window.
    await bot.waitFor(/"n":[1-9][^\n]*"tf read"[\s\S]*"tf read"[\s\S]*"tf read"/, 60_000);
    bot.interrupt();
    const r = await bot.exited;
    expect(r.code, r.all).toBe(0);
    const reads = r.all
      .split('\n')
      .filter((l) => l.startsWith('{') && l.includes('"tf read"'))
      .map((l) => JSON.parse(l) as Read);
    const seen = reads.filter((x) => x.n > 0);
    expect(seen.length, r.all).toBeGreaterThanOrEqual(1);
    for (const x of seen) {
      expect(x.barSeconds).toBe(6);
      expect(x.last!.time % 4).toBe(0);
      // closed: it ended at or before the moment it was read
      expect((x.last!.time + 4) * 1000).toBeLessThanOrEqual(x.now);
    }
    // the window grows as 4 s candles close (6 s apart: one or two more per read)
    const ns = seen.map((x) => x.n);
    for (let i = 1; i < ns.length; i++) expect(ns[i]! - ns[i - 1]!).toBeGreaterThanOrEqual(1);
    expect(r.all).not.toMatch(/TypeError|ReferenceError|Unhandled|uncaught|neither its resolution/);
  }, 90_000);
});
