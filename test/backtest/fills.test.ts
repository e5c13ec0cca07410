/** Hand-worked fills of the candle fill model (prices and quantities worked out on paper). */
import { describe, expect, it } from 'vitest';
import { instant, limit, market, marginClose, marginOpen, qty, quote, stopMarket } from '../../src/strategy/builders.js';
import { newLog, runScript, T0, type Ohlcv } from './helpers.js';

const flat: Ohlcv = [100, 100.5, 99.8, 100, 50];

const run = runScript;

describe('candle fill model', () => {
  it('fills a market order at the next candle open plus slippage, never at the deciding close', async () => {
    const log = newLog();
    const rows: Ohlcv[] = [flat, [101, 102, 100.5, 101.5, 50], flat];
    const r = await run(rows, '  slippagePct: 0.1', { log, at: { 0: () => market('BUY', 'BTCUSDT', qty(1)) } });
    expect(log.fills).toHaveLength(1);
    // 101 × 1.001 = 101.101, rounded up to the 0.01 tick.
    expect(log.fills[0]!.price.toFixed()).toBe('101.11');
    expect(log.fills[0]!.timestamp).toBe((T0 + 60) * 1000);
    expect(log.fills[0]!.fee.toFixed()).toBe('0.002'); // taker 0.2 % of 1 BTC, in BTC
    expect(r.result.orders[0]!.state).toBe('filled');
  });

  it('fills a limit that the low trades through at its own price, not one the low only touches', async () => {
    const through = newLog();
    await run([flat, [100, 101, 98.5, 100, 50]], '', { log: through, at: { 0: () => limit('BUY', 'BTCUSDT', qty(1), 99) } });
    expect(through.fills.map((f) => f.price.toFixed())).toEqual(['99']);
    expect(through.fills[0]!.fee.toFixed()).toBe('0.002');
    const touch = newLog();
    const r = await run([flat, [100, 101, 99, 100, 50]], '', { log: touch, at: { 0: () => limit('BUY', 'BTCUSDT', qty(1), 99) } });
    expect(touch.fills).toHaveLength(0);
    expect(r.result.orders[0]!.state).toBe('open');
    const onTouch = newLog();
    await run([flat, [100, 101, 99, 100, 50]], '  fillOnTouch: true', { log: onTouch, at: { 0: () => limit('BUY', 'BTCUSDT', qty(1), 99) } });
    expect(onTouch.fills.map((f) => f.price.toFixed())).toEqual(['99']);
    const outside = newLog();
    await run([flat, [100, 101, 99.5, 100, 50]], '  fillOnTouch: true', { log: outside, at: { 0: () => limit('BUY', 'BTCUSDT', qty(1), 99) } });
    expect(outside.fills).toHaveLength(0);
  });

  it('triggers a stop along the path and fills it at the stop minus slippage, not at the low', async () => {
    const log = newLog();
    const rows: Ohlcv[] = [flat, [100, 103, 95, 102, 50]];
    await run(rows, '  slippagePct: 0.1', { log, at: { 0: () => stopMarket('SELL', 'BTCUSDT', qty(1), 97) } }, '{ USDT: 0, BTC: 1 }');
    expect(log.fills).toHaveLength(1);
    // 97 × 0.999 = 96.903, rounded down to the tick.
    expect(log.fills[0]!.price.toFixed()).toBe('96.9');
    expect(log.fills[0]!.side).toBe('SELL');
  });

  // On the down candle a flat account would play the high first (the target first); a long plays the
  // low first whatever the candle's colour: the path that hurts the position.
  it.each([
    ['an up', [100, 105, 95, 104, 50]],
    ['a down', [100, 105, 95, 96, 50]],
  ] as [string, Ohlcv][])('with a stop and a target inside %s candle, a long position meets the stop first', async (_, candle) => {
    const log = newLog();
    await run([flat, flat, candle], '', {
      log,
      at: {
        0: () => market('BUY', 'BTCUSDT', qty(1)),
        1: () => [stopMarket('SELL', 'BTCUSDT', qty('0.3'), 97), limit('SELL', 'BTCUSDT', qty('0.3'), 103)],
      },
    });
    expect(log.denials).toEqual([]);
    const sells = log.fills.filter((f) => f.side === 'SELL');
    expect(sells.map((f) => f.price.toFixed())).toEqual(['97', '103']);
    expect(sells[0]!.timestamp).toBeLessThan(sells[1]!.timestamp);
  });

  it('a margin short with stop loss and take profit inside one up candle exits at the stop loss', async () => {
    // A flat account would play this up candle low first (the take profit); a short plays it high first.
    const log = newLog();
    const rows: Ohlcv[] = [flat, flat, [100, 105, 95, 104, 50], flat];
    const r = await run(rows, '', {
      log,
      at: { 0: () => marginOpen({ market: 'BTCUSDT', side: 'short', collateral: 1000, riskCoef: 2, stopLoss: 103, takeProfit: 97 }) },
    });
    expect(log.denials).toEqual([]);
    const t = r.result.trades.find((x) => x.side === 'short');
    expect(t?.exit).toBe('stop loss');
    expect(t!.exitTime).toBeGreaterThanOrEqual((T0 + 120) * 1000);
    expect(t!.exitTime).toBeLessThan((T0 + 180) * 1000);
  });

  it('fills an instant order at the deciding candle close plus the instant spread (0.5 %)', async () => {
    const log = newLog();
    const rows: Ohlcv[] = [flat, [100, 101, 99, 100.7, 50], [103, 104, 102, 103, 50]];
    await run(rows, '', { log, at: { 1: () => instant('BUY', 'BTCUSDT', quote(1000)) } });
    expect(log.denials).toEqual([]);
    expect(log.fills).toHaveLength(1);
    // 100.7 × 1.005 = 101.2035, rounded up to the 0.01 tick; at that candle's close, not the next open (103).
    expect(log.fills[0]!.price.toFixed()).toBe('101.21');
    expect(log.fills[0]!.timestamp).toBe((T0 + 120) * 1000);
  });

  it('charges margin interest once per completed 4-hour extension period', async () => {
    // Long, collateral 1,000 × risk coefficient 2: a loan of 1,000 USDT at 0.05 % per period = 0.5 USDT
    // a period. The price never moves, so the trade's PnL differs only by the interest charged.
    const pnlAfter = async (minutes: number) => {
      const rows: Ohlcv[] = Array.from({ length: minutes + 3 }, () => flat);
      const r = await run(rows, '', {
        at: {
          0: () => marginOpen({ market: 'BTCUSDT', side: 'long', collateral: 1000, riskCoef: 2 }),
          [minutes]: (ctx) =>
            ctx
              .marginPositions('BTCUSDT')
              .filter((p) => p.state === 'open')
              .map((p) => marginClose(p.id)),
        },
      });
      const t = r.result.trades.find((x) => x.side === 'long');
      expect(t?.exit).not.toBe('open at end');
      return Number(t!.pnl);
    };
    const before = await pnlAfter(200); // opened at minute 1, closed before 4 h
    const one = await pnlAfter(300); // one period completed
    const two = await pnlAfter(540); // two periods completed
    expect(before - one).toBeCloseTo(0.5, 9);
    expect(one - two).toBeCloseTo(0.5, 9);
  }, 60_000);

  it('charges the configured maker and taker fees', async () => {
    const log = newLog();
    const rows: Ohlcv[] = [flat, [100, 101, 98, 100, 50], flat];
    await run(rows, '  fees: { maker: 0.001, taker: 0.003 }', {
      log,
      at: { 0: () => [market('BUY', 'BTCUSDT', qty(1)), limit('BUY', 'BTCUSDT', qty(2), 99)] },
    });
    const byPrice = Object.fromEntries(log.fills.map((f) => [f.price.toFixed(), f.fee.toFixed()]));
    expect(byPrice).toEqual({ '100': '0.003', '99': '0.002' });
  });

  it('charges the configured fees on margin and instant orders too', async () => {
    // Taker 0.1 %: a 3x margin long on 1,000 (3,000 bought) pays 3 to open; 1 BTC bought instantly
    // pays 0.001 BTC; the market's own rate (0.2 %) would give 6 and 0.002.
    const flat100: Ohlcv = [100, 100, 100, 100, 1000];
    const r = await run([flat100, flat100, flat100, flat100], '  fees: { maker: 0.0005, taker: 0.001 }', {
      at: { 0: () => marginOpen({ market: 'BTCUSDT', side: 'long', collateral: 1000, riskCoef: 3 }), 1: () => instant('BUY', 'BTCUSDT', qty(1)) },
    });
    const fees = Object.fromEntries(r.result.orders.map((o) => [o.type, `${o.fee} ${o.feeAsset}`]));
    expect(fees.MARGIN_OPEN).toBe('3 USDT');
    expect(fees.OTC).toBe('0.001 BTC');
  });

  it('caps the fill of a candle at a share of its volume (partial fills)', async () => {
    const log = newLog();
    const rows: Ohlcv[] = [flat, [100, 100, 98, 99.5, 5], [99.5, 99.6, 98, 99, 3], [99, 99.2, 98, 99, 40]];
    const r = await run(rows, '  volumeCapPct: 10', { log, at: { 0: () => limit('BUY', 'BTCUSDT', qty(1), 99) } });
    expect(log.fills.map((f) => f.quantity.toFixed())).toEqual(['0.5', '0.3', '0.2']);
    expect(r.result.orders[0]!.state).toBe('filled');
  });

  // 319.403 × 0.0001 is 0.031940300000000005 as a float: a float budget less what filled left
  // 7e-18, filled at the candle's second print through the limit (a phantom fill), and the fills
  // were off the market's 0.000001 quantity step. The budget is exact, rounded down to the step.
  it('volume cap fills are whole quantity steps that add up to the order, never a zero fill', async () => {
    const log = newLog();
    // Down candles played high first: 100, 98 (through the 99 limit), 98.5 (through it again).
    const rows: Ohlcv[] = [flat, [100, 100, 98, 98.5, 319.403], [100, 100, 98, 98.5, 631.746], [100, 100, 98, 98.5, 1495.363]];
    const r = await run(rows, '  volumeCapPct: 0.01', { log, at: { 0: () => limit('BUY', 'BTCUSDT', qty('0.2'), 99) } });
    expect(log.denials).toEqual([]);
    // 0.0319403 -> 0.031940; 0.0631746 -> 0.063174; then the 0.104886 left (under 0.149536).
    expect(log.fills.map((f) => f.quantity.toFixed())).toEqual(['0.03194', '0.063174', '0.104886']);
    const last = log.orders[log.orders.length - 1]!.order;
    expect([last.state, last.filled.toFixed()]).toEqual(['filled', '0.2']);
    expect(r.result.orders[0]!.filled).toBe('0.2');
  });

  it('a limit marketable at the next open takes at most the volume cap there, rounded down to the step', async () => {
    const log = newLog();
    // The book at the open holds 631.746 × 0.0001 = 0.0631746 -> 0.063174 BTC at 100.
    const rows: Ohlcv[] = [flat, [100, 100, 100, 100, 631.746]];
    await run(rows, '  volumeCapPct: 0.01', { log, at: { 0: () => limit('BUY', 'BTCUSDT', qty('0.1'), 100) } });
    expect(log.fills[0]!.quantity.toFixed()).toBe('0.063174');
    expect(log.fills.every((f) => f.quantity.gt(0) && f.quantity.decimalPlaces() <= 6)).toBe(true);
  });

  // The cap is per candle: what an order took at the candle's open (placed after the previous close)
  // comes off what the candle's path may still fill. Before, the path started again from the whole
  // share, and a candle filled up to twice its cap.
  it('a candle fills at most its volume cap, what filled at its open included', async () => {
    const log = newLog();
    // The book at each open holds 0.063174 BTC at 100; each path goes down through the 100 limit.
    const c: Ohlcv = [100, 100, 98, 98.5, 631.746];
    await run([flat, c, c, c, c], '  volumeCapPct: 0.01', { log, at: { 0: () => limit('BUY', 'BTCUSDT', qty('0.2'), 100) } });
    const fills = log.fills.map((f) => `${Math.floor((f.timestamp / 1000 - T0) / 60)} ${f.quantity.toFixed()}`);
    expect(fills).toEqual(['1 0.063174', '2 0.063174', '3 0.063174', '4 0.010478']);
  });

  // The entry's own fill (the next open plus slippage, 100.1) is not a price the market traded: it
  // must not reach the take profit (100.05) of the bracket it opens; a later candle that trades
  // through 100.05 does, and the exit fills at that print less slippage.
  it("a bracket's take profit sees the candle path's prints, never the account's own fill", async () => {
    const log = newLog();
    const quiet: Ohlcv = [100, 100.04, 99.9, 100, 50];
    const rows: Ohlcv[] = [flat, quiet, quiet, [100, 100.2, 99.9, 100.1, 50], flat];
    const r = await run(rows, '  slippagePct: 0.1', {
      log,
      at: { 0: () => market('BUY', 'BTCUSDT', qty('0.2'), { brackets: { stopLoss: 95, takeProfit: '100.05' } }) },
    });
    expect(log.denials).toEqual([]);
    expect(log.fills.map((f) => `${f.side} ${f.price.toFixed()} ${Math.floor((f.timestamp / 1000 - T0) / 60)}`)).toEqual([
      'BUY 100.1 1', // 100 × 1.001
      'SELL 99.94 3', // 100.05 × 0.999 = 99.94995, rounded down to the tick, inside candle 3
    ]);
    expect(r.result.trades.map((t) => t.exit)).toEqual(['take profit']);
  });

  it('after a gap through the liquidation price, fees paid count only what the position could pay', async () => {
    // Long 3x on 1,000 collateral at 100: opening fee 6 (0.2 % of the 3,000 bought). The price gaps to
    // 40, far past the liquidation price: the position's equity is negative, the payout is clamped at
    // 0, so the closing fee and the interest were never paid. The account lost 1,000 + 6.
    const flat100: Ohlcv = [100, 100, 100, 100, 1000];
    const rows: Ohlcv[] = [flat100, flat100, flat100, [40, 40, 40, 40, 1000], [40, 40, 40, 40, 1000]];
    const r = await run(rows, '', { at: { 0: () => marginOpen({ market: 'BTCUSDT', side: 'long', collateral: 1000, riskCoef: 3 }) } });
    const t = r.result.trades.find((x) => x.side === 'long');
    expect(t?.exit).toBe('liquidation');
    expect(Number(t!.pnl)).toBe(-1006);
    expect(Number(t!.fees)).toBe(6);
    expect(r.result.metrics.feesPaid.value).toBe(6);
    expect(r.result.summary.endEquity - r.result.summary.startEquity).toBeCloseTo(-1006, 9);
    // The orders agree: the opening fee paid, no closing fee (the position's equity at 40 was negative).
    const fees = Object.fromEntries(r.result.orders.map((o) => [o.type, o.fee]));
    expect(fees).toEqual({ MARGIN_OPEN: '6', MARGIN_CLOSE: '0' });
  });

  it('liquidates a margin position inside the candle that crosses its liquidation price', async () => {
    const log = newLog();
    const rows: Ohlcv[] = [flat, flat, flat, [100, 100.5, 40, 60, 50], flat];
    const r = await run(rows, '', {
      log,
      at: { 0: () => marginOpen({ market: 'BTCUSDT', side: 'long', collateral: 1000, riskCoef: 3, openPrice: 100 }) },
    });
    expect(log.denials).toEqual([]);
    const t = r.result.trades.find((x) => x.side === 'long');
    expect(t?.exit).toBe('liquidation');
    expect(t!.exitTime).toBeGreaterThanOrEqual((T0 + 180) * 1000);
    expect(t!.exitTime).toBeLessThan((T0 + 240) * 1000);
  });
});
