import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { MarginOpenIntent, SpotOrderIntent } from '../../src/core/intents.js';
import { World, limit, market } from './fixtures.js';

function world() {
  const w = new World();
  w.setBalance('USDT', '1000000');
  w.setBalance('BTC', '10');
  return w;
}

const qtyOf = (i: unknown) =>
  (i as SpotOrderIntent).size.kind === 'base' ? ((i as SpotOrderIntent).size as { quantity: { toFixed(): string } }).quantity.toFixed() : 'unresolved';

describe('market limits: prices on the tick, never worse', () => {
  it('rounds a buy price down and a sell price up, and says so', () => {
    const e = world().engine();
    const b = e.check(limit('BUY', '0.001', '60000.129'));
    expect(b.ok).toBe(true);
    expect((b.intent as SpotOrderIntent).price?.toFixed()).toBe('60000.12');
    expect(b.ok && b.adjustments[0]).toMatchObject({ rule: 'marketLimits', field: 'price', from: '60000.129', to: '60000.12' });
    const s = e.check(limit('SELL', '0.001', '60000.121'));
    expect((s.intent as SpotOrderIntent).price?.toFixed()).toBe('60000.13');
  });

  it('a price already on the tick is not adjusted', () => {
    const v = world()
      .engine()
      .check(limit('BUY', '0.001', '60000.12'));
    expect(v.ok && v.adjustments).toEqual([]);
  });

  it('denies a buy price that rounds down to zero', () => {
    const w = world();
    w.setBalance('TMN', '1000000000');
    const v = w.engine().check(limit('BUY', '1000000', '0.5', 's1', 'USDTTMN'));
    expect(v).toMatchObject({ ok: false, rule: 'marketLimits' });
    expect(!v.ok && v.reason).toContain('rounds down to 0');
  });
});

describe('market limits: quantity step, min and max quantity', () => {
  it('rounds the quantity down to the step', () => {
    const v = world()
      .engine()
      .check(limit('BUY', '0.00123456', '60000'));
    expect(v.ok).toBe(true);
    expect(qtyOf(v.intent)).toBe('0.0012');
  });

  it('minQty: exactly the minimum passes, one step below is denied, and rounding can cross it', () => {
    const e = world().engine();
    expect(e.check(limit('BUY', '0.0002', '60000')).ok).toBe(true);
    const below = e.check(limit('BUY', '0.0001', '60000'));
    expect(below).toMatchObject({ ok: false, rule: 'marketLimits' });
    expect(!below.ok && below.reason).toContain('below the minimum 0.0002');
    const rounded = e.check(limit('BUY', '0.00019999', '60000'));
    expect(rounded).toMatchObject({ ok: false, rule: 'marketLimits' });
  });

  it('maxQty: exactly the maximum passes, one step above is denied', () => {
    const e = world().engine();
    expect(e.check(limit('SELL', '5', '60000')).ok).toBe(true);
    const v = e.check(limit('SELL', '5.0001', '60000'));
    expect(v).toMatchObject({ ok: false, rule: 'marketLimits' });
    expect(!v.ok && v.reason).toContain('above the maximum 5');
  });

  it('a quantity that rounds to zero is denied', () => {
    const v = world()
      .engine()
      .check(limit('BUY', '0.00009', '60000'));
    expect(!v.ok && v.reason).toContain('rounds down to 0');
  });
});

describe('market limits: minimum notional', () => {
  it('exactly the minimum passes; one tick lower is denied', () => {
    const e = world().engine();
    expect(e.check(limit('BUY', '0.0002', '50000')).ok).toBe(true);
    const v = e.check(limit('BUY', '0.0002', '49999.99'));
    expect(v).toMatchObject({ ok: false, rule: 'marketLimits' });
    expect(!v.ok && v.reason).toContain('below the minimum 10');
  });

  it('rounding the quantity down can push the total below the minimum: denied, never rounded up', () => {
    // 0.00029 × 40000 = 11.6 would pass, but the step gives 0.0002 × 40000 = 8.
    const v = world()
      .engine()
      .check(limit('BUY', '0.00029', '40000'));
    expect(v).toMatchObject({ ok: false, rule: 'marketLimits' });
    expect(!v.ok && v.reason).toContain('order total 8 USDT');
  });

  it('a market order is valued at its expected average fill from the book', () => {
    // 0.0002 at the best ask 60010 = 12.002 ≥ 10.
    expect(world().engine().check(market('BUY', '0.0002')).ok).toBe(true);
    const w = world();
    w.books.get('BTCUSDT')!.askLevels = [{ price: d('40000'), quantity: d('1') }];
    w.books.get('BTCUSDT')!.bidLevels = [{ price: d('39990'), quantity: d('1') }];
    expect(w.engine().check(market('BUY', '0.0002'))).toMatchObject({ ok: false, rule: 'marketLimits' });
  });
});

describe('market limits: sizing', () => {
  it('a quote amount at a limit price becomes a base quantity, rounded down', () => {
    const v = world()
      .engine()
      .check(limit('BUY', { kind: 'quote', amount: d('100') }, '60000'));
    expect(v.ok).toBe(true);
    expect(qtyOf(v.intent)).toBe('0.0016');
    expect(v.ok && v.adjustments[0]).toMatchObject({ field: 'size', from: 'quote 100', to: '0.0016' });
  });

  it('a quote amount for a market buy walks the asks', () => {
    // 30005 USDT at the first ask level (60010 × 1) buys 0.5.
    const v = world()
      .engine()
      .check(market('BUY', { kind: 'quote', amount: d('30005') }));
    expect(v.ok).toBe(true);
    expect(qtyOf(v.intent)).toBe('0.5');
  });

  it('a fraction of the free quote balance includes the taker fee, so the reservation fits', () => {
    const w = world();
    w.setBalance('USDT', '1000');
    const e = w.engine();
    const v = e.check(limit('BUY', { kind: 'fraction', fraction: 0.5 }, '50000'));
    expect(v.ok).toBe(true);
    // 500 / (50000 × 1.002) = 0.00998… → 0.0099; reserved 0.0099 × 50000 × 1.002 = 495.99.
    expect(qtyOf(v.intent)).toBe('0.0099');
    expect(e.reservations.reserved('main', 'USDT').toFixed()).toBe('495.99');
    // The whole free balance, fee included, still fits.
    const all = e.check(limit('BUY', { kind: 'fraction', fraction: 1 }, '50000'));
    expect(all.ok).toBe(true);
    expect(e.reservations.reserved('main', 'USDT').lte(1000)).toBe(true);
  });

  it('a fraction of the free base balance for a sell', () => {
    const v = world()
      .engine()
      .check(limit('SELL', { kind: 'fraction', fraction: 0.25 }, '60000'));
    expect(qtyOf(v.intent)).toBe('2.5');
  });

  it('denies fractions outside (0, 1] and an empty balance', () => {
    const e = world().engine();
    expect(e.check(limit('BUY', { kind: 'fraction', fraction: 1.5 }, '60000'))).toMatchObject({ ok: false, rule: 'marketLimits' });
    expect(e.check(limit('BUY', { kind: 'fraction', fraction: 0 }, '60000'))).toMatchObject({ ok: false, rule: 'marketLimits' });
    const w = world();
    w.setBalance('USDT', '0');
    const v = w.engine().check(limit('BUY', { kind: 'fraction', fraction: 0.5 }, '60000'));
    expect(!v.ok && v.reason).toContain('nothing is free');
  });

  it('denies an unknown market and a market order with no book', () => {
    const w = world();
    expect(w.engine().check(limit('BUY', '1', '1', 's1', 'XYZTMN'))).toMatchObject({ ok: false, rule: 'marketLimits' });
    w.books.clear();
    const v = w.engine().check(market('BUY', '0.001'));
    expect(v).toMatchObject({ ok: false, rule: 'marketLimits' });
    expect(!v.ok && v.reason).toContain('no ask in the local book');
  });
});

describe("market limits: a margin position's stop loss and take profit on the tick (issue 33 item 9)", () => {
  const open = (side: 'long' | 'short', stopLoss?: string, takeProfit?: string): MarginOpenIntent => ({
    kind: 'marginOpen',
    strategy: 's1',
    market: 'BTCUSDT',
    side,
    collateral: d('100'),
    riskCoef: d('2'),
    openPrice: d('60000'),
    ...(stopLoss ? { stopLoss: d(stopLoss) } : {}),
    ...(takeProfit ? { takeProfit: d(takeProfit) } : {}),
  });

  it('rounds them toward the open price (the protection never gets looser), and says so', () => {
    const e = world().engine();
    const l = e.check(open('long', '58833.152', '62400.128'));
    expect(l.ok, !l.ok ? l.reason : '').toBe(true);
    expect((l.intent as MarginOpenIntent).stopLoss?.toFixed()).toBe('58833.16'); // a long's stop: up
    expect((l.intent as MarginOpenIntent).takeProfit?.toFixed()).toBe('62400.12'); // a long's take profit: down
    expect(l.ok && l.adjustments).toEqual(
      expect.arrayContaining([expect.objectContaining({ rule: 'marketLimits', field: 'stopLoss', from: '58833.152', to: '58833.16' })]),
    );
    const s = e.check(open('short', '61200.128', '57600.121'));
    expect((s.intent as MarginOpenIntent).stopLoss?.toFixed()).toBe('61200.12'); // a short's stop: down
    expect((s.intent as MarginOpenIntent).takeProfit?.toFixed()).toBe('57600.13'); // a short's take profit: up
  });

  it('leaves prices on the tick as they are', () => {
    const v = world()
      .engine()
      .check(open('long', '58800.5', '62400'));
    expect(v.ok && v.adjustments.filter((a) => a.field === 'stopLoss' || a.field === 'takeProfit')).toEqual([]);
  });

  it('denies a price the rounding would bring to the open price, or one on the wrong side, naming value, tick and open price', () => {
    const e = world().engine();
    const a = e.check(open('long', '59999.999'));
    expect(!a.ok && a.reason).toBe('stopLoss 59999.999 rounds to 60000 at the tick 0.01, which is not below the open price 60000 of a long');
    const b = e.check(open('short', undefined, '60000.5'));
    expect(!b.ok && b.reason).toBe('takeProfit 60000.5 must be below the open price 60000 of a short');
  });
});
