/**
 * Losing margin trades feed the protections as spot round trips do (audit: margin-trend with
 * `cooldown: { losingTrades: 1 }` and `stoplossGuard: { trades: 1 }` lost 28 of 29 trades in a
 * backtest with 0 denials: only spot round trips reached the protections). `mizan backtest`.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO, tempDir } from './cli.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

const config = (protections: string) => `mode: backtest
strategies:
  - { name: mt, strategy: margin-trend, markets: [BTCUSDT], resolution: "300s", params: { collateral: 500, riskCoef: 3, stopLossPct: 0.3, takeProfitPct: 5 } }
backtest:
  data:
    - { symbol: BTCUSDT, file: ${join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz')} }
  from: 2023-01-03
  to: 2023-01-06
  balances: { USDT: 10000 }
  slippagePct: 0.05
${protections}
journal: { file: ':memory:' }
logging: { level: warn, pretty: false }
`;

const trades = (out: string) => Number(/trades (\d+)/.exec(out)?.[1]);
/** The rules of the summary's "denied intents by rule and reason" lines. */
const deniedRules = (out: string) => [...out.matchAll(/^ {2}(\w+): \d+$/gm)].map((m) => m[1]);

describe('protections and margin trades', { timeout: 120_000 }, () => {
  it('a losing margin trade starts the cooldown; a stopped-out one counts for the stoploss guard', async () => {
    const free = await mizan(['backtest', tmp.file('free.yaml', config(''))]);
    expect(free.code, free.all).toBe(0);
    expect(trades(free.all)).toBeGreaterThan(10);
    // Only the warm-up gate's (margin-trend acts on its EMAs from the first warm-up candle on).
    expect(deniedRules(free.all).filter((r) => r !== 'warmup')).toEqual([]);

    // One losing trade pauses the strategy for 6000 minutes (longer than the run): the position it
    // had already opened when the first loss was booked (a flip in one candle) is its last.
    const cool = await mizan(['backtest', tmp.file('cool.yaml', config('risk: { protections: { cooldown: { losingTrades: 1, minutes: 6000 } } }'))]);
    expect(cool.code, cool.all).toBe(0);
    expect(trades(cool.all)).toBeLessThanOrEqual(2);
    expect(cool.all).toMatch(/denied intents [1-9]/);
    expect(cool.all).toMatch(/strategy mt is paused: cooldown after losing trades until/);

    // One stop-loss exit (the position's own stop) moves the bot to reducing: no new position after it.
    const guard = await mizan(['backtest', tmp.file('guard.yaml', config('risk: { protections: { stoplossGuard: { trades: 1, windowMinutes: 6000 } } }'))]);
    expect(guard.code, guard.all).toBe(0);
    expect(trades(guard.all)).toBeLessThan(trades(free.all));
    expect(guard.all).toMatch(/^stop loss\s+1\s/m);
  });
});
