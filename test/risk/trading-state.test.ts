import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { Intent } from '../../src/core/intents.js';
import { World, limit, marginPosition, market } from './fixtures.js';

function world() {
  const w = new World();
  w.setBalance('USDT', '1000000');
  w.setBalance('BTC', '0.01');
  w.margin = [marginPosition({ id: 3 })];
  return w;
}

const cancel: Intent = { kind: 'cancel', strategy: 's1', clientOrderId: 'abc' };
const cancelAll: Intent = { kind: 'cancelAll', strategy: 's1', symbol: 'BTCUSDT' };
const close: Intent = { kind: 'marginClose', strategy: 's1', positionId: 3 };
const topUp: Intent = { kind: 'marginAddCollateral', strategy: 's1', positionId: 3, amount: d('10') };
const openLong: Intent = { kind: 'marginOpen', strategy: 's1', market: 'BTCUSDT', side: 'long', collateral: d('100'), riskCoef: d('2') };

describe('trading state', () => {
  it('REDUCING: cancels, exits, closes and top-ups pass; buys and opens are denied; sells only up to what is held', () => {
    const e = world().engine();
    e.reduce('operator');
    for (const i of [cancel, cancelAll, close, topUp, limit('SELL', '0.005', '60000')]) expect(e.check(i).ok).toBe(true);
    const buy = e.check(limit('BUY', '0.001', '60000'));
    expect(buy).toMatchObject({ ok: false, rule: 'tradingState' });
    expect(!buy.ok && buy.reason).toContain('only intents that reduce exposure pass');
    expect(e.check(openLong)).toMatchObject({ ok: false, rule: 'tradingState' });
    expect(e.check(market('BUY', '0.001'))).toMatchObject({ ok: false, rule: 'tradingState' });
    // 0.005 of 0.01 is reserved: 0.005 more passes, one step more does not.
    expect(e.check(limit('SELL', '0.0051', '60000'))).toMatchObject({ ok: false, rule: 'balance' });
    expect(e.check(limit('SELL', '0.005', '60000')).ok).toBe(true);
  });

  it('HALTED: only cancels pass', () => {
    const e = world().engine();
    e.halt('kill switch');
    expect(e.check(cancel).ok).toBe(true);
    expect(e.check(cancelAll).ok).toBe(true);
    for (const i of [close, topUp, openLong, limit('SELL', '0.001', '60000'), limit('BUY', '0.001', '60000')]) {
      const v = e.check(i);
      expect(v).toMatchObject({ ok: false, rule: 'tradingState' });
      expect(!v.ok && v.reason).toContain('halted');
      expect(!v.ok && v.reason).toContain('kill switch');
    }
    e.resume();
    expect(e.check(limit('BUY', '0.001', '60000')).ok).toBe(true);
  });

  it('halting asks the executor to cancel open orders unless configured otherwise', () => {
    const e = world().engine();
    const asks: string[] = [];
    e.on('cancelAllOrders', (x) => asks.push(x.reason));
    e.halt('kill switch');
    e.halt('kill switch');
    expect(asks).toEqual(['kill switch']);
    const e2 = world().engine({ protections: { cancelOpenOrdersOnHalt: false } });
    let n = 0;
    e2.on('cancelAllOrders', () => n++);
    e2.halt('x');
    expect(n).toBe(0);
  });

  it('the state is saved and a new engine over the same sink starts in it', () => {
    const w = world();
    const e = w.engine();
    w.clock.advance(5000);
    e.halt('manual');
    expect(w.sink.tradingState).toMatchObject({ state: 'halted', reason: 'manual', since: w.clock.now() });
    const again = w.engine();
    expect(again.state.state).toBe('halted');
    expect(again.check(limit('BUY', '0.001', '60000')).ok).toBe(false);
    again.resume();
    expect(w.engine().state.state).toBe('active');
  });

  it('every verdict is journaled, and a denial is emitted', () => {
    const w = world();
    const denials: string[] = [];
    const e = w.engine();
    const events: string[] = [];
    e.on('denied', (dn) => {
      denials.push(dn.rule);
      events.push(dn.reason);
    });
    e.halt('stop');
    e.check(limit('BUY', '0.001', '60000'));
    e.check(cancel);
    expect(w.sink.verdicts.map((v) => v.ok)).toEqual([false, true]);
    expect(denials).toEqual(['tradingState']);
    expect(events[0]).toContain('halted');
  });
});
