/**
 * ctx.balance() in a backtest is the simulated exchange's ledger (the one the risk check and the
 * result read), not a copy of it made at the start and moved by fills: a resting order's funds are
 * locked, a margin position's collateral is held and its opening fee paid.
 */
import { describe, expect, it } from 'vitest';
import { limit, marginOpen, qty } from '../../src/strategy/builders.js';
import type { BalanceView } from '../../src/strategy/views.js';
import { runScript, type Ohlcv } from './helpers.js';

const flat: Ohlcv = [100, 100.5, 99.8, 100, 50];

describe("a backtest strategy's balances", () => {
  it('show a resting limit buy locked and not free', async () => {
    const seen: BalanceView[] = [];
    const r = await runScript([flat, flat, flat, flat], '', {
      at: {
        0: () => limit('BUY', 'BTCUSDT', qty(1), 90),
        2: (ctx) => void seen.push(ctx.balance('USDT')),
      },
    });
    expect(r.result.orders[0]!.state).toBe('open');
    expect(seen).toHaveLength(1);
    const usdt = seen[0]!;
    expect(usdt.value.toFixed()).toBe('10000');
    // 1 × 90 is held by the exchange for the order: not free to spend again.
    expect(usdt.locked.gte(90)).toBe(true);
    expect(usdt.free.toFixed()).toBe(usdt.value.minus(usdt.locked).toFixed());
    expect(usdt.free.lte(9910)).toBe(true);
  });

  it("show a margin position's collateral held and its opening fee paid", async () => {
    const seen: BalanceView[] = [];
    await runScript(
      [flat, flat, flat, flat],
      '',
      {
        at: {
          0: () => marginOpen({ market: 'BTCUSDT', side: 'long', collateral: 1000, riskCoef: 2 }),
          2: (ctx) => void seen.push(ctx.balance('USDT')),
        },
      },
      '{ USDT: 10000 }',
    );
    expect(seen).toHaveLength(1);
    // The opening fee left the balance; the 1000 collateral is held by the exchange, not free.
    expect(seen[0]!.value.lt(10000)).toBe(true);
    expect(seen[0]!.locked.gte(1000)).toBe(true);
    expect(seen[0]!.free.lte(9000)).toBe(true);
  });
});
