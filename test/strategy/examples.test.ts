import { describe, expect, it } from 'vitest';
import smaCross from '../../strategies/sma-cross.js';
import rsiReversion from '../../strategies/rsi-reversion.js';
import grid from '../../strategies/grid.js';
import marketMaker from '../../strategies/market-maker.js';
import marginTrend from '../../strategies/margin-trend.js';
import otcDca from '../../strategies/otc-dca.js';
import { d } from '../../src/core/decimal.js';
import type { Intent } from '../../src/core/intents.js';
import type { MarginPosition } from '../../src/core/types/margin.js';
import type { Draft } from '../../src/strategy/builders.js';
import { candle, drafts, harness, simpleBook } from '../support/strategy-harness.js';

describe('sma-cross', () => {
  it('buys on the golden cross, sells the position on the death cross, and nothing in between', async () => {
    const h = harness(smaCross, { markets: ['BTCUSDT'], params: { fast: 2, slow: 3, fraction: 0.5 } });
    const closes = [10, 10, 10, 9, 12, 13, 14, 10, 8];
    const out: string[] = [];
    for (const [i, c] of closes.entries()) {
      for (const dr of drafts(await h.handlers.onCandle!('BTCUSDT', candle(i * 60, c)))) {
        out.push(`${i}:${dr.kind}:${'side' in dr ? dr.side : ''}:${dr.tag}`);
        if (dr.kind === 'order' && dr.side === 'BUY') h.setPosition('BTCUSDT', '0.3');
        if (dr.kind === 'order' && dr.side === 'SELL') {
          expect(dr.size).toEqual({ kind: 'base', quantity: d('0.3') });
          h.setPosition('BTCUSDT', '0');
        }
      }
    }
    // i=4: fast=(9+12)/2=10.5 > slow=(10+9+12)/3=10.33 after being below at i=3 -> buy.
    // i=7: fast=(14+10)/2=12 < slow=(13+14+10)/3=12.33 -> sell.
    expect(out).toEqual(['4:order:BUY:golden-cross', '7:order:SELL:death-cross']);
  });
  it('refuses fast >= slow', () => {
    expect(() => harness(smaCross, { markets: ['BTCUSDT'], params: { fast: 5, slow: 5 } })).toThrow(/smaller/);
  });
});

describe('rsi-reversion', () => {
  it('buys when oversold and sells when overbought', async () => {
    const h = harness(rsiReversion, { markets: ['BTCUSDT'], params: { period: 2, oversold: 30, overbought: 70 } });
    const kinds: string[] = [];
    for (const [i, c] of [100, 99, 98, 97, 99, 101, 103].entries()) {
      for (const dr of drafts(await h.handlers.onCandle!('BTCUSDT', candle(i, c)))) {
        kinds.push(`${i}:${'side' in dr ? dr.side : ''}`);
        if ('side' in dr) h.setPosition('BTCUSDT', dr.side === 'BUY' ? '1' : '0');
      }
    }
    // RSI(2), Wilder: falls to 0 by candle 2 (three losses) -> buy; the rebound lifts it above 70 at candle 5 -> sell.
    expect(kinds).toEqual(['2:BUY', '5:SELL']);
  });
});

const show = (ds: Draft[]) => ds.map((x) => (x.kind === 'order' ? `${x.side} ${x.type}${x.price ? '@' + x.price.toFixed() : ''} ${x.tag}` : x.kind));

/** A grid sell of 0.2 BTC filled at 100 (the order update the grid answers with its rebuy). */
const filledSell = {
  clientOrderId: 's',
  strategy: 'test',
  symbol: 'BTCUSDT',
  side: 'SELL' as const,
  type: 'LIMIT',
  quantity: d('0.2'),
  filled: d('0.2'),
  avgPrice: d(100),
  state: 'filled' as const,
  createdAt: 0,
  tag: 'grid-sell',
};

describe('grid', () => {
  it('lays a ladder of buys below the mid once, then answers fills one step away', async () => {
    const h = harness(grid, { markets: ['BTCUSDT'], params: { levels: 3, spacingPct: 1, orderQuote: 20 } });
    const first = drafts(await h.handlers.onBook!('BTCUSDT', simpleBook('BTCUSDT', '99', '101')));
    expect(first.map((x) => (x.kind === 'order' ? `${x.side}@${x.price!.toFixed()}` : x.kind))).toEqual(['BUY@99', 'BUY@98', 'BUY@97']);
    expect(drafts(await h.handlers.onBook!('BTCUSDT', simpleBook('BTCUSDT', '99', '101')))).toEqual([]);
    const order = {
      clientOrderId: 'a',
      strategy: 'test',
      symbol: 'BTCUSDT',
      side: 'BUY' as const,
      type: 'LIMIT',
      quantity: d('0.2'),
      filled: d('0.2'),
      avgPrice: d(99),
      state: 'filled' as const,
      createdAt: 0,
    };
    h.setPosition('BTCUSDT', '0.1996'); // the buy fee was taken in BTC
    const sell = drafts(await h.handlers.onOrder!({ order, previous: 'open' }));
    expect(sell).toHaveLength(1);
    expect((sell[0] as { size: unknown }).size).toEqual({ kind: 'base', quantity: d('0.1996') });
    expect(sell[0]).toMatchObject({ kind: 'order', side: 'SELL', type: 'LIMIT', tag: 'grid-sell' });
    expect((sell[0] as { price: typeof order.avgPrice }).price.toFixed()).toBe('99.99');
    const rebuy = drafts(await h.handlers.onOrder!({ order: { ...order, side: 'SELL', avgPrice: d(100) }, previous: 'open' }));
    expect((rebuy[0] as { price: typeof order.avgPrice }).price.toFixed()).toBe('99');
  });
  it('sells what a filled buy left it, not more, while an earlier rung is on sale (fee taken in the base asset)', async () => {
    // Seen in a paper bot: the position held an earlier rung (0.1996, its sell open) plus the new
    // one (0.1996 net of a 0.0004 BTC fee). The sell was sized at the gross 0.2, more than the free
    // 0.1996, and was denied by the balance rule until the 30 s retry.
    const h = harness(grid, { markets: ['BTCUSDT'], params: { levels: 3, spacingPct: 1, orderQuote: 20 } });
    const buy = {
      clientOrderId: 'b2',
      strategy: 'test',
      symbol: 'BTCUSDT',
      side: 'BUY' as const,
      type: 'LIMIT',
      quantity: d('0.2'),
      filled: d('0.2'),
      avgPrice: d(98),
      state: 'filled' as const,
      createdAt: 0,
      tag: 'grid-buy-2',
    };
    const earlierSell = {
      ...buy,
      clientOrderId: 's1',
      side: 'SELL' as const,
      quantity: d('0.1996'),
      filled: d(0),
      price: d('99.99'),
      state: 'open' as const,
      tag: 'grid-sell',
    };
    h.orders.push(earlierSell);
    h.setPosition('BTCUSDT', '0.3992', '98.5');
    const sell = drafts(await h.handlers.onOrder!({ order: buy, previous: 'open' }));
    expect(sell).toHaveLength(1);
    expect((sell[0] as { size: unknown }).size).toEqual({ kind: 'base', quantity: d('0.1996') });
  });
  it('at start keeps a recovered ladder and sells what its buys bought while the bot was down', async () => {
    const h = harness(grid, { markets: ['BTCUSDT'], params: { levels: 3, spacingPct: 1, orderQuote: 20 } });
    const rung = {
      clientOrderId: 'r',
      strategy: 'test',
      symbol: 'BTCUSDT',
      side: 'BUY' as const,
      type: 'LIMIT',
      quantity: d('0.2'),
      filled: d(0),
      price: d(98),
      state: 'open' as const,
      createdAt: 0,
      tag: 'grid-buy-2',
    };
    const sellOpen = { ...rung, clientOrderId: 's', side: 'SELL' as const, quantity: d('0.1'), price: d('100.98'), tag: 'grid-sell' };
    h.orders.push(rung, sellOpen);
    h.setPosition('BTCUSDT', '0.3', '99'); // 0.1 of it is on sale already
    const start = drafts(await h.handlers.onStart!());
    expect(
      start.map((x) =>
        x.kind === 'order' ? `${x.side} ${(x.size as { quantity: ReturnType<typeof d> }).quantity.toFixed()}@${x.price!.toFixed()} ${x.tag}` : x.kind,
      ),
    ).toEqual(['SELL 0.2@99.99 grid-sell']);
    // The ladder stands: no second one.
    expect(drafts(await h.handlers.onBook!('BTCUSDT', simpleBook('BTCUSDT', '99', '101')))).toEqual([]);
  });
  it('at start with nothing open and nothing held lays a new ladder on the first healthy book', async () => {
    const h = harness(grid, { markets: ['BTCUSDT'], params: { levels: 2, spacingPct: 1, orderQuote: 20 } });
    expect(drafts(await h.handlers.onStart!())).toEqual([]);
    expect(drafts(await h.handlers.onBook!('BTCUSDT', simpleBook('BTCUSDT', '99', '101')))).toHaveLength(2);
  });
  // Before: a denied sell left the grid counting its ladder as standing, so it placed nothing again
  // (e2e/api-server.test.ts met it: a strategy restarted inside the order-rate window).
  it('sends a denied sell again once the wait the denial names is over, and only then', async () => {
    const h = harness(grid, { markets: ['BTCUSDT'], params: { levels: 2, spacingPct: 1, orderQuote: 20 } });
    h.setPosition('BTCUSDT', '0.3', '99');
    const [sell] = drafts(await h.handlers.onStart!());
    expect(sell).toMatchObject({ side: 'SELL', tag: 'grid-sell' });
    await h.handlers.onDenied!({ intent: { ...sell!, strategy: 'test' } as Intent, rule: 'orderRate', reason: 'no slot', retryAfterMs: 3_000 });
    const book = simpleBook('BTCUSDT', '99', '101');
    expect(drafts(await h.handlers.onBook!('BTCUSDT', book))).toEqual([]);
    h.clock.advance(3_000);
    // The coins get their sell; no second ladder while they are held.
    expect(show(drafts(await h.handlers.onBook!('BTCUSDT', book)))).toEqual(['SELL LIMIT@99.99 grid-sell']);
    expect(drafts(await h.handlers.onBook!('BTCUSDT', book))).toEqual([]);
  });
  it('lays the ladder again when its rebuy (its last order) was denied and nothing is held', async () => {
    const h = harness(grid, { markets: ['BTCUSDT'], params: { levels: 1, spacingPct: 1, orderQuote: 20 } });
    const book = simpleBook('BTCUSDT', '99', '101');
    expect(drafts(await h.handlers.onBook!('BTCUSDT', book))).toHaveLength(1);
    const rung = {
      clientOrderId: 'b',
      strategy: 'test',
      symbol: 'BTCUSDT',
      side: 'BUY' as const,
      type: 'LIMIT',
      quantity: d('0.2'),
      filled: d(0),
      state: 'open' as const,
      createdAt: 0,
      tag: 'grid-buy-1',
    };
    await h.handlers.onOrder!({ order: rung, previous: 'pending' });
    // It filled, its sell filled: nothing is held, nothing stands, the rebuy is denied.
    const sold = filledSell;
    const [rebuy] = drafts(await h.handlers.onOrder!({ order: sold, previous: 'open' }));
    expect(rebuy).toMatchObject({ side: 'BUY', tag: 'grid-rebuy' });
    await h.handlers.onDenied!({ intent: { ...rebuy!, strategy: 'test' } as Intent, rule: 'balance', reason: 'not enough USDT' });
    h.clock.advance(29_999);
    expect(drafts(await h.handlers.onBook!('BTCUSDT', book))).toEqual([]);
    h.clock.advance(1);
    expect(show(drafts(await h.handlers.onBook!('BTCUSDT', book)))).toEqual(['BUY LIMIT@99 grid-buy-1']);
  });
  it('tries a ladder denied whole by the order rate again when a slot is free, not 30 s later', async () => {
    const h = harness(grid, { markets: ['BTCUSDT'], params: { levels: 2, spacingPct: 1, orderQuote: 20 } });
    const book = simpleBook('BTCUSDT', '99', '101');
    const rungs = drafts(await h.handlers.onBook!('BTCUSDT', book));
    for (const [i, r] of rungs.entries())
      await h.handlers.onDenied!({ intent: { ...r, strategy: 'test' } as Intent, rule: 'orderRate', reason: 'no slot', retryAfterMs: 1_000 + i * 500 });
    h.clock.advance(1_499);
    expect(drafts(await h.handlers.onBook!('BTCUSDT', book))).toEqual([]);
    h.clock.advance(1);
    expect(show(drafts(await h.handlers.onBook!('BTCUSDT', book)))).toEqual(['BUY LIMIT@99 grid-buy-1', 'BUY LIMIT@98 grid-buy-2']);
  });
  it('leaves dust alone: no sell the exchange would refuse, and the ladder is laid again over it', async () => {
    // Seen in a paper bot: a sell's fee left 0.00004 BTC (below the 0.0001 minimum). Every 30 s the
    // grid sold it again, was denied and warned, and never laid its ladder again (coins were "held").
    const rules = { BTCUSDT: { quantityPrecision: 6, minQty: '0.0001', minNotional: 5 } };
    const h = harness(grid, { markets: ['BTCUSDT'], params: { levels: 1, spacingPct: 1, orderQuote: 20 }, marketRules: rules });
    h.setPosition('BTCUSDT', '0.00004', '100');
    expect(drafts(await h.handlers.onStart!())).toEqual([]);
    const book = simpleBook('BTCUSDT', '99', '101');
    expect(show(drafts(await h.handlers.onBook!('BTCUSDT', book)))).toEqual(['BUY LIMIT@99 grid-buy-1']);
    const rung = { clientOrderId: 'r', strategy: 'test', symbol: 'BTCUSDT', side: 'BUY' as const, type: 'LIMIT', quantity: d('0.2') };
    await h.handlers.onOrder!({ order: { ...rung, filled: d(0), state: 'open', createdAt: 0, tag: 'grid-buy-1' }, previous: 'pending' });
    // The rung filled and its sell filled, leaving the dust; the rebuy is denied; after the wait the
    // ladder comes back, with no sell of the dust.
    const sold = filledSell;
    const [rebuy] = drafts(await h.handlers.onOrder!({ order: sold, previous: 'open' }));
    await h.handlers.onDenied!({ intent: { ...rebuy!, strategy: 'test' } as Intent, rule: 'balance', reason: 'not enough USDT' });
    h.clock.advance(30_000);
    expect(show(drafts(await h.handlers.onBook!('BTCUSDT', book)))).toEqual(['BUY LIMIT@99 grid-buy-1']);
    // A filled buy gets its sell of what it bought; a fill of only dust gets none.
    const bought = { ...sold, clientOrderId: 'b', side: 'BUY' as const, tag: 'grid-buy-1' };
    h.setPosition('BTCUSDT', '0.20004', '100');
    expect(show(drafts(await h.handlers.onOrder!({ order: bought, previous: 'open' })))).toEqual(['SELL LIMIT@101 grid-sell']);
    const crumb = { ...bought, clientOrderId: 'c', quantity: d('0.00004'), filled: d('0.00004') };
    expect(drafts(await h.handlers.onOrder!({ order: crumb, previous: 'open' }))).toEqual([]);
  });
  it('places nothing on an unhealthy book', async () => {
    const h = harness(grid, { markets: ['BTCUSDT'] });
    expect(drafts(await h.handlers.onBook!('BTCUSDT', simpleBook('BTCUSDT', '99', '101', false)))).toEqual([]);
  });
});

describe('market-maker', () => {
  it('quotes around the mid, skews with inventory, and pulls quotes when the book is unhealthy', async () => {
    const h = harness(marketMaker, { markets: ['BTCUSDT'], params: { minSpreadBps: 100, volMult: 0, refreshMs: 0, orderQuote: 100, maxInventoryQuote: 1000 } });
    const q1 = drafts(await h.handlers.onBook!('BTCUSDT', simpleBook('BTCUSDT', '99', '101')));
    // flat inventory: half spread 0.5% around mid 100 -> bid 99.5, no ask (nothing to sell)
    expect(q1.map((x) => x.kind)).toEqual(['cancelAll', 'order']);
    expect((q1[1] as { price: ReturnType<typeof d> }).price.toFixed()).toBe('99.5');
    h.setPosition('BTCUSDT', '5'); // inventory 5 * 100 = 500 of 1000 -> skew 0.5 -> both quotes 0.25% lower
    h.setBalance('BTC', '5');
    h.clock.advance(1);
    const q2 = drafts(await h.handlers.onBook!('BTCUSDT', simpleBook('BTCUSDT', '98', '102')));
    const prices = q2.filter((x) => x.kind === 'order').map((x) => `${(x as { side: string }).side}@${(x as { price: ReturnType<typeof d> }).price.toFixed()}`);
    // mid 100 (requote: mid moved 0.5% > 5 bps): bid = 100*(1-0.005-0.0025) = 99.25, ask = 100*(1+0.005-0.0025) = 100.25
    expect(prices).toEqual(['BUY@99.25', 'SELL@100.25']);
    // The ask sells only free base: 4 of the 5 held are locked in a resting order -> an ask of 1
    // (100 / 100.25 would be 0.9975: the quote size binds first; with 0.5 free, 0.5 it is).
    h.setBalance('BTC', '5', '4.5');
    h.clock.advance(1);
    const q3 = drafts(await h.handlers.onBook!('BTCUSDT', simpleBook('BTCUSDT', '97', '101')));
    expect(
      q3
        .filter((x) => x.kind === 'order' && (x as { side: string }).side === 'SELL')
        .map((x) => (x as { size: { quantity: ReturnType<typeof d> } }).size.quantity.toFixed()),
    ).toEqual(['0.5']);
    h.setBalance('BTC', '5', '5');
    h.clock.advance(1);
    const q4 = drafts(await h.handlers.onBook!('BTCUSDT', simpleBook('BTCUSDT', '99', '103')));
    expect(q4.filter((x) => x.kind === 'order').map((x) => (x as { side: string }).side)).toEqual(['BUY']);
    const pulled = drafts(await h.handlers.onBookHealth!('BTCUSDT', { healthy: false, reasons: ['stream_down'], bidAgeMs: 0, askAgeMs: 0, resyncs: 0 }));
    expect(pulled.map((x) => x.kind)).toEqual(['cancelAll']);
  });
});

describe('margin-trend', () => {
  it('opens in the trend direction with stop loss and take profit, and closes on a flip', async () => {
    const h = harness(marginTrend, { markets: ['BTCUSDT'], params: { fast: 2, slow: 3, stopLossPct: 2, takeProfitPct: 4, collateral: 100, riskCoef: 2 } });
    const seen: string[] = [];
    for (const [i, c] of [100, 100, 100, 104, 108, 100, 90].entries()) {
      for (const dr of drafts(await h.handlers.onCandle!('BTCUSDT', candle(i, c)))) {
        if (dr.kind === 'marginOpen') {
          seen.push(`${i}:open:${dr.side}:sl=${dr.stopLoss!.toFixed()}:tp=${dr.takeProfit!.toFixed()}`);
          h.margin.push({ id: i, market: 'BTCUSDT', side: dr.side, state: 'open' } as MarginPosition);
        }
        if (dr.kind === 'marginClose') {
          seen.push(`${i}:close:${dr.positionId}`);
          h.margin.splice(0);
        }
      }
    }
    // EMA(2) seeded with SMA: 100,100,102.67,106.22,102.07; EMA(3): 100,102,105,102.5 -> long at 3 (close 104),
    // flip at 5 (close 100): fast 102.07 < slow 102.5 -> close, then short with SL 102 and TP 96.
    expect(seen).toEqual(['3:open:long:sl=101.92:tp=108.16', '5:close:3', '5:open:short:sl=102:tp=96']);
  });

  it('after a restart keeps a position that follows the trend (no close and reopen), and still closes it on a flip', async () => {
    const h = harness(marginTrend, { markets: ['BTCUSDT'], params: { fast: 2, slow: 3, stopLossPct: 2, takeProfitPct: 4, collateral: 100, riskCoef: 2 } });
    h.margin.push({ id: 7, market: 'BTCUSDT', side: 'long', state: 'open' } as MarginPosition);
    await h.handlers.onStart!();
    const seen: string[] = [];
    for (const [i, c] of [100, 100, 100, 104, 108, 100, 90].entries()) {
      for (const dr of drafts(await h.handlers.onCandle!('BTCUSDT', candle(i, c)))) seen.push(`${i}:${dr.kind}`);
    }
    expect(seen).toEqual(['5:marginClose', '5:marginOpen']);
  });

  it('a flip closes a pending position (its opening order resting) as well as an open one', async () => {
    const h = harness(marginTrend, { markets: ['BTCUSDT'], params: { fast: 2, slow: 3, stopLossPct: 2, takeProfitPct: 4, collateral: 100, riskCoef: 2 } });
    const seen: string[] = [];
    for (const [i, c] of [100, 100, 100, 104, 108, 100, 90].entries()) {
      for (const dr of drafts(await h.handlers.onCandle!('BTCUSDT', candle(i, c)))) {
        // The long opened at 3 rests unfilled: the exchange lists it as pending.
        if (dr.kind === 'marginOpen') h.margin.push({ id: i, market: 'BTCUSDT', side: dr.side, state: 'pending' } as MarginPosition);
        seen.push(dr.kind === 'marginClose' ? `${i}:close:${dr.positionId}` : `${i}:${dr.kind}`);
      }
    }
    expect(seen).toEqual(['3:marginOpen', '5:close:3', '5:marginOpen']);
  });
});

describe('otc-dca', () => {
  it('buys the fixed amount on each schedule tick and stops after maxBuys', async () => {
    const h = harness(otcDca, { markets: ['USDTTMN'], params: { amount: 5_000_000, maxBuys: 2 } });
    const a = drafts(await h.handlers.onSchedule!(1));
    expect(a).toEqual([{ kind: 'instant', symbol: 'USDTTMN', side: 'BUY', size: { kind: 'quote', amount: d(5_000_000) }, tag: 'dca-1' }]);
    expect(drafts(await h.handlers.onSchedule!(2))).toHaveLength(1);
    expect(drafts(await h.handlers.onSchedule!(3))).toEqual([]);
    expect(h.kv.get('buys')).toBe(2);
  });
});
