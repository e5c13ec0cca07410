/**
 * A paper fill is never dated before its order was created. The exchange stamps its public prints
 * in whole seconds: a resting paper order printed through by a trade of the second it was placed in
 * (received after it) was dated at that second, before the order existed (an audit found 18 of 114
 * fills of a market maker's paper run so dated, up to a second early). A paper fill is dated when
 * it happens on the bot's clock: when the print reached the bot, when the instant desk filled.
 */
import { EventEmitter } from 'eventemitter3';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { d, type Decimal } from '../../src/core/decimal.js';
import { silentLogger } from '../../src/core/logger.js';
import type { MarketDataEngine } from '../../src/market/engine.js';
import type { Market } from '../../src/market/market-catalog.js';
import { createPaperVenue } from '../../src/runtime/paper.js';

const BTCUSDT: Market = {
  symbol: 'BTCUSDT',
  baseAsset: 'BTC',
  quoteAsset: 'USDT',
  quantityPrecision: 6,
  pricePrecision: 2,
  baseAssetPrecision: 8,
  quoteAssetPrecision: 8,
  qtyStep: d('0.000001'),
  priceTick: d('0.01'),
  minQty: d('0.000001'),
  minNotional: d('1'),
  makerFee: d('0.002'),
  takerFee: d('0.002'),
  feeSource: 'default',
  isSpot: true,
  isOtc: true,
  isMargin: false,
  isZeroFee: false,
  activeKnown: true,
};

/** 2026-11-29T21:23:47Z: the second of the exchange's stamp. */
const SECOND = Date.parse('2026-11-29T21:23:47Z');

/** A clock the test sets, backwards too (a wall clock stepped back). */
class SetClock implements Clock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
}

interface Print {
  symbol: string;
  price: Decimal;
  quantity: Decimal;
  isBuyOrder: boolean;
  timestamp: number;
}

/** A paper venue following a stand-in for the market-data engine: the test emits its trades. */
function paper(clock: SetClock) {
  const p = createPaperVenue({ clock, logger: silentLogger, markets: [BTCUSDT], balances: { USDT: '100000', BTC: '1' } });
  p.sim.replaceBookSide('BTCUSDT', 'bid', [{ price: d('100'), quantity: d('1') }]);
  p.sim.replaceBookSide('BTCUSDT', 'ask', [{ price: d('101'), quantity: d('1') }]);
  p.sim.setLastPrice('BTCUSDT', d('100.5'));
  const engine = new EventEmitter<{ trade: (t: Print) => void; book: () => void }>();
  p.follow(engine as unknown as MarketDataEngine);
  const fills: { id: string; timestamp: number }[] = [];
  p.venue.onFill((id, f) => fills.push({ id, timestamp: f.timestamp }));
  const print = (price: string, timestamp: number) =>
    engine.emit('trade', { symbol: 'BTCUSDT', price: d(price), quantity: d('1'), isBuyOrder: false, timestamp });
  return { ...p, fills, print };
}

describe('paper fills are dated on the bot clock, never before their order', () => {
  it('a resting order printed through by a trade of its own second, received after it: dated when received', async () => {
    const clock = new SetClock(SECOND + 509);
    const p = paper(clock);
    const placed = await p.venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.1'), price: d('100.5'), clientId: 'rest' });
    expect(placed.status).toBe('NEW');
    clock.t = SECOND + 712; // the print arrives; the exchange stamped it 21:23:47 (whole seconds)
    p.print('100.2', SECOND);
    expect(p.fills).toEqual([{ id: 'rest', timestamp: SECOND + 712 }]);
    const o = await p.venue.getOrder('rest');
    expect(o.status).toBe('FILLED');
    expect(o.fills.map((f) => f.timestamp)).toEqual([SECOND + 712]);
  });

  it('a resting sell and a stop-limit that rests after its trigger: the same rule', async () => {
    const clock = new SetClock(SECOND + 300);
    const p = paper(clock);
    await p.venue.createOrder({ symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', quantity: d('0.1'), price: d('100.8'), clientId: 'ask' });
    // A stop order as a bracket places one: triggers at 100.1, then rests at 100.6 (above the bid)
    // until a print goes over it.
    await p.venue.createOrder({
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'STOP_LIMIT',
      quantity: d('0.1'),
      price: d('100.6'),
      stopPrice: d('100.1'),
      clientId: 'stop',
    });
    clock.t = SECOND + 640;
    p.sim.recordTrade({ symbol: 'BTCUSDT', price: d('100.9'), quantity: d('1'), isBuyOrder: true, timestamp: SECOND });
    clock.t = SECOND + 820;
    p.print('100.1', SECOND); // triggers the stop: it rests
    expect((await p.venue.getOrder('stop')).status).toBe('NEW');
    clock.t = SECOND + 950;
    p.print('100.7', SECOND);
    expect(p.fills).toEqual([
      { id: 'ask', timestamp: SECOND + 640 },
      { id: 'stop', timestamp: SECOND + 950 },
    ]);
  });

  it('market and instant orders: dated when filled, to the millisecond (the instant desk answers in whole seconds)', async () => {
    const clock = new SetClock(SECOND + 509);
    const p = paper(clock);
    const m = await p.venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: d('0.1'), clientId: 'mkt' });
    expect(m.fills.map((f) => f.timestamp)).toEqual([SECOND + 509]);
    clock.t = SECOND + 733;
    const i = await p.venue.instantOrder({ symbol: 'BTCUSDT', side: 'BUY', quantity: d('0.1') });
    expect(i.status).toBe('FILLED');
    expect(i.fills.map((f) => f.timestamp)).toEqual([SECOND + 733]);
  });

  it('a clock stepped back between the order and its fill: the fill is dated at the order', async () => {
    const clock = new SetClock(SECOND + 509);
    const p = paper(clock);
    await p.venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.1'), price: d('100.5'), clientId: 'rest' });
    clock.t = SECOND + 200; // NTP stepped the wall clock back
    p.print('100.2', SECOND);
    expect(p.fills).toEqual([{ id: 'rest', timestamp: SECOND + 509 }]);
  });
});
