/**
 * Issue 34 item 3: every template (the bundled strategies `mizan init` copies) comes back after a
 * halt and a resume. A halt cancels every open order and denies everything but cancels; the kernel
 * delivers `onTradingState` on each change (the e2e test: e2e/halt-resume-grid.test.ts).
 */
import { describe, expect, it } from 'vitest';
import grid from '../../strategies/grid.js';
import marketMaker from '../../strategies/market-maker.js';
import marginTrend from '../../strategies/margin-trend.js';
import smaCross from '../../strategies/sma-cross.js';
import rsiReversion from '../../strategies/rsi-reversion.js';
import otcDca from '../../strategies/otc-dca.js';
import { d } from '../../src/core/decimal.js';
import type { Intent } from '../../src/core/intents.js';
import type { Draft } from '../../src/strategy/builders.js';
import type { MarginPosition } from '../../src/core/types/margin.js';
import type { OrderView } from '../../src/strategy/views.js';
import { candle, drafts, harness, simpleBook } from '../support/strategy-harness.js';

const halted = (draft: Draft) => ({ intent: { ...draft, strategy: 'test' } as Intent, rule: 'tradingState', reason: 'halted: operator' });
const show = (ds: Draft[]) =>
  ds.map((x) => (x.kind === 'order' ? `${x.side} ${x.type}${x.price ? '@' + x.price.toFixed() : ''} ${x.tag}` : `${x.kind} ${x.tag ?? ''}`.trim()));

describe('after a halt and a resume', () => {
  it('grid: lays its ladder again and sells the coins it holds (before: nothing for good)', async () => {
    const h = harness(grid, { markets: ['BTCUSDT'], params: { levels: 2, spacingPct: 1, orderQuote: 20 } });
    await h.handlers.onStart!();
    const book = simpleBook('BTCUSDT', '99', '101');
    expect(show(drafts(await h.handlers.onBook!('BTCUSDT', book)))).toEqual(['BUY LIMIT@99 grid-buy-1', 'BUY LIMIT@98 grid-buy-2']);
    const rung = (k: number): OrderView => ({
      clientOrderId: `b${k}`,
      strategy: 'test',
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      quantity: d('0.2'),
      filled: d(0),
      price: d(100 - k),
      state: 'open',
      createdAt: 0,
      tag: `grid-buy-${k}`,
    });
    for (const k of [1, 2]) {
      h.orders.push(rung(k));
      await h.handlers.onOrder!({ order: rung(k), previous: 'pending' });
    }
    // One rung had filled before the halt: 0.2 BTC held at 99, its sell cancelled by the halt with the rest.
    h.setPosition('BTCUSDT', '0.2', '99');
    expect(await h.setTradingState('halted', 'operator')).toEqual([]);
    h.orders.splice(0);
    for (const k of [1, 2]) await h.handlers.onOrder!({ order: { ...rung(k), state: 'cancelled' }, previous: 'open' });
    expect(drafts(await h.handlers.onBook!('BTCUSDT', book))).toEqual([]); // halted: nothing placed
    expect(show(await h.setTradingState('active', 'resumed by the operator'))).toEqual(['SELL LIMIT@99.99 grid-sell']);
    h.clock.advance(1);
    expect(show(drafts(await h.handlers.onBook!('BTCUSDT', book)))).toEqual(['BUY LIMIT@99 grid-buy-1', 'BUY LIMIT@98 grid-buy-2']);
  });

  it("grid: a resume that comes before the halt's cancels lays the ladder once they are done", async () => {
    const h = harness(grid, { markets: ['BTCUSDT'], params: { levels: 1, spacingPct: 1, orderQuote: 20 } });
    const book = simpleBook('BTCUSDT', '99', '101');
    await h.handlers.onBook!('BTCUSDT', book);
    const o: OrderView = {
      clientOrderId: 'b1',
      strategy: 'test',
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      quantity: d('0.2'),
      filled: d(0),
      price: d(99),
      state: 'open',
      createdAt: 0,
      tag: 'grid-buy-1',
    };
    h.orders.push(o);
    await h.handlers.onOrder!({ order: o, previous: 'pending' });
    await h.setTradingState('halted');
    expect(await h.setTradingState('active')).toEqual([]); // its order still listed
    expect(drafts(await h.handlers.onBook!('BTCUSDT', book))).toEqual([]);
    h.orders.splice(0);
    await h.handlers.onOrder!({ order: { ...o, state: 'cancelled' }, previous: 'open' });
    expect(show(drafts(await h.handlers.onBook!('BTCUSDT', book)))).toEqual(['BUY LIMIT@99 grid-buy-1']);
  });

  it('market-maker: quotes nothing while halted and quotes again at the same mid after the resume', async () => {
    const h = harness(marketMaker, { markets: ['BTCUSDT'], params: { minSpreadBps: 100, volMult: 0, refreshMs: 0, orderQuote: 100 } });
    const book = simpleBook('BTCUSDT', '99', '101');
    expect(show(drafts(await h.handlers.onBook!('BTCUSDT', book)))).toEqual(['cancelAll requote', 'BUY LIMIT@99.5 mm-bid']);
    await h.setTradingState('halted');
    h.clock.advance(1);
    expect(drafts(await h.handlers.onBook!('BTCUSDT', simpleBook('BTCUSDT', '89', '91')))).toEqual([]);
    await h.setTradingState('active');
    h.clock.advance(1);
    expect(show(drafts(await h.handlers.onBook!('BTCUSDT', book)))).toEqual(['cancelAll requote', 'BUY LIMIT@99.5 mm-bid']);
  });

  it('margin-trend: a flip denied while halted is entered on the next candle after the resume', async () => {
    const h = harness(marginTrend, { markets: ['BTCUSDT'], params: { fast: 2, slow: 3, stopLossPct: 2, takeProfitPct: 4, collateral: 100, riskCoef: 2 } });
    await h.setTradingState('halted');
    const seen: string[] = [];
    for (const [i, c] of [100, 100, 100, 104].entries()) seen.push(...drafts(await h.handlers.onCandle!('BTCUSDT', candle(i * 60, c))).map((x) => x.kind));
    expect(seen).toEqual(['marginOpen']); // denied: the bot is halted, no position opens
    await h.setTradingState('active');
    const next = drafts(await h.handlers.onCandle!('BTCUSDT', candle(240, 108)));
    expect(next).toMatchObject([{ kind: 'marginOpen', side: 'long' }]);
    h.margin.push({ id: 1, market: 'BTCUSDT', side: 'long', state: 'open' } as MarginPosition);
    await h.setTradingState('halted');
    await h.setTradingState('active');
    expect(drafts(await h.handlers.onCandle!('BTCUSDT', candle(300, 110)))).toEqual([]); // the open position follows the trend
  });

  it('sma-cross: a cross denied while halted is taken at the resume if the averages still stand that way', async () => {
    const h = harness(smaCross, { markets: ['BTCUSDT'], params: { fast: 2, slow: 3, fraction: 0.5 } });
    let last: Draft[] = [];
    for (const [i, c] of [10, 10, 10, 9, 12].entries()) last = drafts(await h.handlers.onCandle!('BTCUSDT', candle(i * 60, c)));
    expect(show(last)).toEqual(['BUY MARKET golden-cross']);
    await h.setTradingState('halted');
    await h.handlers.onDenied!(halted(last[0]!));
    await h.handlers.onCandle!('BTCUSDT', candle(300, 13));
    expect(show(await h.setTradingState('active'))).toEqual(['BUY MARKET golden-cross']);
    expect(await h.setTradingState('active', 'again')).toEqual([]); // taken once
  });

  it('sma-cross: not when the averages crossed back meanwhile', async () => {
    const h = harness(smaCross, { markets: ['BTCUSDT'], params: { fast: 2, slow: 3, fraction: 0.5 } });
    let last: Draft[] = [];
    for (const [i, c] of [10, 10, 10, 9, 12].entries()) last = drafts(await h.handlers.onCandle!('BTCUSDT', candle(i * 60, c)));
    await h.setTradingState('halted');
    await h.handlers.onDenied!(halted(last[0]!));
    await h.handlers.onCandle!('BTCUSDT', candle(300, 5));
    expect(await h.setTradingState('active')).toEqual([]);
  });

  it('rsi-reversion: decides from the position on every candle, so the first candle after the resume takes a signal still there', async () => {
    const h = harness(rsiReversion, { markets: ['BTCUSDT'], params: { period: 2, oversold: 30, overbought: 70 } });
    const out: string[] = [];
    for (const [i, c] of [100, 99, 98, 97].entries()) out.push(...show(drafts(await h.handlers.onCandle!('BTCUSDT', candle(i * 60, c)))));
    expect(out).toHaveLength(2); // candles 2 and 3: oversold and flat (the first was denied while halted)
  });

  it('otc-dca: a buy denied while halted does not count toward maxBuys', async () => {
    const h = harness(otcDca, { markets: ['USDTTMN', 'BTCTMN'], params: { amount: 5_000_000, maxBuys: 2 } });
    await h.setTradingState('halted');
    const denied = drafts(await h.handlers.onSchedule!(1));
    for (const x of denied) await h.handlers.onDenied!(halted(x));
    expect(h.kv.get('buys')).toBe(0);
    await h.setTradingState('active');
    expect(drafts(await h.handlers.onSchedule!(2)).map((x) => x.tag)).toEqual(['dca-1', 'dca-1']);
    expect(drafts(await h.handlers.onSchedule!(3)).map((x) => x.tag)).toEqual(['dca-2', 'dca-2']);
    expect(drafts(await h.handlers.onSchedule!(4))).toEqual([]);
  });
});
