import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { Intent } from '../../src/core/intents.js';
import { FakeBook, World, limit, market } from './fixtures.js';

function world() {
  const w = new World();
  w.setBalance('USDT', '1000000');
  w.setBalance('BTC', '10');
  return w;
}

describe('price sanity: limit price against the mid', () => {
  it('exactly the allowed deviation passes, one tick further is denied (both sides)', () => {
    const e = world().engine({ limits: { maxPriceDeviationPct: 1 } });
    expect(e.check(limit('BUY', '0.001', '60600')).ok).toBe(true);
    const buy = e.check(limit('BUY', '0.001', '60600.01'));
    expect(buy).toMatchObject({ ok: false, rule: 'priceSanity' });
    expect(!buy.ok && buy.reason).toContain('from the mid 60000');
    expect(e.check(limit('SELL', '0.001', '59400')).ok).toBe(true);
    expect(e.check(limit('SELL', '0.001', '59399.99'))).toMatchObject({ ok: false, rule: 'priceSanity' });
  });

  it('a strategy can tighten the deviation but not loosen it', () => {
    const e = world().engine({ limits: { maxPriceDeviationPct: 1 }, strategies: { tight: { maxPriceDeviationPct: 0.5 }, loose: { maxPriceDeviationPct: 5 } } });
    expect(e.check(limit('BUY', '0.001', '60300', 'tight')).ok).toBe(true);
    expect(e.check(limit('BUY', '0.001', '60300.01', 'tight'))).toMatchObject({ ok: false, rule: 'priceSanity' });
    expect(e.check(limit('BUY', '0.001', '60600.01', 'loose'))).toMatchObject({ ok: false, rule: 'priceSanity' });
  });
});

describe('price sanity: a stop-limit order', () => {
  const stopLimit = (side: 'BUY' | 'SELL', stop: string, price: string): Intent => ({
    kind: 'order',
    strategy: 's1',
    symbol: 'BTCUSDT',
    side,
    type: 'STOP_LIMIT',
    size: { kind: 'base', quantity: d('0.001') },
    stopPrice: d(stop),
    price: d(price),
  });

  it('its limit price is judged against its stop price, where the market is when it triggers', () => {
    // Audit: a stop-limit BUY, stop 1 % above the market, limit 50 % above it, passed a 5 % limit.
    const e = world().engine({ limits: { maxPriceDeviationPct: 5 } });
    const far = e.check(stopLimit('BUY', '60600', '90000'));
    expect(far).toMatchObject({ ok: false, rule: 'priceSanity' });
    expect(!far.ok && far.reason).toBe(
      'limit price 90000 of a STOP_LIMIT BUY is 48.5149% from its stop price 60600 (where the market is when it triggers), more than the 5% allowed',
    );
    // Exactly 5 % from the stop passes, a tick more does not; a sell's limit below its stop the same.
    expect(e.check(stopLimit('BUY', '60600', '63630')).ok).toBe(true);
    expect(e.check(stopLimit('BUY', '60600', '63630.01'))).toMatchObject({ ok: false, rule: 'priceSanity' });
    expect(e.check(stopLimit('SELL', '50000', '47500')).ok).toBe(true);
    expect(e.check(stopLimit('SELL', '50000', '47499.99'))).toMatchObject({ ok: false, rule: 'priceSanity' });
  });

  it('a stop far from the market is a stop loss, not a bad price: not denied for its distance', () => {
    // A stop 20 % under the mid (the limit 1 % under the stop) passes a 5 % limit.
    const e = world().engine({ limits: { maxPriceDeviationPct: 5 } });
    expect(e.check(stopLimit('SELL', '48000', '47520')).ok).toBe(true);
  });
});

describe('price sanity: market order slippage through the local book', () => {
  const book = () =>
    FakeBook.of(
      [['59990', '1']],
      [
        ['60010', '1'],
        ['61210.2', '1'],
        ['61210.21', '1'],
      ],
    );

  it('reaching exactly 2% from the best ask passes, one level further is denied', () => {
    const w = world();
    w.books.set('BTCUSDT', book());
    const e = w.engine();
    expect(e.check(market('BUY', '2')).ok).toBe(true);
    const v = e.check(market('BUY', '2.0001'));
    expect(v).toMatchObject({ ok: false, rule: 'priceSanity' });
    expect(!v.ok && v.reason).toContain('would reach 61210.21');
  });

  it('the slippage limit is configurable', () => {
    const w = world();
    w.books.set('BTCUSDT', book());
    expect(w.engine({ limits: { maxSlippagePct: 1 } }).check(market('BUY', '2'))).toMatchObject({ ok: false, rule: 'priceSanity' });
  });

  it('an order larger than the book is denied (the exchange would cancel it)', () => {
    const w = world();
    w.books.set('BTCUSDT', book());
    const v = w.engine({ limits: { maxSlippagePct: 10 } }).check(market('BUY', '3.5'));
    expect(v).toMatchObject({ ok: false, rule: 'priceSanity' });
    expect(!v.ok && v.reason).toContain('larger than the book');
  });

  it('a market sell walks the bids', () => {
    const w = world();
    w.books.set(
      'BTCUSDT',
      FakeBook.of(
        [
          ['60000', '1'],
          ['58800', '1'],
          ['58799.99', '1'],
        ],
        [['60010', '1']],
      ),
    );
    const e = w.engine();
    expect(e.check(market('SELL', '2')).ok).toBe(true);
    expect(e.check(market('SELL', '2.5'))).toMatchObject({ ok: false, rule: 'priceSanity' });
  });
});

describe('price sanity: stale book', () => {
  it('denies any order on a book flagged unhealthy, and names the reasons; cancels still pass', () => {
    const w = world();
    const b = w.books.get('BTCUSDT')!;
    b.healthy = false;
    b.reasons = ['side_too_old', 'stream_down'];
    const e = w.engine();
    const v = e.check(limit('BUY', '0.001', '60000'));
    expect(v).toMatchObject({ ok: false, rule: 'priceSanity' });
    expect(!v.ok && v.reason).toContain('side_too_old, stream_down');
    expect(e.check({ kind: 'cancel', strategy: 's1', clientOrderId: 'x1' }).ok).toBe(true);
    b.healthy = true;
    expect(e.check(limit('BUY', '0.001', '60000')).ok).toBe(true);
  });

  it('a margin open price further from the mid than allowed is denied', () => {
    const w = world();
    const e = w.engine({ limits: { maxPriceDeviationPct: 5 } });
    const intent = {
      kind: 'marginOpen' as const,
      strategy: 's1',
      market: 'BTCUSDT',
      side: 'long' as const,
      collateral: d('100'),
      riskCoef: d('2'),
      openPrice: d('63000.01'),
    };
    expect(e.check(intent)).toMatchObject({ ok: false, rule: 'priceSanity' });
    expect(e.check({ ...intent, openPrice: d('63000') }).ok).toBe(true);
  });
});
