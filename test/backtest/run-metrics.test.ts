/** What the run feeds the metrics: the equity curve's first point, fees, trades and orders (hand-worked). */
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/run.js';
import { formatSummary } from '../../src/backtest/result.js';
import { dirname } from 'node:path';
import { parseConfig } from '../../src/config/load.js';
import type { StrategyInstance } from '../../src/kernel/trading-core.js';
import { defineStrategy } from '../../src/strategy/define.js';
import { instant, limit, marginClose, marginOpen, market, qty } from '../../src/strategy/builders.js';
import { config, newLog, runScript, scripted, T0, writeCandles, type Ohlcv } from './helpers.js';

const flat: Ohlcv = [100, 100.5, 99.8, 100, 50];

const run = runScript;

describe('the equity curve the metrics get', () => {
  it('starts with the equity before any strategy acts at `from` (a fee paid then is in the return)', async () => {
    const log = newLog();
    // The run starts at its first candle's open (T0 = from, no warm-up candle): the first point is
    // the account then. The first candle closes at T0 + 60; the strategy opens a margin long right then.
    const r = await run([flat, flat, flat], '', {
      log,
      at: { 0: () => marginOpen({ market: 'BTCUSDT', side: 'long', collateral: 1000, riskCoef: 3, openPrice: 100 }) },
    });
    expect(log.denials).toEqual([]);
    expect(r.result.summary.startEquity).toBe(10000);
    expect(r.result.equity.times[0]).toBe(T0 * 1000);
    // the decision at the first close paid the opening fee: the point after it is below 10,000
    expect(r.result.equity.times[1]).toBe((T0 + 60) * 1000);
    expect(r.result.equity.values[1]).toBeLessThan(10000);
    expect(r.result.metrics.totalReturnPct.value).toBeCloseTo((r.result.summary.endEquity / 10000 - 1) * 100, 10);
  });

  it("an order placed in onStart at the first candle's open comes after the start point (its fee is in the return)", async () => {
    const flat100: Ohlcv = [100, 100, 100, 100, 1000];
    const def = defineStrategy({
      name: 'on-start',
      description: 'buys in onStart',
      params: {},
      create: () => ({ onStart: () => limit('BUY', 'BTCUSDT', qty(10), 101) }),
    });
    const inst: StrategyInstance = {
      name: 's',
      definition: def as StrategyInstance['definition'],
      params: {},
      markets: ['BTCUSDT'],
      resolutionSec: 60,
      account: 'main',
    };
    const rows = [flat100, flat100, flat100];
    const r = await runBacktest(config(writeCandles(rows), { rows: rows.length }), { instances: [inst] });
    expect(r.result.orders.map((o) => o.state)).toEqual(['filled']);
    // 10 BTC at 100, taker 0.2 % in BTC: 0.02 BTC = 2 USDT.
    expect(r.result.summary.startEquity).toBe(10000);
    expect(r.result.summary.endEquity).toBeCloseTo(9998, 9);
    expect(r.result.metrics.totalReturnPct.value).toBeCloseTo(-0.02, 9);
  });

  it("values an asset through a slower market from its first candle's open, not from its first close (no fake return)", async () => {
    // BTCUSDT one-minute and BTCTMN hourly, all flat: 50,000,000 TMN = 10 BTC = 1,000 USDT from the start.
    const csv = (n: number, res: number, price: number) =>
      writeCandles(
        Array.from({ length: n }, (): Ohlcv => [price, price, price, price, 50]),
        res,
      );
    const usdt = csv(180, 60, 100);
    const tmn = csv(3, 3600, 5_000_000);
    const cfg = parseConfig(
      `mode: backtest
strategies:
  - { name: a, strategy: sma-cross, markets: [BTCUSDT], resolution: "60s" }
  - { name: b, strategy: sma-cross, markets: [BTCTMN], resolution: "3600s" }
backtest:
  data: [ { symbol: BTCUSDT, file: ${JSON.stringify(usdt)} }, { symbol: BTCTMN, file: ${JSON.stringify(tmn)} } ]
  from: ${T0}
  to: ${T0 + 3 * 3600}
  balances: { USDT: 10000, TMN: 50000000 }
journal: { file: ":memory:" }
`,
      { baseDir: dirname(usdt) },
    );
    const a = { ...scripted({}), name: 'a', markets: ['BTCUSDT'], resolutionSec: 60 };
    const b = { ...scripted({}, 3600), name: 'b', markets: ['BTCTMN'], resolutionSec: 3600 };
    const r = await runBacktest(cfg, { instances: [a, b] });
    expect(r.result.summary.startEquity).toBe(11000);
    expect(r.result.summary.endEquity).toBe(11000);
    expect(new Set(r.result.equity.values)).toEqual(new Set([11000]));
    expect(r.result.metrics.totalReturnPct.value).toBe(0);
  });

  it('a spot buy at the first close: start 10,000, the buy after it', async () => {
    const r = await run([flat, flat, flat], '', { at: { 0: () => market('BUY', 'BTCUSDT', qty(1)) } });
    expect(r.result.summary.startEquity).toBe(10000);
  });
});

describe('margin positions in the metrics', () => {
  it('counts opening and closing fees, lists a position open at the end, and credits the strategy that opened it', async () => {
    // Flat at 100, no slippage, taker 0.2 %. Strategy `b` opens a 3x long with 1,000 USDT at candle 0
    // (N = 3,000: opening fee 6, 30 BTC), closes it at candle 2 at 100 (closing fee 30 x 100 x 0.2 % = 6;
    // payout 994, desk profit -6, pnl -6 - 6 = -12), and opens another at candle 3, open at the end
    // (opening fee 6, marked at 100 without a closing fee: pnl -6). No interest (minutes, not 4 hours).
    // Fees paid 18; end equity 10,000 - 18. Strategy `a` trades nothing.
    const rows: Ohlcv[] = [flat, flat, flat, flat, flat, flat];
    const log = newLog();
    const open = () => marginOpen({ market: 'BTCUSDT', side: 'long', collateral: 1000, riskCoef: 3, openPrice: 100 });
    const b = {
      ...scripted({
        log,
        at: {
          0: open,
          2: (ctx) => {
            const p = ctx.marginPositions('BTCUSDT').find((x) => x.state === 'open');
            return p ? marginClose(p.id, 100) : undefined;
          },
          3: open,
        },
      }),
      name: 'b',
    };
    const a = { ...scripted({}), name: 'a' };
    const file = writeCandles(rows);
    const r = await runBacktest(config(file, { rows: rows.length }), { instances: [a, b] });
    expect(log.denials).toEqual([]);
    const trades = r.result.trades.map((t) => ({ strategy: t.strategy, exit: t.exit, pnl: t.pnl, fees: t.fees, quantity: t.quantity }));
    expect(trades).toEqual([
      { strategy: 'b', exit: 'signal', pnl: '-12', fees: '12', quantity: '30' },
      { strategy: 'b', exit: 'open at end', pnl: '-6', fees: '6', quantity: '30' },
    ]);
    expect(r.result.metrics.feesPaid.value).toBe(18);
    expect(r.result.summary.endEquity).toBe(9982);
    expect(r.result.metrics.expectancy.value).toBe(-9);
    // the desk's orders are in the result: two openings, one closing, each with its fee
    expect(r.result.orders.map((o) => `${o.kind} ${o.strategy} ${o.type} ${o.side} ${o.quantity} fee ${o.fee} ${o.state} ${o.reason}`)).toEqual([
      'margin b MARGIN_OPEN BUY 30 fee 6 filled null',
      'margin b MARGIN_CLOSE SELL 30 fee 6 filled user',
      'margin b MARGIN_OPEN BUY 30 fee 6 filled null',
    ]);
    expect(r.result.summary.orders).toBe(3);
  });
});

describe('spot trade pnl is what was bought and sold', () => {
  it('fee dust below a coarse quantity step: valued at the exit price, the base fee counted once', async () => {
    // XYZUSDT declared with quantityPrecision 0 (step 1), fees 0.1 %, no slippage. Buy 2 at 2,000
    // (cost 4,000; fee 0.002 XYZ, so 1.998 XYZ arrive); the sell of the position rounds down to 1 and
    // fills at 2,060 (+3 %): proceeds 2,060, fee 2.06 USDT. 0.998 XYZ is left (below the step): valued
    // at 2,060 = 2,055.88. pnl = 2,060 + 2,055.88 − 4,000 − 2.06 = 113.82 (the base fee is already out
    // of the 1.998); % of cost + quote fees = 113.82 / 4,002.06 = 2.84404 %; fees = 0.002 × 2,000 + 2.06 = 6.06.
    const rows: Ohlcv[] = [
      [2000, 2000, 2000, 2000, 1000],
      [2000, 2000, 2000, 2000, 1000],
      [2000, 2000, 2000, 2000, 1000],
      [2060, 2060, 2060, 2060, 1000],
      [2060, 2060, 2060, 2060, 1000],
    ];
    const file = writeCandles(rows);
    const text = `mode: backtest
strategies:
  - { name: s, strategy: sma-cross, markets: [XYZUSDT], resolution: "60s" }
backtest:
  data: [ { symbol: XYZUSDT, file: ${JSON.stringify(file)} } ]
  markets:
    - { symbol: XYZUSDT, base: XYZ, quote: USDT, pricePrecision: 2, quantityPrecision: 0, minQty: 1, minNotional: 0, makerFee: 0.001, takerFee: 0.001 }
  from: ${T0}
  to: ${T0 + rows.length * 60}
  balances: { USDT: 10000 }
journal: { file: ":memory:" }
`;
    const { parseConfig } = await import('../../src/config/load.js');
    const { dirname } = await import('node:path');
    const log = newLog();
    const inst = scripted({
      log,
      at: {
        0: () => market('BUY', 'XYZUSDT', qty(2)),
        2: (ctx) => market('SELL', 'XYZUSDT', qty(ctx.position('XYZUSDT')!.quantity)),
      },
    });
    const r = await runBacktest(parseConfig(text, { baseDir: dirname(file) }), { instances: [{ ...inst, markets: ['XYZUSDT'] }] });
    expect(log.denials).toEqual([]);
    expect(log.fills.map((f) => `${f.side} ${f.quantity.toFixed()} @ ${f.price.toFixed()} fee ${f.fee.toFixed()} ${f.feeAsset}`)).toEqual([
      'BUY 2 @ 2000 fee 0.002 XYZ',
      'SELL 1 @ 2060 fee 2.06 USDT',
    ]);
    expect(r.result.trades).toHaveLength(1);
    const t = r.result.trades[0]!;
    expect(t.pnl).toBe('113.82');
    expect(t.pnlPct).toBeCloseTo(2.844035322, 8);
    expect(t.fees).toBe('6.06');
    expect(t.exitPrice).toBe('2060');
    expect(t.quantity).toBe('2');
    // the account: 10,000 − 4,000 + 2,057.94 USDT and 0.998 XYZ at 2,060 = 10,113.82
    expect(r.result.summary.endEquity).toBeCloseTo(10113.82, 8);
  });
});

describe('orders in the result', () => {
  it('lists instant orders with their kind, next to spot ones', async () => {
    const r = await run([flat, flat, flat], '', {
      at: { 0: () => instant('BUY', 'BTCUSDT', qty('0.5'), 'otc-1'), 1: () => market('BUY', 'BTCUSDT', qty('0.1')) },
    });
    expect(r.result.orders.map((o) => `${o.kind} ${o.type} ${o.side} ${o.filled} ${o.state} ${o.tag}`)).toEqual([
      'instant OTC BUY 0.5 filled otc-1',
      'spot MARKET BUY 0.1 filled null',
    ]);
    expect(r.result.orders[0]!.strategy).toBe('s');
  });

  it('gives the reason of a market order cancelled by the volume cap', async () => {
    // next candle's volume 5, cap 10 %: at most 0.5 may fill; a market order of 1 is cancelled whole
    const r = await run([flat, [100, 100, 98, 99.5, 5], flat], '  volumeCapPct: 10', { at: { 0: () => market('BUY', 'BTCUSDT', qty(1)) } });
    const o = r.result.orders[0]!;
    expect(o.state).toBe('cancelled');
    expect(o.reason).toBe('market order of 1 is larger than the volume cap of the next candle (10 % of its volume 5 = 0.5)');
    // with no next candle the exchange refuses it, with its own reason
    const last = await run([flat, flat], '', { at: { 1: () => market('BUY', 'BTCUSDT', qty(1)) } });
    expect(last.result.orders[0]!.reason).not.toBeNull();
  });

  it("counts how the orders ended, with the exchange's reasons grouped by wording", async () => {
    // Two market orders over the cap (cancelled with the venue's reason), one within it (filled).
    const r = await run([flat, [100, 100, 98, 99.5, 5], [100, 100, 98, 99.5, 7], [100, 100, 98, 99.5, 50], flat], '  volumeCapPct: 10', {
      at: { 0: () => market('BUY', 'BTCUSDT', qty(1)), 1: () => market('BUY', 'BTCUSDT', qty(2)), 2: () => market('BUY', 'BTCUSDT', qty(1)) },
    });
    expect(r.result.orderEndings).toEqual({
      states: { cancelled: 2, filled: 1 },
      reasons: [
        {
          state: 'cancelled',
          count: 2,
          reason: 'market order of 1 is larger than the volume cap of the next candle (10 % of its volume 5 = 0.5)',
          firstOrder: r.result.orders[0]!.clientOrderId,
        },
      ],
    });
    expect(formatSummary(r.result)).toContain('orders 3 (2 cancelled, 1 filled)');
  });
});

describe('assets in other currencies', () => {
  async function twoMarkets(balances: string, tmnRows: Ohlcv[] | undefined, script: Parameters<typeof scripted>[0], sym = 'BTCTMN') {
    const usdt = writeCandles([flat, flat, flat, flat]);
    const data = [`{ symbol: BTCUSDT, file: ${JSON.stringify(usdt)} }`];
    if (tmnRows) data.push(`{ symbol: ${sym}, file: ${JSON.stringify(writeCandles(tmnRows))} }`);
    const text = `mode: backtest
strategies:
  - { name: s, strategy: sma-cross, markets: [${tmnRows ? sym : 'BTCUSDT'}], resolution: "60s" }
backtest:
  data: [ ${data.join(', ')} ]
  from: ${T0}
  to: ${T0 + 4 * 60}
  balances: ${balances}
journal: { file: ":memory:" }
`;
    const { parseConfig } = await import('../../src/config/load.js');
    const { dirname } = await import('node:path');
    const { formatSummary } = await import('../../src/backtest/result.js');
    const inst = { ...scripted(script), markets: [tmnRows ? sym : 'BTCUSDT'] };
    const r = await runBacktest(parseConfig(text, { baseDir: dirname(usdt) }), { instances: [inst] });
    return { r, summary: formatSummary(r.result) };
  }

  it('names a balance no market of the run can value, in the data report, the summary and result.json', async () => {
    const { r, summary } = await twoMarkets('{ USDT: 10000, TMN: 10000 }', undefined, {});
    expect(r.result.summary.startEquity).toBe(10000);
    expect(r.result.unpricedAssets).toEqual(['TMN']);
    expect(r.result.data.problems.some((p) => p.startsWith('TMN: the starting balance cannot be valued in USDT'))).toBe(true);
    expect(summary).toContain('warning: TMN cannot be valued in USDT');
  });

  it('values TMN through BTCTMN and BTCUSDT, and converts TMN fees and pnl to USDT when paid', async () => {
    // 1 BTC = 100 USDT = 5,000,000 TMN, so 1 TMN = 0.00002 USDT; 50,000,000 TMN = 1,000 USDT.
    // BTCTMN's taker fee is 0.4 %. Buy 1 BTC on BTCTMN (fee 0.004 BTC = 20,000 TMN = 0.4 USDT), sell
    // the 0.996 (fee 0.4 % of 4,980,000 = 19,920 TMN = 0.3984 USDT). Fees paid 0.7984 USDT (39,920 TMN);
    // the trade: pnl 4,980,000 − 5,000,000 − 19,920 = −39,920 TMN = −0.7984 USDT (the expectancy, in USDT).
    const tmn: Ohlcv = [5_000_000, 5_000_000, 5_000_000, 5_000_000, 50];
    const { r, summary } = await twoMarkets('{ USDT: 10000, TMN: 50000000 }', [tmn, tmn, tmn, tmn], {
      at: { 0: () => market('BUY', 'BTCTMN', qty(1)), 2: () => market('SELL', 'BTCTMN', qty('0.996')) },
    });
    expect(r.result.unpricedAssets).toEqual([]);
    expect(r.result.summary.startEquity).toBe(11000);
    expect(r.result.fees).toEqual({ reference: 'USDT', paid: '0.7984', byAsset: { TMN: '39920' }, unconverted: {} });
    expect(r.result.metrics.feesPaid.value).toBe(0.7984);
    const t = r.result.trades[0]!;
    expect([t.pnl, t.quote, t.pnlReference, t.exit]).toEqual(['-39920', 'TMN', '-0.7984', 'signal']);
    expect(r.result.metrics.expectancy.value).toBe(-0.7984);
    expect(r.result.summary.endEquity).toBeCloseTo(11000 - 0.7984, 9);
    expect(summary).not.toContain('warning');
  });

  it('keeps fees and pnl in an asset the run cannot price apart, and says so', async () => {
    // ETHTMN next to BTCUSDT: nothing converts TMN (or ETH) to USDT.
    const eth: Ohlcv = [200_000, 200_000, 200_000, 200_000, 50];
    const { r, summary } = await twoMarkets(
      '{ USDT: 10000, TMN: 1000000 }',
      [eth, eth, eth, eth],
      {
        at: { 0: () => market('BUY', 'ETHTMN', qty(1)), 2: () => market('SELL', 'ETHTMN', qty('0.996')) },
      },
      'ETHTMN',
    );
    expect(r.result.unpricedAssets).toEqual(['ETH', 'TMN']);
    expect(r.result.fees.paid).toBe('0');
    expect(r.result.fees.unconverted).toEqual({ TMN: '1596.8' });
    expect(r.result.metrics.feesPaid.value).toBe(0);
    expect(r.result.metrics.expectancy).toEqual({ value: null, reason: 'pnl of trades in TMN cannot be valued in USDT (no market of the run converts it)' });
    expect(summary).toContain('warning: fees not in "Fees paid" (no price in USDT): 1596.8 TMN');
  });

  it('values the open profit of a margin position in TMN in USDT', async () => {
    // A 2x long on BTCTMN with 1,000,000 TMN at 5,000,000 (0.4 BTC; opening fee 0.4 % of 2,000,000 =
    // 8,000 TMN); the last close is 5,500,000: open profit 0.4 × 500,000 = 200,000 TMN. TMN is worth
    // 100 / 5,500,000 USDT at the end: equity = 10,000 + (50,000,000 − 8,000 + 200,000) × 100 / 5,500,000
    // = 10,912.581818... (the profit used to be added as 200,000 "USDT").
    const tmn: Ohlcv = [5_000_000, 5_000_000, 5_000_000, 5_000_000, 50];
    const { r } = await twoMarkets('{ USDT: 10000, TMN: 50000000 }', [tmn, tmn, tmn, [5_000_000, 5_500_000, 5_000_000, 5_500_000, 50]], {
      at: { 0: () => marginOpen({ market: 'BTCTMN', side: 'long', collateral: 1000000, riskCoef: 2, openPrice: 5000000 }) },
    });
    expect(r.result.summary.endEquity).toBeCloseTo(10000 + ((50_000_000 - 8_000 + 200_000) * 100) / 5_500_000, 6);
    const t = r.result.trades[0]!;
    expect([t.exit, t.pnl, t.quote]).toEqual(['open at end', '192000', 'TMN']);
    expect(Number(t.pnlReference)).toBeCloseTo((192_000 * 100) / 5_500_000, 9);
  });
});
