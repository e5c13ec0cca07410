/**
 * `risk.limits.minCallDistancePct` in a backtest, through `mizan backtest` in a child process on
 * the bundled BTCUSDT data with the margin-trend example: the call price of each new position comes
 * from the exchange's dry-run preview (the simulator's desk), so a small minimum lets positions open
 * and a minimum above the distance riskCoef 2 gives (about 36 %) denies every open with the call
 * price and its distance. Before the fix no mode took a preview and every open was denied.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliBacktest } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-bt-calldist-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Result {
  summary: { orders: number; denials: number; trades: number };
  denied: { total: number; byRule: { rule: string; count: number; reasons: { reason: string; count: number; example: string }[] }[] };
  orders: { kind: string; clientOrderId: string }[];
}

async function backtest(name: string, minCallDistancePct: number): Promise<Result> {
  const r = await cliBacktest<Result>(dir, name, {
    strategies: `  - name: trend
    strategy: margin-trend
    markets: [BTCUSDT]
    resolution: "300s"
    params: { fast: 12, slow: 26, collateral: 500 }`,
    extra: `risk:
  limits: { minCallDistancePct: ${minCallDistancePct} }`,
    backtest: `  from: 2023-01-10
  to: 2023-01-12
  balances: { USDT: 10000 }
  slippagePct: 0.05`,
  });
  return r.result;
}

describe('minCallDistancePct in a backtest (mizan backtest, child process)', () => {
  it('a small minimum lets margin positions open', async () => {
    const r = await backtest('small', 1);
    // None but the warm-up gate's (margin-trend acts on its EMAs from the first warm-up candle on).
    expect(
      r.denied.byRule.filter((b) => b.rule !== 'warmup'),
      JSON.stringify(r.denied),
    ).toEqual([]);
    expect(r.orders.filter((o) => o.kind === 'margin' && o.clientOrderId.endsWith('-open')).length).toBeGreaterThan(5);
    expect(r.summary.trades).toBeGreaterThan(5);
  }, 120_000);

  it('a minimum above the distance denies every open with the call price and its distance', async () => {
    const r = await backtest('large', 60);
    expect(r.orders.filter((o) => o.kind === 'margin')).toEqual([]);
    const margin = r.denied.byRule.filter((b) => b.rule !== 'warmup');
    expect(margin.map((b) => b.rule)).toEqual(['margin']);
    expect(margin[0]!.count).toBeGreaterThan(5);
    const reasons = margin[0]!.reasons;
    expect(reasons).toHaveLength(1);
    expect(reasons[0]!.count).toBe(margin[0]!.count);
    expect(reasons[0]!.example).toMatch(
      /^the call price \d+(\.\d+)? is \d+(\.\d+)?% from the current price \d+(\.\d+)? of BTCUSDT, closer than the 60% allowed$/,
    );
  }, 120_000);
});
