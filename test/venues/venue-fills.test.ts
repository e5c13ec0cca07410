/**
 * The simulator hands the execution engine each fill it computed (Venue.onFill), before the order's
 * update: the engine books those fills as they are, not diffed back out of a snapshot. Without the
 * push, a market order that walks two levels and is seen only in its create answer is booked as one
 * fill at the average price; with it, as the simulator's two fills at their own prices and fees.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import { silentLogger } from '../../src/core/logger.js';
import type { FillEvent } from '../../src/core/views.js';
import { ClientIdGenerator } from '../../src/execution/client-id.js';
import { ExecutionEngine } from '../../src/execution/engine.js';
import type { Venue } from '../../src/execution/venue.js';
import { SimulatedExchange } from '../../src/sim/exchange.js';
import type { SimFill } from '../../src/sim/order-types.js';
import { SimVenue } from '../../src/venues/sim-venue.js';

describe('a venue that computes fills hands them to the engine', () => {
  it("books the simulator's own fills (price, quantity, fee) once; the create answer adds nothing", async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const sim = new SimulatedExchange({ clock, seed: 7 });
    sim.replaceBookSide('BTCUSDT', 'ask', [
      { price: d('60010'), quantity: d('1') },
      { price: d('60020'), quantity: d('1') },
    ]);
    sim.replaceBookSide('BTCUSDT', 'bid', [{ price: d('59990'), quantity: d('1') }]);
    sim.setLastPrice('BTCUSDT', d('60000'));
    const acct = sim.createAccount({ id: 'a1', balances: { USDT: '200000' } });
    const inner = new SimVenue({ sim, account: acct.id, kind: 'backtest' });
    // Only the create answer and the pushed fills: no order updates to diff.
    const venue = {
      kind: 'backtest',
      createOrder: (o: Parameters<Venue['createOrder']>[0]) => inner.createOrder(o),
      onFill: inner.onFill.bind(inner),
    } as unknown as Venue;
    const engine = new ExecutionEngine({ venueFor: () => venue, clock, logger: silentLogger, ids: new ClientIdGenerator(clock, 'x') });
    engine.listen(venue);
    const simFills: SimFill[] = [];
    sim.on('fill', (f) => simFills.push(f));
    const fills: FillEvent[] = [];
    engine.on('fill', (f) => fills.push(f));

    const o = await engine.submitOrder({
      kind: 'order',
      strategy: 's',
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'MARKET',
      size: { kind: 'base', quantity: d('1.5') },
    });

    expect(o.state).toBe('filled');
    expect(simFills).toHaveLength(2);
    expect(fills.map((f) => [f.price.toFixed(), f.quantity.toFixed(), f.fee.toFixed(), f.feeAsset, f.timestamp])).toEqual(
      simFills.map((f) => [f.price.toFixed(), f.quantity.toFixed(), f.fee.toFixed(), f.feeAsset, f.timestamp]),
    );
    expect(fills.map((f) => f.price.toFixed())).toEqual(['60010', '60020']);
    expect(o.filled.toFixed()).toBe('1.5');
    expect(o.filledQuote.toFixed()).toBe('90020');
    engine.stop();
  });
});
