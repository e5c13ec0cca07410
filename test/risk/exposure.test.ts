import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { World, limit, marginPosition } from './fixtures.js';

function world() {
  const w = new World();
  w.setBalance('USDT', '1000000');
  w.setBalance('BTC', '10');
  return w;
}

describe('exposure: open orders', () => {
  it('counts passed orders still in flight and orders the executor tracks, each once', () => {
    const w = world();
    const e = w.engine({ limits: { maxOpenOrdersPerMarket: 3, maxOpenOrders: 4 } });
    const a = e.check(limit('BUY', '0.001', '60000'));
    const b = e.check(limit('BUY', '0.001', '60000'));
    // The executor now tracks both (with their reservation ids) plus one adopted from the journal.
    w.orders = [
      { symbol: 'BTCUSDT', strategy: 's1', reservationId: a.reservationId! },
      { symbol: 'BTCUSDT', strategy: 's1', reservationId: b.reservationId! },
      { symbol: 'USDTTMN', strategy: 's2' },
    ];
    expect(e.check(limit('BUY', '0.001', '60000')).ok).toBe(true); // 3rd on the market, 4th in total
    const v = e.check(limit('BUY', '0.001', '60000'));
    expect(v).toMatchObject({ ok: false, rule: 'exposure' });
    expect(!v.ok && v.reason).toContain('3 open orders on BTCUSDT; the limit is 3');
    e.release(a.reservationId!);
    w.orders.shift();
    const t = e.check(limit('BUY', '0.001', '60000'));
    expect(t.ok).toBe(true);
    expect(e.check(limit('SELL', '0.001', '61000')).ok).toBe(true); // exits are never blocked here
  });

  it("a strategy's own limit counts only its own orders", () => {
    const w = world();
    const e = w.engine({ strategies: { s1: { maxOpenOrders: 1 } } });
    expect(e.check(limit('BUY', '0.001', '60000', 's2')).ok).toBe(true);
    expect(e.check(limit('BUY', '0.001', '60000', 's1')).ok).toBe(true);
    const v = e.check(limit('BUY', '0.001', '60000', 's1'));
    expect(!v.ok && v.reason).toContain('strategy s1 has 1 open orders; the limit is 1');
  });
});

describe('exposure: position value', () => {
  it('per market: held value at the mid plus buys in flight plus this buy, exact limit passes', () => {
    const w = world();
    w.spot = [{ strategy: 's1', symbol: 'BTCUSDT', quantity: d('0.01') }]; // 600 at mid 60000
    // A buy of 0.001 at 60000 adds 60: 660 in total.
    const e = w.engine({ limits: { maxPositionValue: { market: { BTCUSDT: d('660') } } } });
    expect(e.check(limit('BUY', '0.001', '60000')).ok).toBe(true);
    // Now 600 held + 60.12 reserved (fee included): one more unit of value is too much.
    const v = e.check(limit('BUY', '0.0002', '50000'));
    expect(v).toMatchObject({ ok: false, rule: 'exposure' });
    expect(!v.ok && v.reason).toContain('position value on BTCUSDT would be 670.12');
  });

  it('one unit over the per-market limit is denied', () => {
    const w = world();
    const e = w.engine({ limits: { maxPositionValue: { market: { BTCUSDT: d('59.99') } } } });
    expect(e.check(limit('BUY', '0.001', '60000'))).toMatchObject({ ok: false, rule: 'exposure' });
    expect(e.check(limit('BUY', '0.001', '59990')).ok).toBe(true);
  });

  it('per asset (quantity) and in total per quote asset, margin positions included', () => {
    const w = world();
    w.spot = [{ strategy: 's1', symbol: 'BTCUSDT', quantity: d('0.5') }];
    const e = w.engine({ limits: { maxPositionValue: { asset: { BTC: d('0.501') } } } });
    expect(e.check(limit('BUY', '0.001', '60000')).ok).toBe(true);
    expect(e.check(limit('BUY', '0.0002', '60000'))).toMatchObject({ ok: false, rule: 'exposure' });
    const w2 = world();
    w2.margin = [marginPosition({ id: 1, collateral: { currency: 'USDT', value: d('100') }, riskCoef: d('3') })]; // 300
    const e2 = w2.engine({ limits: { maxPositionValue: { total: { USDT: d('360') } } } });
    expect(e2.check(limit('BUY', '0.001', '60000')).ok).toBe(true);
    expect(e2.check(limit('BUY', '0.0002', '60000'))).toMatchObject({ ok: false, rule: 'exposure' });
  });

  it('an unpriced position blocks new exposure with a reason', () => {
    const w = world();
    w.spot = [{ strategy: 's1', symbol: 'USDTTMN', quantity: d('5') }];
    w.setBalance('TMN', '100000000');
    const e = w.engine({ limits: { maxPositionValue: { total: { TMN: d('1000000000') } } } });
    const v = e.check(limit('BUY', '10', '60000', 's1', 'USDTTMN'));
    expect(!v.ok && v.reason).toContain('no mark price');
  });
});

describe('exposure: capital per strategy', () => {
  it('reserved plus the cost of what it holds plus this spend, up to its capital', () => {
    const w = world();
    w.spot = [{ strategy: 's1', symbol: 'BTCUSDT', quantity: d('0.001'), cost: d('60') }];
    const e = w.engine({ strategies: { s1: { capital: { USDT: d('120.12') } } } });
    expect(e.check(limit('BUY', '0.001', '60000')).ok).toBe(true); // 60 + 60.12
    const v = e.check(limit('BUY', '0.0002', '60000'));
    expect(v).toMatchObject({ ok: false, rule: 'exposure' });
    expect(!v.ok && v.reason).toContain('above its capital 120.12');
    expect(e.check(limit('BUY', '0.0002', '60000', 's2')).ok).toBe(true);
  });
});
