/**
 * An instant order is checked against the instant desk's bounds (`GET /v1/otc/markets`: order total
 * 5 to 10,000 USDT on the simulator's BTCUSDT), not the spot market's minimum (10 USDT). A newcomer's
 * audit: a 7 USDT instant buy was denied by the spot minimum though the desk takes it, and a 20,000
 * USDT one passed risk and reached onDenied as the exchange's 422. `mizan backtest` as a child
 * process; the backtest reads the bounds from the simulator's instant desk, which refuses outside them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { backtestResult, backtestYaml, tempDir } from './cli.js';

const tmp = tempDir('mizan-e2e-instant-bounds-');
afterAll(() => tmp.remove());

const T0 = Date.UTC(2023, 0, 2) / 1000;

function data(): string {
  const rows = ['time,open,high,low,close,volume'];
  for (let i = 0; i < 4 * 288; i++) {
    const p = 20_000 + i * 0.5;
    rows.push(`${T0 + i * 300},${p},${p + 10},${p - 10},${p + 0.5},1000`);
  }
  return tmp.file('BTCUSDT.csv', rows.join('\n') + '\n');
}

interface Result {
  orders: { type: string; strategy: string; filled: string; avgPrice: string }[];
  denied: { byRule: { rule: string; reasons: { reason: string; count: number }[] }[] };
}

describe('mizan backtest: instant orders and the instant desk’s bounds', () => {
  it('passes a buy above the desk’s minimum but below the spot one, and denies one above the desk’s maximum', async () => {
    const dca = (name: string, hour: number, amount: number) => [
      `  - name: ${name}`,
      '    strategy: otc-dca',
      '    markets: [BTCUSDT]',
      "    resolution: '300s'",
      `    schedule: { cron: '0 ${hour} * * *', timezone: Asia/Tehran }`,
      `    params: { amount: ${amount}, maxBuys: 1 }`,
    ];
    const config = tmp.file(
      'dca.yaml',
      backtestYaml({
        strategies: [...dca('small', 9, 7), ...dca('big', 10, 20_000)],
        symbol: 'BTCUSDT',
        file: data(),
        from: '2023-01-03',
        to: '2023-01-04',
        balances: '{ USDT: 100000 }',
      }),
    );
    const { result, run: r } = await backtestResult<Result>(config, tmp.dir);
    // 7 USDT: above the desk's minimum 5, below the spot market's 10: the desk takes it.
    const small = result.orders.filter((o) => o.type === 'OTC' && o.strategy === 'small');
    expect(small.length, r.all).toBe(1);
    const spent = Number(small[0]!.filled) * Number(small[0]!.avgPrice);
    expect(spent).toBeGreaterThan(5);
    expect(spent).toBeLessThanOrEqual(7);
    // 20,000 USDT: denied by risk, naming the desk's bound, the value and the market; never the exchange's 422.
    expect(result.orders.filter((o) => o.strategy === 'big')).toEqual([]);
    const rules = result.denied.byRule.map((b) => b.rule);
    expect(rules, r.all).toEqual(['marketLimits']);
    const reasons = result.denied.byRule.flatMap((b) => b.reasons.map((x) => x.reason));
    expect(reasons.length, r.all).toBe(1);
    expect(reasons[0]).toMatch(/^instant order total 19999\.\d+ USDT \(.+\) is above the instant desk's maximum 10000 USDT of BTCUSDT$/);
    expect(r.all).not.toMatch(/HTTP 422/);
  });
});
