import { describe, it, expect } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { SimError } from '../../src/sim/errors.js';
import { levels, makeSim } from './helpers.js';

describe('SimulatedExchange stops and reservations', () => {
  it('rests a triggered stop-limit that does not cross, keeping its reservation until cancel', () => {
    const { sim, acc, clock } = makeSim();
    const o = sim.placeOrder(acc, {
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'STOP_LIMIT',
      quantity: d('1'),
      stopPrice: d('99'),
      price: d('105'),
      clientId: 'sl',
    });
    expect(o.stopCondition).toBe('LESS_THAN_OR_EQUAL');
    expect(sim.balances(acc).BTC!.locked.toFixed()).toBe('1');
    sim.recordTrade({ symbol: 'BTCUSDT', price: d('98.5'), quantity: d('0.1'), isBuyOrder: false, timestamp: clock.now() });
    const after = sim.getOrder(acc, 'sl');
    expect([after.triggered, after.active, after.executedQty.toFixed()]).toEqual([true, true, '0']);
    expect(sim.book('BTCUSDT').asks.map((l) => l.price.toFixed())).toContain('105');
    sim.cancelOrder(acc, 'sl');
    expect(sim.balances(acc).BTC!.locked.toFixed()).toBe('0');
    expect(sim.book('BTCUSDT').asks.map((l) => l.price.toFixed())).not.toContain('105');
  });

  it('cancels a pending stop before it triggers and never triggers it afterwards', () => {
    const { sim, acc, clock } = makeSim();
    sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'STOP_MARKET', quantity: d('0.5'), stopPrice: d('102'), clientId: 'sm' });
    expect(sim.balances(acc).USDT!.locked.toFixed()).toBe('52.02'); // 0.5 × 102 × 1.02
    sim.cancelOrder(acc, 'sm');
    sim.recordTrade({ symbol: 'BTCUSDT', price: d('103'), quantity: d('0.1'), isBuyOrder: true, timestamp: clock.now() });
    expect(sim.getOrder(acc, 'sm')).toMatchObject({ status: 'CANCELED', triggered: false });
    expect(sim.balances(acc).USDT!.locked.toFixed()).toBe('0');
  });

  it('cancels a triggered stop-market buy whose funds no longer cover the fills', () => {
    const { sim, clock } = makeSim();
    const poor = sim.createAccount({ id: 'poor', balances: { USDT: '60' } }).id;
    sim.placeOrder(poor, { symbol: 'BTCUSDT', side: 'BUY', type: 'STOP_MARKET', quantity: d('0.5'), stopPrice: d('101'), clientId: 'p' });
    sim.replaceBookSide('BTCUSDT', 'ask', levels(['121', '5']));
    sim.recordTrade({ symbol: 'BTCUSDT', price: d('120'), quantity: d('0.1'), isBuyOrder: true, timestamp: clock.now() });
    const o = sim.getOrder(poor, 'p');
    expect([o.triggered, o.status, o.fills.length]).toEqual([true, 'CANCELED', 0]);
    expect(sim.balances(poor).USDT).toEqual({ value: d('60'), locked: d('0') });
  });

  it('answers 402 for a market buy the free balance cannot pay, and leaves nothing locked', () => {
    const { sim } = makeSim();
    const poor = sim.createAccount({ id: 'poor', balances: { USDT: '150' } }).id;
    sim.placeOrder(poor, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('1'), price: d('90') });
    let status = 0;
    try {
      sim.placeOrder(poor, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: d('1') });
    } catch (e) {
      status = (e as SimError).status;
    }
    expect(status).toBe(402);
    expect(sim.balances(poor).USDT!.locked.toFixed()).toBe('90');
    expect(sim.openOrders(poor)).toHaveLength(1);
  });

  it('gives a limit buy that fills at better prices back the difference it reserved', () => {
    const { sim, acc } = makeSim();
    const before = sim.balances(acc).USDT!.value;
    const o = sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('1'), price: d('110') });
    expect(o.status).toBe('FILLED');
    expect(o.fills[0]!.price.toFixed()).toBe('101');
    expect(before.minus(sim.balances(acc).USDT!.value).toFixed()).toBe('101');
    expect(sim.balances(acc).USDT!.locked.toFixed()).toBe('0');
  });
});
