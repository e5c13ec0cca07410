import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import {
  BadRequestError,
  DuplicateOrderError,
  ExchangeUnavailableError,
  InsufficientBalanceError,
  NotFoundError,
  RateLimitError,
  ValidationError,
  AuthenticationError,
  PermissionDeniedError,
  MethodNotAllowedError,
} from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import type { SpotOrder } from '../../src/core/types/order.js';
import { ClientIdGenerator } from '../../src/execution/client-id.js';
import { ExecutionEngine } from '../../src/execution/engine.js';
import { mapSimError, SimVenue } from '../../src/venues/sim-venue.js';
import { SimError } from '../../src/sim/errors.js';
import { SimulatedExchange } from '../../src/sim/exchange.js';
import { createSimDesks } from '../../src/sim/margin/wiring.js';
import type { FillEvent } from '../../src/strategy/views.js';

function setup() {
  const clock = new ManualClock(1_700_000_000_000);
  const sim = new SimulatedExchange({ clock, seed: 7 });
  sim.replaceBookSide('BTCUSDT', 'ask', [{ price: d('60010'), quantity: d('1') }]);
  sim.replaceBookSide('BTCUSDT', 'bid', [{ price: d('59990'), quantity: d('1') }]);
  sim.setLastPrice('BTCUSDT', d('60000'));
  const acct = sim.createAccount({ id: 'a1', balances: { USDT: '100000', BTC: '1' } });
  const venue = new SimVenue({ sim, account: acct.id, kind: 'backtest' });
  return { clock, sim, venue };
}

describe('SimVenue', () => {
  it('places a limit order and returns it in the core SpotOrder shape', async () => {
    const { venue } = setup();
    const o = await venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.1'), price: d('59000'), clientId: 'c1' });
    expect(o.clientOrderId).toBe('c1');
    expect(o.active).toBe(true);
    expect(o.status).toBe('NEW');
    expect(o.executedQty.toFixed()).toBe('0');
    expect(o.price.toFixed()).toBe('59000');
    const open = await venue.openOrders('BTCUSDT');
    expect(open.map((x) => x.clientOrderId)).toEqual(['c1']);
    const bal = await venue.balances();
    expect(bal.USDT!.locked.toFixed()).toBe('5900');
    const c = await venue.cancelOrder('c1');
    expect(c.active).toBe(false);
    expect(c.status).toBe('CANCELED');
    expect((await venue.balances()).USDT!.locked.toFixed()).toBe('0');
  });

  it('fills a market order with fills, fee and average price', async () => {
    const { venue } = setup();
    const o = await venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: d('0.5'), clientId: 'm1' });
    expect(o.status).toBe('FILLED');
    expect(o.active).toBe(false);
    expect(o.executedQty.toFixed()).toBe('0.5');
    expect(o.executedPrice!.toFixed()).toBe('60010');
    expect(o.fills).toHaveLength(1);
    expect(o.fills[0]!.fee.toFixed()).toBe('0.001'); // 0.2% of 0.5 BTC, in the received asset
    expect(o.fee!.toFixed()).toBe('0.001');
    const bal = await venue.balances();
    expect(bal.BTC!.value.toFixed()).toBe('1.499');
    expect(bal.USDT!.value.toFixed()).toBe('69995');
  });

  it('maps refusals to the typed errors by status', async () => {
    const { venue } = setup();
    await expect(
      venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('10'), price: d('59000'), clientId: 'big' }),
    ).rejects.toBeInstanceOf(InsufficientBalanceError);
    await venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.01'), price: d('59000'), clientId: 'dup' });
    await expect(
      venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.01'), price: d('59000'), clientId: 'dup' }),
    ).rejects.toBeInstanceOf(DuplicateOrderError);
    await expect(venue.getOrder('nope')).rejects.toBeInstanceOf(NotFoundError);
    const bad = venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.0000001'), price: d('59000'), clientId: 'tiny' });
    await expect(bad).rejects.toBeInstanceOf(ValidationError);
    const err = (await bad.catch((e: unknown) => e)) as ValidationError;
    expect(Object.keys(err.fields).length).toBeGreaterThan(0);
    expect(err.retryable).toBe(false);
    await expect(venue.openPosition({ market: 'BTCUSDT', side: 'long', collateral: d(100), riskCoef: d(2), openPrice: d(60000) })).rejects.toBeInstanceOf(
      MethodNotAllowedError,
    );
  });

  it('maps every documented status', () => {
    const cases: [number, unknown][] = [
      [400, BadRequestError],
      [401, AuthenticationError],
      [402, InsufficientBalanceError],
      [403, PermissionDeniedError],
      [404, NotFoundError],
      [409, DuplicateOrderError],
      [422, ValidationError],
      [429, RateLimitError],
      [500, ExchangeUnavailableError],
      [503, ExchangeUnavailableError],
    ];
    for (const [status, cls] of cases) {
      const e = mapSimError(new SimError(status, 'nope', status === 422 ? { price: ['bad price'] } : {}), 'createOrder');
      expect(e).toBeInstanceOf(cls as new (...a: never[]) => Error);
      expect((e as Error).message).toContain('createOrder');
      if (status === 422) expect((e as ValidationError).fields).toEqual({ price: ['bad price'] });
    }
    const retryable = mapSimError(new SimError(429, 'slow down'), 'x') as RateLimitError;
    expect(retryable.retryable).toBe(true);
    const plain = new Error('other');
    expect(mapSimError(plain, 'x')).toBe(plain);
  });

  it('pushes order updates so the execution engine needs no polling', async () => {
    const { sim, venue, clock } = setup();
    const pushed: SpotOrder[] = [];
    const off = venue.onOrderUpdate((o) => pushed.push(o));
    const engine = new ExecutionEngine({ venueFor: () => venue, clock, logger: silentLogger, ids: new ClientIdGenerator(clock, 'x') });
    engine.listen(venue);
    const fills: FillEvent[] = [];
    engine.on('fill', (f) => fills.push(f));
    const o = await engine.submitOrder({
      kind: 'order',
      strategy: 's1',
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      size: { kind: 'base', quantity: d('0.2') },
      price: d('59500'),
    });
    expect(o.state).toBe('open');
    // A public trade through the limit fills it as a maker at its own price.
    sim.recordTrade({ symbol: 'BTCUSDT', price: d('59400'), quantity: d('5'), isBuyOrder: false, timestamp: clock.now() });
    expect(o.state).toBe('filled');
    expect(fills).toHaveLength(1);
    expect(fills[0]!.price.toFixed()).toBe('59500');
    expect(fills[0]!.quantity.toFixed()).toBe('0.2');
    expect(pushed.some((p) => p.clientOrderId === o.clientOrderId && p.status === 'FILLED')).toBe(true);
    // Another account's orders are not pushed to this venue.
    const other = sim.createAccount({ id: 'b2', balances: { USDT: '100000' } });
    const before = pushed.length;
    sim.placeOrder(other.id, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.1'), price: d('50000'), clientId: 'other1' });
    expect(pushed.length).toBe(before);
    off();
    engine.stop();
  });

  it('stop orders carry their stop price and condition', async () => {
    const { venue } = setup();
    const o = await venue.createOrder({ symbol: 'BTCUSDT', side: 'SELL', type: 'STOP_MARKET', quantity: d('0.1'), stopPrice: d('58000'), clientId: 'st1' });
    expect(o.stopPrice!.toFixed()).toBe('58000');
    expect(o.stopPriceCondition).toBe('LESS_THAN_OR_EQUAL');
    expect(o.active).toBe(true);
  });

  it('opens, lists and closes margin positions and fills instant orders through the desks', async () => {
    const { sim } = setup();
    const desks = createSimDesks(sim);
    const venue = new SimVenue({ sim, account: 'a1', kind: 'paper', margin: desks.margin, instant: desks.instant });
    const p = await venue.openPosition({ market: 'BTCUSDT', side: 'long', collateral: d(1000), riskCoef: d(2), openPrice: d(60000) });
    expect(p.market).toBe('BTCUSDT');
    expect(p.side).toBe('long');
    const list = await venue.positions({ active: true });
    expect(list.map((x) => x.id)).toContain(p.id);
    // The position's first order fills when the market trades at its open price.
    sim.recordTrade({ symbol: 'BTCUSDT', price: d('60000'), quantity: d('1'), isBuyOrder: true, timestamp: sim.clock.now() });
    const opened = (await venue.positions({ active: true })).find((x) => x.id === p.id)!;
    expect(opened.state).toBe('open');
    const closed = await venue.closePosition(p.id, d(59990));
    expect(closed.state).toBe('closed');
    const inst = await venue.instantOrder({ symbol: 'BTCUSDT', side: 'BUY', quantity: d('0.01') });
    expect(inst.executedQty.toFixed()).toBe('0.01');
    expect(inst.fills.length).toBe(1);
    desks.detach();
  });
});
