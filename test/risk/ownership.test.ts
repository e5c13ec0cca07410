import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { Intent } from '../../src/core/intents.js';
import { World, limit, market } from './fixtures.js';
import { RiskEngine } from '../../src/risk/engine.js';

/** buyer holds `held` BTC (a position on BTCUSDT); the account holds `value` BTC, `locked` of it in orders. */
function world(value: string, held: string, locked = '0'): World {
  const w = new World();
  w.setBalance('BTC', value, locked);
  w.spot = [{ strategy: 'buyer', symbol: 'BTCUSDT', quantity: d(held) }];
  return w;
}

const instantSell = (qty: string, strategy: string): Intent => ({
  kind: 'instant',
  strategy,
  symbol: 'BTCUSDT',
  side: 'SELL',
  size: { kind: 'base', quantity: d(qty) },
});

describe("ownership: a strategy may not sell another strategy's coins", () => {
  it('a sell of coins only another strategy holds is denied, naming the strategy, the asset, what was asked and what it may sell', () => {
    const e = world('0.2930', '0.2930').engine();
    const v = e.check(market('SELL', '0.1', 'sellr'));
    expect(v).toMatchObject({ ok: false, rule: 'ownership' });
    expect(!v.ok && v.reason).toBe('sellr may sell 0 BTC, asked 0.1 (account free 0.293; buyer holds 0.293)');
    expect(e.reservations.reserved('main', 'BTC').toFixed()).toBe('0');
    // The same for a limit sell and an instant (OTC) sell.
    expect(e.check(limit('SELL', '0.1', '60000', 'sellr'))).toMatchObject({ ok: false, rule: 'ownership' });
    expect(e.check(instantSell('0.1', 'sellr'))).toMatchObject({ ok: false, rule: 'ownership' });
  });

  it("coins of a strategy the bot no longer has (renamed: its fills read back at a restart) are any strategy's (review)", () => {
    const w = world('0.2930', '0.2930');
    const e = new RiskEngine({ ports: w.ports({ isStrategy: (s) => s !== 'buyer' }), clock: w.clock, sink: w.sink });
    expect(e.check(market('SELL', '0.1', 'sellr')).ok).toBe(true);
  });

  it('the holder sells its whole position', () => {
    const e = world('0.2930', '0.2930').engine();
    expect(e.check(market('SELL', '0.293', 'buyer')).ok).toBe(true);
  });

  it('coins no strategy holds (starting balances) stay usable by any strategy: exactly what is left passes, one step more is denied', () => {
    const w = world('0.5', '0.3');
    expect(w.engine().check(limit('SELL', '0.2', '60000', 'sellr')).ok).toBe(true);
    const v = world('0.5', '0.3')
      .engine()
      .check(limit('SELL', '0.2001', '60000', 'sellr'));
    expect(v).toMatchObject({ ok: false, rule: 'ownership' });
    expect(!v.ok && v.reason).toBe('sellr may sell 0.2 BTC, asked 0.2001 (account free 0.5; buyer holds 0.3)');
    // No other strategy holds any: every coin is usable, and the balance rule checks the sell as before.
    const alone = new World();
    alone.setBalance('BTC', '0.5');
    expect(alone.engine().check(limit('SELL', '0.5', '60000', 'sellr')).ok).toBe(true);
    expect(alone.engine().check(limit('SELL', '0.5001', '60000', 'sellr'))).toMatchObject({ ok: false, rule: 'balance' });
  });

  it("what the other strategy's open sells lock is not subtracted twice (its unfilled part only)", () => {
    // buyer held 0.3, its sell of 0.1 filled 0.04: it holds 0.26, 0.06 of it locked by the order.
    const w = world('0.46', '0.26', '0.06');
    w.orders = [{ strategy: 'buyer', symbol: 'BTCUSDT', account: 'main', side: 'SELL', quantity: d('0.1'), filled: d('0.04') }];
    expect(w.engine().check(limit('SELL', '0.2', '60000', 'sellr')).ok).toBe(true);
    const v = w.engine().check(limit('SELL', '0.2001', '60000', 'sellr'));
    expect(!v.ok && v.reason).toBe('sellr may sell 0.2 BTC, asked 0.2001 (account free 0.4; buyer holds 0.2)');
    // Its buys and another strategy's sells do not count; a sell of its own that passed risk is reserved (free) and in its orders.
    w.orders.push({ strategy: 'buyer', symbol: 'BTCUSDT', account: 'main', side: 'BUY', quantity: d('1'), filled: d('0') });
    w.orders.push({ strategy: 'sellr', symbol: 'BTCUSDT', account: 'main', side: 'SELL', quantity: d('1'), filled: d('0') });
    const e = w.engine();
    const own = e.check(limit('SELL', '0.05', '60000', 'buyer'));
    expect(own.ok).toBe(true);
    w.orders.push({ strategy: 'buyer', symbol: 'BTCUSDT', account: 'main', side: 'SELL', quantity: d('0.05'), filled: d('0') });
    expect(e.check(limit('SELL', '0.2', '60000', 'sellr')).ok).toBe(true);
  });

  it("an instant sell in flight is out of the free balance and out of its strategy's holding once", () => {
    const w = world('0.5', '0.3');
    const e = w.engine();
    expect(e.check(instantSell('0.1', 'buyer')).ok).toBe(true); // reserved until the call returns
    expect(e.check(limit('SELL', '0.2', '60000', 'sellr')).ok).toBe(true);
    expect(e.check(limit('SELL', '0.0002', '60000', 'sellr'))).toMatchObject({ ok: false, rule: 'ownership' });
  });

  it("a holding's dust is its strategy's; a strategy on another account holds nothing of this one's", () => {
    const w = world('0.3', '0.2');
    w.spot[0]!.dust = d('0.05');
    const v = w.engine().check(limit('SELL', '0.0501', '60000', 'sellr'));
    expect(!v.ok && v.reason).toBe('sellr may sell 0.05 BTC, asked 0.0501 (account free 0.3; buyer holds 0.25)');
    const p = world('0.3', '0.3');
    p.accounts = { buyer: 'prop:7' };
    expect(p.engine().check(limit('SELL', '0.3', '60000', 'sellr')).ok).toBe(true);
  });

  it("a sell sized by a fraction takes it of what the strategy may sell, not of the account's free coins", () => {
    const w = world('0.5', '0.3');
    const v = w.engine().check(limit('SELL', { kind: 'fraction', fraction: 1 }, '60000', 'sellr'));
    expect(v.ok).toBe(true);
    expect(v.intent.kind === 'order' && v.intent.size).toEqual({ kind: 'base', quantity: d('0.2') });
    const half = world('0.5', '0.3')
      .engine()
      .check(market('SELL', { kind: 'fraction', fraction: 0.5 }, 'sellr'));
    expect(half.intent.kind === 'order' && half.intent.size).toEqual({ kind: 'base', quantity: d('0.1') });
    // The holder's own fraction is of the account's free coins, its own included.
    const own = world('0.5', '0.3')
      .engine()
      .check(market('SELL', { kind: 'fraction', fraction: 1 }, 'buyer'));
    expect(own.intent.kind === 'order' && own.intent.size).toEqual({ kind: 'base', quantity: d('0.5') });
    // Nothing it may sell: denied by ownership with the numbers.
    const none = world('0.3', '0.3')
      .engine()
      .check(market('SELL', { kind: 'fraction', fraction: 1 }, 'sellr'));
    expect(none).toMatchObject({ ok: false, rule: 'ownership' });
    expect(!none.ok && none.reason).toBe('sellr may sell 0 BTC, asked fraction 1 of it (account free 0.3; buyer holds 0.3)');
  });
});
