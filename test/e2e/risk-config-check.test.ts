/**
 * `mizan check` refuses what `mizan backtest` refuses, at the value's path and line, and a default
 * never makes a valid value invalid (child processes, a small candle file in a temp dir).
 * - `risk.limits.orderRate: { limit: 3 }` passed check, then backtest exited 1 with
 *   `orderRate.reserveForCancels must be a whole number from 0 to limit − 1 (2), got 4`: no path, no
 *   line, and 4 was a default the user never wrote. The default is now min(4, limit − 1).
 * - `{ limit: 20, reserveForCancels: 25 }` is refused by check and backtest alike, at its line.
 * - `backtest.fees: { maker: 2, … }` was reported as `is not { maker, taker } or account`: the
 *   message now names `maker`, the value and its range.
 */
import { describe, expect, it, afterAll } from 'vitest';
import { join } from 'node:path';
import { mizan, tempDir } from './cli.js';

const tmp = tempDir('mizan-e2e-risk-config-');
afterAll(() => tmp.remove());
const T0 = Date.parse('2024-01-01T00:00:00Z') / 1000;
const rows = Array.from({ length: 120 }, (_, i) => `${T0 + i * 60},${100 + (i % 7)},${101 + (i % 7)},${99 + (i % 7)},${100 + (i % 7)},5`);
tmp.file('candles.csv', ['time,open,high,low,close,volume', ...rows].join('\n') + '\n');

const yaml = (extra: string): string => `mode: backtest
strategies:
  - { name: s, strategy: sma-cross, markets: [BTCUSDT], resolution: "1" }
backtest:
  data: [ { symbol: BTCUSDT, file: candles.csv } ]
  from: ${T0}
  to: ${T0 + 120 * 60}
  balances: { USDT: 10000 }
journal: { file: ":memory:" }
${extra}
`;
const config = (name: string, extra: string): string => tmp.file(`${name}.yaml`, yaml(extra));

const run = (args: string[]) => mizan(args, { cwd: tmp.dir, timeoutMs: 90_000 });

describe('risk and fee settings: check refuses what backtest refuses, with the path and line', { timeout: 120_000 }, () => {
  it('orderRate { limit: 3 }: check and backtest accept it (the reserve for cancels defaults to 2)', async () => {
    const file = config('rate3', 'risk: { limits: { orderRate: { limit: 3 } } }');
    const c = await run(['check', file]);
    expect(c.code, c.all).toBe(0);
    const b = await run(['backtest', file, '--out', join(tmp.dir, 'out-rate3')]);
    expect(b.code, b.all).toBe(0);
    expect(b.all).not.toMatch(/reserveForCancels/);
  });

  it('orderRate { limit: 20, reserveForCancels: 25 }: check and backtest refuse it at risk.limits.orderRate.reserveForCancels (line 12)', async () => {
    const file = config('rate25', 'risk:\n  limits:\n    orderRate: { limit: 20, reserveForCancels: 25 }');
    const want = 'risk.limits.orderRate.reserveForCancels: 25 must be less than limit (20): at most 19 (line 12)';
    for (const args of [
      ['check', file],
      ['backtest', file, '--out', join(tmp.dir, 'out-rate25')],
    ]) {
      const r = await run(args);
      expect(r.code, r.all).toBe(1);
      expect(r.all).toContain(want);
    }
  });

  it('backtest.fees { maker: 2 }: check names maker, the value and the range (line 9)', async () => {
    const file = tmp.file('fees.yaml', yaml('').replace('  balances: { USDT: 10000 }\n', '  balances: { USDT: 10000 }\n  fees: { maker: 2, taker: 0.001 }\n'));
    const r = await run(['check', file]);
    expect(r.code, r.all).toBe(1);
    expect(r.all).toMatch(/backtest\.fees\.maker: 2 must be from 0 to 0\.1 \(line 9\)/);
    expect(r.all).not.toContain('is not { maker, taker } or account');
  });
});
