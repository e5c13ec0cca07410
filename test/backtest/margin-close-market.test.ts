/**
 * A marginClose that names no price closes at the market, as a market sell (long) or buy (short)
 * does: priced at the best bid (ask) moved by the strategy's maxSlippagePct (at most 4 %), so a
 * market that moves against the position between the decision and the exchange (the next candle's
 * open in a backtest, the local book's lag in paper and live) still closes it, at the exchange's
 * price; a move in its favour closes it too, at that better price. Beyond the slippage bound it
 * waits at the bound, as a market order beyond its bound is refused. The CLI's side of it:
 * test/e2e/margin-close-backtest.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { MarginPosition } from '../../src/core/types/margin.js';
import { marginClose, marginOpen } from '../../src/strategy/builders.js';
import { runScript, T0, type Ohlcv } from './helpers.js';

const flat: Ohlcv = [100, 100, 100, 100, 1000];

/** Opens at candle 0, closes without a price after candle 2 (a close of 100); candles 3-5 at `nextOpen`. */
async function closeIntoGap(side: 'long' | 'short', nextOpen: number, extra = '') {
  const gap: Ohlcv = [nextOpen, nextOpen, nextOpen, nextOpen, 1000];
  const later: MarginPosition[] = [];
  const r = await runScript([flat, flat, flat, gap, gap, gap], extra, {
    at: {
      0: () => marginOpen({ market: 'BTCUSDT', side, collateral: 1000, riskCoef: 2 }),
      2: (ctx) =>
        ctx
          .marginPositions('BTCUSDT')
          .filter((p) => p.state === 'open')
          .map((p) => marginClose(p.id)),
      4: (ctx) => void later.push(...ctx.marginPositions('BTCUSDT')),
    },
  });
  const trades = r.result.trades.filter((t) => t.side === side);
  expect(trades, `one ${side} trade`).toHaveLength(1);
  return { trade: trades[0]!, denials: r.result.summary.denials, later };
}

describe('marginClose without a price', () => {
  it('closes a long at the next open when the market gaps down within the slippage bound', async () => {
    const { trade, denials, later } = await closeIntoGap('long', 99);
    expect(denials).toBe(0);
    expect(`${trade.exit} @${trade.exitPrice}`).toBe('signal @99');
    expect(trade.exitTime).toBe((T0 + 3 * 60) * 1000); // the open of candle 3
    // Closed, it has left ctx.marginPositions(), as in paper and live (pending and open ones only).
    expect(later).toEqual([]);
  });

  it('closes a short at the next open when the market gaps up within the slippage bound', async () => {
    const { trade } = await closeIntoGap('short', 101);
    expect(`${trade.exit} @${trade.exitPrice}`).toBe('signal @101');
    expect(trade.exitTime).toBe((T0 + 3 * 60) * 1000);
  });

  it("closes at the better price when the market moved 4 % in the position's favour", async () => {
    // The bound (98) is 5.8 % from the new market (104): a close that executes at once is not "too far".
    const long = await closeIntoGap('long', 104);
    expect(`${long.trade.exit} @${long.trade.exitPrice}`).toBe('signal @104');
    const short = await closeIntoGap('short', 96);
    expect(`${short.trade.exit} @${short.trade.exitPrice}`).toBe('signal @96');
  });

  it('moves the price at most 4 % whatever maxSlippagePct allows', async () => {
    // maxSlippagePct 10 would send 90: a close that then waited would be 10 % from the market. 96 is sent.
    const { trade, later } = await closeIntoGap('long', 95, 'risk:\n  limits: { maxSlippagePct: 10 }');
    expect(trade.exit).toBe('open at end');
    expect(later.map((p) => `${p.state} close at ${p.closePrice?.toFixed()}`)).toEqual(['open close at 96']);
  });

  it('waits at the bound beyond the strategy maxSlippagePct, as a market order beyond its bound would not fill', async () => {
    const { trade, denials, later } = await closeIntoGap('long', 99, 'risk:\n  limits: { maxSlippagePct: 0.5 }');
    expect(denials).toBe(0);
    expect(trade.exit).toBe('open at end');
    // Sent at 100 × (1 − 0.5 %) = 99.5; the market at 99 is worse: the position keeps the close pending.
    expect(later.map((p) => `${p.state} close at ${p.closePrice?.toFixed()}`)).toEqual(['open close at 99.5']);
  });

  it('the margin monitor closes near the call price at the market too, though the market fell further by the next open', async () => {
    // Long 2x on 1,000 at 100: 20 BTC, loan 1,000, call price ~55.6. At the close of 60 the call is
    // 7.4 % away, inside closeAtPct 10: the monitor closes; the next open is 59.4, 1 % lower.
    const fall: Ohlcv = [60, 60, 60, 60, 1000];
    const lower: Ohlcv = [59.4, 59.4, 59.4, 59.4, 1000];
    const r = await runScript([flat, flat, flat, fall, lower, lower], 'risk:\n  marginMonitor: { closeAtPct: 10 }', {
      at: { 0: () => marginOpen({ market: 'BTCUSDT', side: 'long', collateral: 1000, riskCoef: 2 }) },
    });
    expect(r.result.trades.map((t) => `${t.side} ${t.exit} @${t.exitPrice}`)).toEqual(['long margin monitor @59.4']);
  });
});
