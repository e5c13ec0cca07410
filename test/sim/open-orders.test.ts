import { describe, expect, it } from 'vitest';
import { d, Decimal, isPositive } from '../../src/core/decimal.js';
import { levels, makeSim } from './helpers.js';

describe('SimulatedExchange open orders', () => {
  it('lists the open orders oldest first, whatever closed before, between and after them', () => {
    const { sim, acc } = makeSim();
    const place = (id: string, price: string, side: 'BUY' | 'SELL' = 'BUY') =>
      sim.placeOrder(acc, { symbol: 'BTCUSDT', side, type: 'LIMIT', quantity: d('0.2'), price: d(price), clientId: id });
    for (let i = 0; i < 50; i++) {
      place(`c${i}`, '90');
      sim.cancelOrder(acc, `c${i}`);
    }
    place('a', '95');
    place('m', '101', 'BUY'); // crosses the ask at 101: filled at once, never open
    place('b', '110', 'SELL');
    place('x', '94');
    sim.cancelOrder(acc, 'x');
    place('c', '93');
    expect(sim.openOrders(acc).map((o) => o.clientOrderId)).toEqual(['a', 'b', 'c']);
    expect(sim.openOrders(acc, 'BTCUSDT').map((o) => o.clientOrderId)).toEqual(['a', 'b', 'c']);
    expect(sim.openOrders(acc, 'ETHUSDT')).toEqual([]);
    // A fill closes one: it leaves the list.
    sim.replaceBookSide('BTCUSDT', 'bid', levels(['111', '1']));
    expect(sim.openOrders(acc).map((o) => o.clientOrderId)).toEqual(['a', 'c']);
    // Every order is still there to look up, closed ones included (as on the exchange).
    expect(sim.orders(acc)).toHaveLength(55);
    expect(sim.getOrder(acc, 'c0').status).toBe('CANCELED');
  });

  it('openOrders gives copies; openOrdersView the exchange’s own orders, the same ones', () => {
    const { sim, acc } = makeSim();
    sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.2'), price: d('95'), clientId: 'a' });
    const [copy] = sim.openOrders(acc);
    const [own] = sim.openOrdersView(acc, 'BTCUSDT');
    expect(copy).not.toBe(own);
    expect(copy).toEqual(own);
    expect(sim.openOrdersView(acc, 'BTCUSDT')[0]).toBe(own);
  });
});

describe('isPositive', () => {
  it('answers as gt(0)', () => {
    for (const v of ['0', '-0', '1e-30', '-1e-30', '5', '-5', 'NaN', 'Infinity', '-Infinity']) {
      const x = new Decimal(v);
      expect(isPositive(x), v).toBe(x.gt(0));
    }
  });
});

describe('SimulatedExchange retainClosedOrders', () => {
  it('forgets the oldest closed orders beyond the limit, never an open one', async () => {
    const { ManualClock } = await import('../../src/core/clock.js');
    const { SimulatedExchange } = await import('../../src/sim/exchange.js');
    const sim = new SimulatedExchange({ clock: new ManualClock(1_700_000_000_000), seed: 7, retainClosedOrders: 10 });
    sim.replaceBookSide('BTCUSDT', 'bid', levels(['100', '1']));
    sim.replaceBookSide('BTCUSDT', 'ask', levels(['101', '1']));
    sim.setLastPrice('BTCUSDT', d('100.5'));
    const acc = sim.createAccount({ id: 'alice', balances: { USDT: '100000', BTC: '10' } }).id;
    const place = (id: string) => sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.2'), price: d('95'), clientId: id });
    place('oldopen');
    for (let i = 0; i < 200; i++) {
      place(`c${i}`);
      sim.cancelOrder(acc, `c${i}`);
    }
    const kept = sim.orders(acc).map((o) => o.clientOrderId);
    // The open order and the newest closed ones: at most the limit, plus the orders that may be open
    // (an index swept at 64 here: one order stays open) and one batch (64), far from the 201 placed.
    expect(kept[0]).toBe('oldopen');
    expect(kept.slice(-10)).toEqual(Array.from({ length: 10 }, (_, i) => `c${190 + i}`));
    expect(kept.length).toBeLessThanOrEqual(10 + 64 + 64);
    expect(() => sim.getOrder(acc, 'c0')).toThrow(/not found/);
    expect(sim.getOrder(acc, 'c199').status).toBe('CANCELED');
    expect(sim.openOrders(acc).map((o) => o.clientOrderId)).toEqual(['oldopen']);
  });

  it('keeps every order by default, as the exchange does', () => {
    const { sim, acc } = makeSim();
    for (let i = 0; i < 150; i++) {
      sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.2'), price: d('95'), clientId: `c${i}` });
      sim.cancelOrder(acc, `c${i}`);
    }
    expect(sim.orders(acc)).toHaveLength(150);
    expect(sim.getOrder(acc, 'c0').status).toBe('CANCELED');
  });
});
