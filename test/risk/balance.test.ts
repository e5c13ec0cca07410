import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { ReservationPort } from '../../src/execution/engine.js';
import { Reservations } from '../../src/risk/reservations.js';
import { World, limit, marginPosition } from './fixtures.js';

describe('balance: free = value − locked − reserved, fees included', () => {
  it('the taker fee tips the check: 60.12 passes, 60.11 is denied (60 without the fee would fit)', () => {
    const w = new World();
    w.setBalance('USDT', '60.12');
    expect(w.engine().check(limit('BUY', '0.001', '60000')).ok).toBe(true);
    const w2 = new World();
    w2.setBalance('USDT', '60.11');
    const v = w2.engine().check(limit('BUY', '0.001', '60000'));
    expect(v).toMatchObject({ ok: false, rule: 'balance' });
    expect(!v.ok && v.reason).toContain('needs 60.12 USDT (fees included) but only 60.11 is free');
  });

  it('locked funds are not free', () => {
    const w = new World();
    w.setBalance('USDT', '100', '39.88');
    expect(w.engine().check(limit('BUY', '0.001', '60000')).ok).toBe(true);
    const w2 = new World();
    w2.setBalance('USDT', '100', '39.89');
    expect(w2.engine().check(limit('BUY', '0.001', '60000'))).toMatchObject({ ok: false, rule: 'balance' });
  });

  it('reservations of earlier intents count, and release gives them back', () => {
    const w = new World();
    w.setBalance('USDT', '120.24');
    const e = w.engine();
    const a = e.check(limit('BUY', '0.001', '60000', 'a'));
    const b = e.check(limit('BUY', '0.001', '60000', 'b'));
    expect(a.ok && b.ok).toBe(true);
    expect(e.check(limit('BUY', '0.001', '60000', 'c'))).toMatchObject({ ok: false, rule: 'balance' });
    e.release(a.reservationId!);
    expect(e.reservations.reserved('main', 'USDT').toFixed()).toBe('60.12');
    expect(e.check(limit('BUY', '0.001', '60000', 'c')).ok).toBe(true);
  });

  it('a sell reserves its base quantity; the fee of a sell is taken from the quote it receives', () => {
    const w = new World();
    w.setBalance('BTC', '0.001');
    const e = w.engine();
    expect(e.check(limit('SELL', '0.001', '60000')).ok).toBe(true);
    expect(e.check(limit('SELL', '0.0002', '60000'))).toMatchObject({ ok: false, rule: 'balance' });
  });

  it('settle keeps only the unfilled part; repeated or smaller reports change nothing', () => {
    const w = new World();
    w.setBalance('USDT', '1000');
    const e = w.engine();
    const v = e.check(limit('BUY', '0.004', '60000'));
    expect(e.reservations.reserved('main', 'USDT').toFixed()).toBe('240.48');
    e.settle(v.reservationId!, d('0.001'));
    expect(e.reservations.reserved('main', 'USDT').toFixed()).toBe('180.36');
    e.settle(v.reservationId!, d('0.001'));
    e.settle(v.reservationId!, d('0.0005'));
    expect(e.reservations.reserved('main', 'USDT').toFixed()).toBe('180.36');
    e.release(v.reservationId!);
    e.release(v.reservationId!);
    expect(e.reservations.reserved('main', 'USDT').isZero()).toBe(true);
    expect(e.reservations.size).toBe(0);
  });

  it('a denial by a later rule releases the reservation made by the balance rule', () => {
    const w = new World();
    w.setBalance('USDT', '1000');
    const e = w.engine({ limits: { orderRate: { limit: 2, windowMs: 10_000, reserveForCancels: 1 } } });
    expect(e.check(limit('BUY', '0.001', '60000')).ok).toBe(true);
    expect(e.check(limit('BUY', '0.001', '60000'))).toMatchObject({ ok: false, rule: 'orderRate' });
    expect(e.reservations.reserved('main', 'USDT').toFixed()).toBe('60.12');
    expect(e.reservations.size).toBe(1);
  });

  it('each strategy spends from its own account (a trading-credit sub-account is separate)', () => {
    const w = new World();
    w.accounts.prop1 = 'prop:abc';
    w.setBalance('USDT', '100', '0', 'prop:abc');
    const e = w.engine();
    expect(e.check(limit('BUY', '0.001', '60000', 'main1'))).toMatchObject({ ok: false, rule: 'balance' });
    expect(e.check(limit('BUY', '0.001', '60000', 'prop1')).ok).toBe(true);
    expect(e.reservations.reserved('prop:abc', 'USDT').toFixed()).toBe('60.12');
  });

  it("a collateral top-up reserves its amount in the position's collateral currency", () => {
    const w = new World();
    w.setBalance('USDT', '50');
    w.margin = [marginPosition({ id: 7 })];
    const e = w.engine();
    expect(e.check({ kind: 'marginAddCollateral', strategy: 's1', positionId: 7, amount: d('50') }).ok).toBe(true);
    expect(e.check({ kind: 'marginAddCollateral', strategy: 's1', positionId: 7, amount: d('0.01') })).toMatchObject({ ok: false, rule: 'balance' });
    expect(e.check({ kind: 'marginAddCollateral', strategy: 's1', positionId: 8, amount: d('1') })).toMatchObject({ ok: false, rule: 'balance' });
  });

  it("Reservations and the engine satisfy the executor's ReservationPort", () => {
    const port1: ReservationPort = new Reservations();
    const port2: ReservationPort = new World().engine();
    expect(typeof port1.release).toBe('function');
    expect(typeof port2.release).toBe('function');
    const r = new Reservations();
    expect(() => r.reserve({ kind: 'order', strategy: 's', account: 'main', asset: 'USDT', amount: d('-1') })).toThrow(/must not be negative, got -1/);
  });
});
