/**
 * Locked vs reserved: a resting order's funds count once. Limit buys rest on the simulator; balances
 * are synced from it now and then, as the bot loop does; the risk engine's free balance must let the
 * bot use ~all of its money for resting orders and must never exceed what the exchange has free.
 */
import { describe, expect, it } from 'vitest';
import { d, Decimal } from '../../src/core/decimal.js';
import type { SpotOrderIntent } from '../../src/core/intents.js';
import { Reservations } from '../../src/risk/reservations.js';
import { ACCOUNT, simStack } from './sim-stack.js';

const buy = (price: string, qty: string): SpotOrderIntent => ({
  kind: 'order',
  strategy: 'holder',
  symbol: 'BTCUSDT',
  side: 'BUY',
  type: 'LIMIT',
  price: d(price),
  size: { kind: 'base', quantity: d(qty) },
});

function setup(coverage: boolean) {
  const st = simStack({ balances: { USDT: '10000' }, coverage });
  st.setPrice('BTCUSDT', '60000');
  const riskFree = () => st.risk.reservations.free('main', 'USDT', st.portfolio.balance('USDT', 'main'));
  const exchangeFree = () => {
    const b = st.sim.balances(ACCOUNT).USDT!;
    return b.value.minus(b.locked);
  };
  /** The invariant: risk never thinks more is free than the exchange has free. */
  const neverOver = () => expect(riskFree().lte(exchangeFree())).toBe(true);
  return { st, riskFree, exchangeFree, neverOver };
}

describe('locked vs reserved: no double counting, no over-commit', () => {
  it('resting orders use ~all of the balance across balance syncs (10 × 951.9 of 10000), the 11th is denied', async () => {
    const { st, neverOver, riskFree, exchangeFree } = setup(true);
    await st.sync();
    for (let i = 0; i < 11; i++) {
      await st.core.process([buy(String(50000 - i * 10), '0.019')]);
      neverOver();
      if (i % 3 === 1) {
        await st.sync();
        neverOver();
      }
    }
    await st.core.idle();
    expect(st.sim.openOrders(ACCOUNT, 'BTCUSDT')).toHaveLength(10);
    expect(st.log.denials.map((x) => x.rule)).toEqual(['balance']);
    // after a sync, risk's free is exactly the exchange's free (no reservation counted twice)
    await st.sync();
    expect(riskFree().toFixed()).toBe(exchangeFree().toFixed());
    expect(st.risk.reservations.reserved('main', 'USDT').toFixed()).toBe('0');
    expect(st.risk.reservations.reservedTotal('main', 'USDT').gt(9000)).toBe(true);
  });

  it('without acceptance tracking (the old behaviour) the same bot gets only about half in', async () => {
    const { st, neverOver } = setup(false);
    for (let i = 0; i < 11; i++) {
      await st.core.process([buy(String(50000 - i * 10), '0.019')]);
      await st.sync();
      neverOver();
    }
    expect(st.sim.openOrders(ACCOUNT, 'BTCUSDT')).toHaveLength(5);
  });

  it('a sync whose request began before the order was accepted does not cover it (counted twice, not zero times)', async () => {
    const { st, riskFree, exchangeFree, neverOver } = setup(true);
    await st.sync();
    const before = st.clock.now();
    st.clock.advance(1000);
    await st.core.process([buy('50000', '0.019')]);
    await st.sync(before);
    neverOver();
    // 950 locked by the exchange and 951.9 still reserved
    expect(riskFree().toFixed()).toBe('8098.1');
    expect(exchangeFree().toFixed()).toBe('9050');
    await st.sync();
    expect(riskFree().toFixed()).toBe('9050');
  });

  it('a covered order cancelled or filled before the next sync: understated until the sync, never overstated', async () => {
    const { st, riskFree, exchangeFree, neverOver } = setup(true);
    await st.sync();
    await st.core.process([buy('50000', '0.019'), buy('49000', '0.019')]);
    await st.sync();
    expect(riskFree().toFixed()).toBe(exchangeFree().toFixed());
    const [first, second] = st.engine.liveOrders();
    await st.core.process([{ kind: 'cancel', strategy: 'holder', clientOrderId: first!.clientOrderId }]);
    neverOver();
    // the second fills: a trade prints through its price
    st.setPrice('BTCUSDT', '48990');
    await st.core.idle();
    expect(st.engine.orders.get(second!.clientOrderId)!.state).toBe('filled');
    neverOver();
    await st.sync();
    expect(riskFree().toFixed()).toBe(exchangeFree().toFixed());
    expect(st.risk.reservations.size).toBe(0);
  });

  it('a covered order partly filled: the lock its fill freed leaves locked at once, for a sell and for a limit buy', async () => {
    // Before: the portfolio moved the fill's value but kept the read's locked, so the freed coins
    // counted as spent and still locked until the next sync (a paper grid's partial sell made another
    // strategy's sell of coins it held be denied by the balance rule).
    const st = simStack({ balances: { BTC: '1', USDT: '10000' } });
    st.setPrice('BTCUSDT', '60000');
    await st.sync();
    const order = (side: 'BUY' | 'SELL', price: string, qty: string): SpotOrderIntent => ({ ...buy(price, qty), side });
    await st.core.process([order('SELL', '61000', '0.5'), order('BUY', '59000', '0.01')]);
    await st.sync();
    const free = (asset: string) => st.risk.reservations.free('main', asset, st.portfolio.balance(asset, 'main'));
    const exchangeFree = (asset: string) => {
      const b = st.sim.balances(ACCOUNT)[asset]!;
      return b.value.minus(b.locked);
    };
    expect(free('BTC').toFixed()).toBe('0.5');
    // The book moves through both prices with less than each order: partial fills.
    st.sim.replaceBookSide('BTCUSDT', 'bid', [{ price: d('61000'), quantity: d('0.2') }]);
    st.sim.replaceBookSide('BTCUSDT', 'bid', [{ price: d('59990'), quantity: d('50') }]);
    st.sim.replaceBookSide('BTCUSDT', 'ask', [{ price: d('59000'), quantity: d('0.004') }]);
    st.sim.replaceBookSide('BTCUSDT', 'ask', [{ price: d('60010'), quantity: d('50') }]);
    await st.core.idle();
    const states = st.engine.liveOrders().map((o) => `${o.side} ${o.state} ${o.filled.toFixed()}`);
    expect(states.sort()).toEqual(['BUY partially_filled 0.004', 'SELL partially_filled 0.2']);
    // No sync since the fills: risk's free is the exchange's free.
    expect(free('BTC').toFixed()).toBe(exchangeFree('BTC').toFixed());
    expect(free('USDT').toFixed()).toBe(exchangeFree('USDT').toFixed());
    expect(st.portfolio.balance('BTC', 'main').locked.toFixed()).toBe('0.3');
    expect(st.portfolio.balance('USDT', 'main').locked.toFixed()).toBe('354');
    // The coins the fill freed can be sold at once.
    await st.core.process([order('SELL', '60500', '0.5')]);
    expect(st.log.denials).toEqual([]);
  });

  it('Reservations: accepted and balancesSynced cover per account; settle and release keep both totals right', () => {
    const r = new Reservations();
    const bal = { value: d('1000'), locked: d('0') };
    const a = r.reserve({ kind: 'order', strategy: 's', account: 'main', asset: 'USDT', amount: d('300'), quantity: d('3') });
    const b = r.reserve({ kind: 'order', strategy: 's', account: 'prop:x', asset: 'USDT', amount: d('200'), quantity: d('2') });
    r.accepted(a, 10);
    r.accepted(b, 10);
    r.balancesSynced('main', 9);
    expect(r.reserved('main', 'USDT').toFixed()).toBe('300');
    r.balancesSynced('main', 10);
    expect(r.reserved('main', 'USDT').toFixed()).toBe('0');
    expect(r.reservedTotal('main', 'USDT').toFixed()).toBe('300');
    expect(r.reservedBy('s', 'USDT').toFixed()).toBe('500');
    expect(r.reserved('prop:x', 'USDT').toFixed()).toBe('200');
    expect(r.free('main', 'USDT', { value: d('1000'), locked: d('300') }).toFixed()).toBe('700');
    r.settle(a, d('1'));
    expect(r.reservedTotal('main', 'USDT').toFixed()).toBe('200');
    expect(r.reserved('main', 'USDT').toFixed()).toBe('0');
    r.release(a);
    expect(r.reservedTotal('main', 'USDT').toFixed()).toBe('0');
    r.settle(b, d('1'));
    expect(r.reserved('prop:x', 'USDT').toFixed()).toBe('100');
    r.release(b);
    expect(r.reserved('prop:x', 'USDT').toFixed()).toBe('0');
    expect(r.free('main', 'USDT', bal).toFixed()).toBe('1000');
    const live = new Reservations({ liveLocked: true });
    const c = live.reserve({ kind: 'order', strategy: 's', account: 'main', asset: 'USDT', amount: d('50') });
    expect(live.reserved('main', 'USDT').toFixed()).toBe('50');
    live.accepted(c, 1);
    expect(live.reserved('main', 'USDT').toFixed()).toBe('0');
    expect(new Decimal(live.reservedTotal('main', 'USDT')).toFixed()).toBe('50');
  });
});
