/** Hand-worked fills of the candle fill model (prices and quantities worked out on paper). */
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/run.js';
import { limit, market, marginOpen, qty, stopMarket } from '../../src/strategy/builders.js';
import { config, newLog, scripted, T0, writeCandles, type Ohlcv } from './helpers.js';

const flat: Ohlcv = [100, 100.5, 99.8, 100, 50];

async function run(rows: Ohlcv[], extra: string, script: Parameters<typeof scripted>[0], balances?: string) {
  const file = writeCandles(rows);
  const cfg = config(file, { rows: rows.length, extra, ...(balances ? { balances } : {}) });
  return runBacktest(cfg, { instances: [scripted(script)] });
}

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

  it('with a stop and a target inside one candle, a long position meets the stop first', async () => {
    const log = newLog();
    const rows: Ohlcv[] = [flat, flat, [100, 105, 95, 104, 50]];
    await run(rows, '', {
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

  it('caps the fill of a candle at a share of its volume (partial fills)', async () => {
    const log = newLog();
    const rows: Ohlcv[] = [flat, [100, 100, 98, 99.5, 5], [99.5, 99.6, 98, 99, 3], [99, 99.2, 98, 99, 40]];
    const r = await run(rows, '  volumeCapPct: 10', { log, at: { 0: () => limit('BUY', 'BTCUSDT', qty(1), 99) } });
    expect(log.fills.map((f) => f.quantity.toFixed())).toEqual(['0.5', '0.3', '0.2']);
    expect(r.result.orders[0]!.state).toBe('filled');
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
