import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { InstantOrderIntent } from '../../src/core/intents.js';
import { mergeLimits } from '../../src/risk/limits.js';
import { World, limit } from './fixtures.js';

describe('RiskEngine', () => {
  it('runs the rules in the documented order', () => {
    const e = new World().engine();
    expect(e.rules.map((r) => r.name)).toEqual([
      'intentShape',
      'tradingState',
      'balance', // the account read (rules/account-read.ts)
      'marketLimits',
      'priceSanity',
      'exposure',
      'ownership',
      'balance',
      'orderRate',
      'margin',
    ]);
  });

  it('the first failing rule in that order names the denial', () => {
    const w = new World(); // no balance at all
    w.books.get('BTCUSDT')!.healthy = false;
    const e = w.engine({ limits: { maxPriceDeviationPct: 1, maxOpenOrders: 1 } });
    w.orders = [{ symbol: 'BTCUSDT', strategy: 'x' }];
    // Bad on the step, the deviation, the stale book, open orders and the balance: marketLimits first.
    expect(e.check(limit('BUY', '0.00001', '70000'))).toMatchObject({ rule: 'marketLimits' });
    expect(e.check(limit('BUY', '0.001', '70000'))).toMatchObject({ rule: 'priceSanity' });
    w.books.get('BTCUSDT')!.healthy = true;
    expect(e.check(limit('BUY', '0.001', '60000'))).toMatchObject({ rule: 'exposure' });
    w.orders = [];
    expect(e.check(limit('BUY', '0.001', '60000'))).toMatchObject({ rule: 'balance' });
    e.halt('x');
    expect(e.check(limit('BUY', '0.00001', '70000'))).toMatchObject({ rule: 'tradingState' });
  });

  it('a passed intent comes back resolved and rounded, with its adjustments and reservation', () => {
    const w = new World();
    w.setBalance('USDT', '1000');
    const e = w.engine();
    const v = e.check(limit('BUY', { kind: 'quote', amount: d('100') }, '60000.005'));
    expect(v.ok).toBe(true);
    if (!v.ok || v.intent.kind !== 'order') throw new Error('expected a passed order');
    expect(v.intent.size).toEqual({ kind: 'base', quantity: d('0.0016') });
    expect(v.intent.price?.toFixed()).toBe('60000');
    expect(v.adjustments.map((a) => a.field)).toEqual(['price', 'size']);
    expect(e.reservations.get(v.reservationId!)?.amount.toFixed()).toBe('96.192');
    expect(w.sink.verdicts).toHaveLength(1);
  });

  it('an instant order is sized on the book and reserves like a market order', () => {
    const w = new World();
    w.setBalance('USDT', '1000');
    const e = w.engine();
    const i: InstantOrderIntent = { kind: 'instant', strategy: 's1', symbol: 'BTCUSDT', side: 'BUY', size: { kind: 'quote', amount: d('600.1') } };
    const v = e.check(i);
    expect(v.ok).toBe(true);
    // 600.1 / 60010 = 0.01; reserved at the 2 % bound with the fee: 0.01 × 61210.2 × 1.002.
    expect(e.reservations.reserved('main', 'USDT').toFixed()).toBe('613.326204');
  });

  it('strategy limits only tighten the global ones', () => {
    const m = mergeLimits(
      { maxOpenOrders: 10, maxSlippagePct: 2, minCallDistancePct: 5, maxTotalLoan: { USDT: d('100') }, maxPositionValue: { market: { BTCUSDT: d('50') } } },
      {
        maxOpenOrders: 20,
        maxSlippagePct: 1,
        minCallDistancePct: 3,
        maxTotalLoan: { USDT: d('200'), BTC: d('1') },
        maxPositionValue: { market: { BTCUSDT: d('40') } },
      },
    );
    expect(m.maxOpenOrders).toBe(10);
    expect(m.maxSlippagePct).toBe(1);
    expect(m.minCallDistancePct).toBe(5);
    expect(m.maxTotalLoan?.USDT?.toFixed()).toBe('100');
    expect(m.maxTotalLoan?.BTC?.toFixed()).toBe('1');
    expect(m.maxPositionValue?.market?.BTCUSDT?.toFixed()).toBe('40');
    expect(mergeLimits({}).maxSlippagePct).toBe(2);
  });

  it('a rule that throws becomes a denial naming it, and the reservation is not leaked', () => {
    const w = new World();
    w.setBalance('USDT', '1000');
    const e = w.engine({
      ports: {
        ...w.ports(),
        positions: () => {
          throw new Error('portfolio unavailable');
        },
      },
      limits: { maxPositionValue: { market: { BTCUSDT: d('1000') } } },
    });
    const v = e.check(limit('BUY', '0.001', '60000'));
    expect(v).toMatchObject({ ok: false, rule: 'exposure', reason: 'rule failed: portfolio unavailable' });
    expect(e.reservations.size).toBe(0);
  });
});
