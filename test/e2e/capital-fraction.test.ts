/**
 * A strategy with `capital` sizes `fraction(f)` buys from what its capital has left, not from the
 * account's whole free balance. A newcomer's audit: sma-cross with `fraction: 0.5` and
 * `capital: { USDT: 1000 }` on a 10,000 USDT account asked for half the account (~5,000 USDT) on every
 * signal and was denied by its capital every time: a bundled fraction-sized strategy could not be
 * given a share of the account. `mizan backtest` as a child process on the bundled data.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, backtestResult, backtestYaml, tempDir } from './cli.js';

const tmp = tempDir('mizan-e2e-capital-fraction-');
afterAll(() => tmp.remove());

describe('mizan backtest: capital and fraction sizing', () => {
  it('buys f of what the capital has left, and is never denied by it', async () => {
    const config = tmp.file(
      'cap.yaml',
      backtestYaml({
        strategies: [
          '  - name: sma',
          '    strategy: sma-cross',
          '    markets: [BTCUSDT]',
          "    resolution: '300s'",
          '    params: { fast: 10, slow: 30, fraction: 0.5 }',
          '    capital: { USDT: 1000 }',
        ],
        symbol: 'BTCUSDT',
        file: join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz'),
        from: '2023-01-03',
        to: '2023-01-10',
        balances: '{ USDT: 10000 }',
      }),
    );
    const { result, run: r } = await backtestResult<{
      orders: { side: string; filled: string; avgPrice: string }[];
      denied: { total: number };
    }>(config, tmp.dir);
    expect(result.denied.total, r.all).toBe(0);
    const buys = result.orders.filter((o) => o.side === 'BUY' && Number(o.filled) > 0);
    expect(buys.length, r.all).toBeGreaterThan(5);
    for (const b of buys) {
      // Half of the 1,000 USDT capital (sma-cross is flat before each buy), less the fee and the
      // slippage bound the reservation keeps room for.
      const spent = Number(b.filled) * Number(b.avgPrice);
      expect(spent, `${b.filled} × ${b.avgPrice}`).toBeLessThanOrEqual(500);
      expect(spent, `${b.filled} × ${b.avgPrice}`).toBeGreaterThan(450);
    }
  });
});
