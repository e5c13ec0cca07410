import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.js';
import { BookFillEngine, type BookFillOptions } from '../../../src/backtest/book/fill-engine.js';
import type { MarketSpec } from '../../../src/sim/markets.js';
import { SimError } from '../../../src/sim/errors.js';

const d = (x: string | number) => new Decimal(x);
const MARKET: MarketSpec = {
  symbol: 'BTCUSDT',
  baseAsset: 'BTC',
  quoteAsset: 'USDT',
  baseAssetPrecision: 8,
  quoteAssetPrecision: 2,
  faName: 'BTC',
  faBaseAsset: 'BTC',
  faQuoteAsset: 'USDT',
  stepSize: 4,
  tickSize: 2,
  minQty: d('0.0001'),
  maxQty: d(100),
  minNotional: d(1),
  makerFee: d('0.001'),
  takerFee: d('0.002'),
  createdAt: '2024-01-01T00:00:00.000000Z',
};
const lv = (price: number, quantity: number) => ({ price: d(price), quantity: d(quantity) });
const engine = (o: Partial<BookFillOptions> = {}) => new BookFillEngine(MARKET, { queueModel: 'risk-averse', entryLatencyMs: 10, cancelLatencyMs: 10, ...o });
/** Bids 100 × `bid` and asks 101 × 3 at t=0, and a BUY 1 @ 100 ('a') live at once (entryLatencyMs 0). */
function restingBid(e: BookFillEngine, bid: number): void {
  e.snapshot(0, [lv(100, bid)], [lv(101, 3)]);
  e.place(0, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(1), price: d(100), clientId: 'a' });
  e.advance(0);
}

const fills = (e: BookFillEngine) => e.takeFills().map((f) => `${f.t} ${f.price.toFixed()} ${f.quantity.toFixed()} ${f.liquidity}`);

/**
 * One bid level at 100. Hand computation:
 *  t=0 book 100 × 5; BUY 1 @ 100 sent, live at t=10.
 *  t=5 a sell print of 2 and the level drops to 3: the order is not live yet, nothing changes for it.
 *  t=10 live, queue ahead = 3.   t=12 level 3 → 8 (joins behind).   t=14 level 8 → 6 (a decrease of 2):
 *    risk-averse: ahead = min(3, 6) = 3.
 *    prob, power 1: back = 8 − 3 = 5, prob = 5/8, ahead = 3 − (3/8)·2 + min(5 − 1.25, 0) = 2.25.
 *  t=20 sell print 2.5 @ 100: risk-averse ahead 0.5, no fill; prob: fills 0.25.
 *  t=25 cancel sent, effective t=35.   t=30 sell print 1 @ 100: risk-averse fills 0.5; prob fills 0.75 (done).
 *  t=35 sell print 1 @ 99 (through): the cancel took effect first; nothing more fills.
 */
function scenario(e: BookFillEngine): void {
  e.snapshot(0, [lv(100, 5)], [lv(101, 3)]);
  e.place(0, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(1), price: d(100), clientId: 'a' });
  e.trade(5, d(100), d(2), 'SELL');
  e.level(5, 'BUY', d(100), d(3));
  e.level(12, 'BUY', d(100), d(8));
  e.level(14, 'BUY', d(100), d(6));
  e.trade(20, d(100), d('2.5'), 'SELL');
  e.level(20, 'BUY', d(100), d('3.5'));
  e.cancel(25, 'a');
  e.trade(30, d(100), d(1), 'SELL');
  e.trade(35, d(99), d(1), 'SELL');
}

describe('book fill model', () => {
  it('risk-averse queue: only prints at the price eat the queue ahead; the cancel wins at t+latency', () => {
    const e = engine();
    scenario(e);
    expect(fills(e)).toEqual(['30 100 0.5 maker']);
    expect(e.order('a')!.status).toBe('CANCELED');
    expect(e.order('a')!.filled.toFixed()).toBe('0.5');
  });

  it('prob queue: level decreases shrink the queue ahead in proportion', () => {
    const e = engine({ queueModel: 'prob', queuePower: 1 });
    scenario(e);
    expect(fills(e)).toEqual(['20 100 0.25 maker', '30 100 0.75 maker']);
    expect(e.order('a')!.status).toBe('FILLED');
  });

  /**
   * A trade at the price shows again in the next frame as the level's decrease: the prob model must
   * not split that decrease a second time (hftbacktest subtracts the traded quantity, cum_trade_qty).
   * Hand computation, BUY 1 @ 100 live at t=0 with 8 ahead (level 8):
   *  t=5 a 2-lot sell print at 100: 6 ahead.   t=6 the level shows it, 8 → 6: chg = 2 − 2 = 0, still 6.
   *  t=7 the level drops 6 → 4 without a trade: chg 2, front 6, back 0, share from behind 0/6 = 0:
   *    front = 6 − 2 + min(0, 0) = 4.   t=8 a 4.5-lot print at 100: 4 ahead eaten, 0.5 fills.
   * (Counting the print twice gave front 4.5 at t=6, 3 at t=7, and the whole 1 filled at t=8.)
   */
  it('prob queue: a trade is not counted again when the next frame shows it as a decrease', () => {
    const e = engine({ queueModel: 'prob', entryLatencyMs: 0 });
    restingBid(e, 8);
    e.trade(5, d(100), d(2), 'SELL');
    e.replaceSide(6, 'BUY', [lv(100, 6)]);
    expect(e.order('a')!.ahead.toFixed()).toBe('6');
    e.replaceSide(7, 'BUY', [lv(100, 4)]);
    expect(e.order('a')!.ahead.toFixed()).toBe('4');
    e.trade(8, d(100), d('4.5'), 'SELL');
    expect(fills(e)).toEqual(['8 100 0.5 maker']);
  });

  /**
   * The prob model's share is a fraction: the quantity ahead is rounded up to the market's step
   * (0.0001 here), so a fill is whole steps, never more than the model allows. Front 3 at level 7,
   * a drop to 6: back 4, share 4/7, front = 3 − (3/7)·1 + min(4 − 4/7, 0) = 2.571428… → 2.5715;
   * a 3-lot print fills 3 − 2.5715 = 0.4285.
   */
  it('prob queue: the quantity ahead is rounded up to the quantity step, fills are whole steps', () => {
    const e = engine({ queueModel: 'prob', entryLatencyMs: 0 });
    restingBid(e, 3);
    e.replaceSide(1, 'BUY', [lv(100, 7)]);
    e.replaceSide(2, 'BUY', [lv(100, 6)]);
    expect(e.order('a')!.ahead.toFixed()).toBe('2.5715');
    e.trade(3, d(100), d(3), 'SELL');
    expect(fills(e)).toEqual(['3 100 0.4285 maker']);
  });

  it('risk-averse keeps the level as it is recorded, whatever the step; prob is rounded to the step but never above the level', () => {
    // A market declared with a coarser step (0.01) than the recorded quantities (0.001).
    const coarse = (queueModel: BookFillOptions['queueModel']) =>
      new BookFillEngine({ ...MARKET, stepSize: 2 }, { queueModel, entryLatencyMs: 0, cancelLatencyMs: 0 });
    const e = coarse('risk-averse');
    restingBid(e, 0.123);
    e.replaceSide(1, 'BUY', [lv(100, 0.101)]);
    expect(e.order('a')!.ahead.toFixed()).toBe('0.101');
    const p = coarse('prob');
    restingBid(p, 0.123);
    // All of the level is ahead (nothing behind): the drop comes off the front, 0.101, not 0.11.
    p.replaceSide(1, 'BUY', [lv(100, 0.101)]);
    expect(p.order('a')!.ahead.toFixed()).toBe('0.101');
  });

  /**
   * A frame that shows the level unchanged after a trade at the price (as much joined behind as
   * traded) has shown that trade: a later decrease is split in full. BUY 1 @ 100 with 8 ahead:
   *  t=5 a 2-lot print: 6 ahead.  t=6 the level still 8 (2 joined).  t=7 8 → 6 without a trade:
   *  chg 2, front 6, back 2, share from behind 2/8: front = 6 − 0.75·2 + min(2 − 0.5, 0) = 4.5.
   * (Carrying the print to t=7 took it for that decrease: front stayed 6.)
   */
  it('prob queue: a frame that shows the level unchanged after a trade has accounted for it', () => {
    const e = engine({ queueModel: 'prob', entryLatencyMs: 0 });
    restingBid(e, 8);
    e.trade(5, d(100), d(2), 'SELL');
    e.replaceSide(6, 'BUY', [lv(100, 8)]);
    expect(e.order('a')!.ahead.toFixed()).toBe('6');
    e.replaceSide(7, 'BUY', [lv(100, 6)]);
    expect(e.order('a')!.ahead.toFixed()).toBe('4.5');
  });

  it('latency race: a trade through before the cancel takes effect fills the order', () => {
    const e = engine({ cancelLatencyMs: 10 });
    e.snapshot(0, [lv(100, 5)], [lv(101, 3)]);
    e.place(0, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(1), price: d(100), clientId: 'a' });
    e.cancel(20, 'a'); // effective at 30
    e.trade(29, d(99), d(3), 'SELL');
    expect(fills(e)).toEqual(['29 100 1 maker']);
    const late = engine({ cancelLatencyMs: 9 });
    late.snapshot(0, [lv(100, 5)], [lv(101, 3)]);
    late.place(0, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(1), price: d(100), clientId: 'a' });
    late.cancel(20, 'a'); // effective at 29: before the print at 29
    late.trade(29, d(99), d(3), 'SELL');
    expect(fills(late)).toEqual([]);
    expect(late.order('a')!.status).toBe('CANCELED');
  });

  it('a market order walks the book as it is when it becomes live, within the 2 % bound', () => {
    const e = engine();
    e.snapshot(0, [lv(99, 1)], [lv(101, 0.5), lv(102, 1), lv(104, 5)]);
    e.place(0, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: d(1), clientId: 'm' });
    e.level(5, 'SELL', d(101), d('0.2'));
    e.advance(10);
    expect(fills(e)).toEqual(['10 101 0.2 taker', '10 102 0.8 taker']);
    // 2 BTC would reach 104 > 101 × 1.02 = 103.02: cancelled unfilled, as the simulator does.
    e.place(10, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: d(2), clientId: 'big' });
    e.advance(20);
    expect(fills(e)).toEqual([]);
    expect(e.order('big')!.status).toBe('CANCELED');
    expect(e.order('big')!.reason).toMatch(/more than 2 %/);
  });

  it('a one-side frame replaces that side only, moving the queue of orders resting there', () => {
    const e = engine({ entryLatencyMs: 0 });
    e.snapshot(0, [lv(100, 5), lv(99, 2)], [lv(101, 3)]);
    e.place(0, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(1), price: d(100), clientId: 'a' });
    e.advance(0);
    expect(e.order('a')!.ahead.toFixed()).toBe('5');
    e.replaceSide(5, 'BUY', [lv(100, 2)]); // 99 gone, 100 shrank to 2: risk-averse ahead = min(5, 2)
    expect([...e.bids.keys()]).toEqual(['100']);
    expect([...e.asks.keys()]).toEqual(['101']);
    expect(e.order('a')!.ahead.toFixed()).toBe('2');
    e.replaceSide(6, 'SELL', [lv(102, 1)]);
    expect([...e.asks.keys()]).toEqual(['102']);
    expect(e.bids.get('100')!.quantity.toFixed()).toBe('2');
  });

  it("a frame's level at an order's price is its last one with a quantity, whatever the price's spelling", () => {
    const e = engine({ entryLatencyMs: 0 });
    restingBid(e, 5);
    // 100 twice (the later one counts) and a zero after it (no liquidity: ignored): ahead = min(5, 4).
    e.replaceSide(5, 'BUY', [lv(100, 2), { price: d('100.00'), quantity: d(4) }, lv(100, 0), lv(99, 1)]);
    expect(e.order('a')!.ahead.toFixed()).toBe('4');
    expect(e.bids.get('100')!.quantity.toFixed()).toBe('4');
    // A frame without the price: the level is gone, nothing ahead.
    e.replaceSide(6, 'BUY', [lv(99, 1)]);
    expect(e.order('a')!.ahead.toFixed()).toBe('0');
    // Per-level updates of the side are what the next frame's change is measured from.
    e.level(7, 'BUY', d(100), d(3));
    expect(e.order('a')!.ahead.toFixed()).toBe('0');
    expect(fills(e)).toEqual([]);
  });

  it('a crossing limit takes the levels up to its price, then rests behind the level', () => {
    const e = engine({ entryLatencyMs: 0 });
    e.snapshot(0, [lv(100, 5)], [lv(101, 1), lv(102, 1)]);
    e.place(0, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(3), price: d(101), clientId: 'x' });
    e.advance(0);
    expect(fills(e)).toEqual(['0 101 1 taker']);
    expect(e.order('x')!.status).toBe('OPEN');
    expect(e.order('x')!.ahead.toFixed()).toBe('0');
  });

  it('an order the opposite side crosses fills whole at its price, as a maker, with no print', () => {
    // t=0 bid 100 × 5, ask 101 × 3; BUY 1 @ 100.5 and SELL 1 @ 103 live at t=10 (resting: nothing crosses).
    // t=20 an ask frame whose best is 100.5: the bid is crossed, filled 1 @ 100.5 (maker).
    // t=30 a bid level appears at 103.2 (a per-level update): the ask is crossed, filled 1 @ 103.
    const e = engine();
    e.snapshot(0, [lv(100, 5)], [lv(101, 3)]);
    e.place(0, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(1), price: d('100.5'), clientId: 'b' });
    e.place(0, { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', quantity: d(1), price: d(103), clientId: 's' });
    e.advance(10);
    expect(fills(e)).toEqual([]);
    e.replaceSide(20, 'SELL', [lv(100.5, 2), lv(101, 3)]);
    expect(fills(e)).toEqual(['20 100.5 1 maker']);
    expect(e.order('b')!.status).toBe('FILLED');
    e.level(30, 'BUY', d('103.2'), d(1));
    expect(fills(e)).toEqual(['30 103 1 maker']);
    expect(e.order('s')!.status).toBe('FILLED');
  });

  it("the exchange's rules are the simulator's: step, tick and min notional name the field", () => {
    const e = engine();
    e.snapshot(0, [lv(100, 5)], [lv(101, 3)]);
    const bad = (q: string, p: string) => {
      try {
        e.place(0, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d(q), price: d(p) });
      } catch (err) {
        expect(err).toBeInstanceOf(SimError);
        return JSON.stringify((err as SimError).fields);
      }
      throw new Error('accepted');
    };
    expect(bad('0.00001', '100')).toMatch(/quantity 0.00001 has more than 4 decimal places/);
    expect(bad('1', '100.001')).toMatch(/price 100.001 has more than 2 decimal places/);
    expect(bad('0.001', '100')).toMatch(/order total 0.1 USDT is below the minimum 1 USDT/);
    expect(() => engine({ entryLatencyMs: -1 })).toThrow(/entryLatencyMs must be a number of milliseconds ≥ 0, got -1/);
    expect(() => engine({ queueModel: 'fifo' as never })).toThrow(/queueModel must be one of risk-averse, prob, got "fifo"/);
  });
});
