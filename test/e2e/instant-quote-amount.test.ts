/**
 * `instant(side, symbol, quote(amount))` spends at most `amount`: its quantity is sized at the
 * exchange's instant price (`GET /v1/account/otc/price`, the price the order then fills at), not at
 * the book, which the instant price is a spread away from. A newcomer's audit: otc-dca with
 * `amount: 5000000` spent about 5,024,650 TMN a buy (84.62 USDT sized at the book's 59,083, filled at
 * the instant price 59,379). `mizan backtest` as a child process; the simulator's instant desk
 * prices BUY at the ask + 0.5 %.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { backtestResult, backtestYaml, tempDir } from './cli.js';

const tmp = tempDir('mizan-e2e-instant-quote-');
afterAll(() => tmp.remove());

const T0 = Date.UTC(2023, 0, 2) / 1000;
const AMOUNT = 5_000_000;

function data(): string {
  const rows = ['time,open,high,low,close,volume'];
  for (let i = 0; i < 4 * 288; i++) {
    const p = 59_000 + i * 0.5;
    rows.push(`${T0 + i * 300},${p},${p + 10},${p - 10},${p + 0.5},1000`);
  }
  return tmp.file('USDTTMN.csv', rows.join('\n') + '\n');
}

describe('mizan backtest: an instant buy of a quote amount', () => {
  it('spends at most the amount, sized at the instant price it fills at', async () => {
    const config = tmp.file(
      'dca.yaml',
      backtestYaml({
        strategies: [
          '  - name: dca',
          '    strategy: otc-dca',
          '    markets: [USDTTMN]',
          "    resolution: '300s'",
          "    schedule: { cron: '0 9 * * *', timezone: Asia/Tehran }",
          `    params: { amount: ${AMOUNT}, maxBuys: 5 }`,
        ],
        symbol: 'USDTTMN',
        file: data(),
        from: '2023-01-03',
        to: '2023-01-06',
        balances: '{ TMN: 590000000 }',
      }),
    );
    const { result, run: r } = await backtestResult<{
      orders: { type: string; filled: string; avgPrice: string }[];
    }>(config, tmp.dir);
    const otc = result.orders.filter((o) => o.type === 'OTC');
    expect(otc.length, r.all).toBe(3);
    for (const o of otc) {
      const spent = Number(o.filled) * Number(o.avgPrice);
      expect(spent, `${o.filled} × ${o.avgPrice}`).toBeLessThanOrEqual(AMOUNT);
      // Within one quantity step (0.01 USDT) of the amount: sized at the price it filled at.
      expect(spent, `${o.filled} × ${o.avgPrice}`).toBeGreaterThan(AMOUNT - 0.01 * Number(o.avgPrice));
    }
  });
});
