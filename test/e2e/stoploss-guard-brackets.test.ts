/**
 * risk.protections.stoplossGuard counts a bracket's stop-loss exit (audit: it counted only closing
 * fills a strategy tagged `stop_loss` itself, so a bracket's stop never tripped it): `mizan backtest`
 * of a strategy whose first bracket is stopped out, with `trades: 1`, refuses its next entry with the
 * guard's reason.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO, tempDir } from './cli.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

const config = (guard: boolean) => `mode: backtest
strategies:
  - name: p
    strategy: ${join(REPO, 'test/e2e/fixtures/bracket-stops.ts')}
    markets: [BTCUSDT]
    resolution: '300s'
    params: { entries: '3,30' }
backtest:
  data:
    - { symbol: BTCUSDT, file: ${join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz')} }
  from: 2023-01-03
  to: 2023-01-04
  balances: { USDT: 10000 }
  slippagePct: 0.05
journal: { file: ':memory:' }
${guard ? 'risk: { protections: { stoplossGuard: { trades: 1, windowMinutes: 600 } } }' : ''}
logging: { level: warn, pretty: false }
`;

describe('stoploss guard and bracket stop losses', { timeout: 120_000 }, () => {
  it('counts a bracket stop-loss exit: the next entry is refused', async () => {
    // Without the guard both entries are stopped out (the run's two trades, exit "stop loss").
    const free = await mizan(['backtest', tmp.file('free.yaml', config(false))]);
    expect(free.code, free.all).toBe(0);
    expect(free.all).toMatch(/^stop loss\s+2\s/m);
    expect(free.all).toMatch(/trades 2, denied intents 0/);
    // With it, the first stop-loss exit trips the guard: the second entry is denied, with its reason.
    const guarded = await mizan(['backtest', tmp.file('guarded.yaml', config(true))]);
    expect(guarded.code, guarded.all).toBe(0);
    expect(guarded.all).toMatch(/^stop loss\s+1\s/m);
    expect(guarded.all).toMatch(/trades 1, denied intents 1/);
    expect(guarded.all).toMatch(/DENIED tradingState: .*stoploss guard: 1 stop-loss exits within 600 minutes \(limit 1\)/);
  });
});
