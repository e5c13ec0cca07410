/**
 * A partly filled order's reservation shrinks with the fill (risk/reservations.ts `settle`): the
 * filled part shows in the balance the fill moved, so holding it in the reservation too would count
 * the same money twice and refuse intents the account can pay for. The engine settles the order's
 * reservation as it books each fill; before, nothing called `settle` and the reservation stayed
 * whole until the order ended. The simulator's real matching, the real Reservations.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import { silentLogger } from '../../src/core/logger.js';
import { ClientIdGenerator } from '../../src/execution/client-id.js';
import { ExecutionEngine } from '../../src/execution/engine.js';
import { Reservations } from '../../src/risk/reservations.js';
import { SimulatedExchange } from '../../src/sim/exchange.js';
import { SimVenue } from '../../src/venues/sim-venue.js';

describe('a partly filled order and its reservation', () => {
  it('holds only the unfilled part once the fill is booked', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const sim = new SimulatedExchange({ clock, seed: 7 });
    sim.replaceBookSide('BTCUSDT', 'ask', [{ price: d('60000'), quantity: d('0.25') }]);
    sim.replaceBookSide('BTCUSDT', 'bid', [{ price: d('59990'), quantity: d('1') }]);
    sim.setLastPrice('BTCUSDT', d('60000'));
    const acct = sim.createAccount({ id: 'a1', balances: { USDT: '100000' } });
    const venue = new SimVenue({ sim, account: acct.id, kind: 'backtest' });
    const reservations = new Reservations({ liveLocked: false });
    const engine = new ExecutionEngine({ venueFor: () => venue, clock, logger: silentLogger, ids: new ClientIdGenerator(clock, 'x'), reservations });
    engine.listen(venue);
    const id = reservations.reserve({
      kind: 'order',
      strategy: 's',
      account: 'main',
      asset: 'USDT',
      amount: d('60000'),
      symbol: 'BTCUSDT',
      side: 'BUY',
      quantity: d('1'),
    });

    const o = await engine.submitOrder(
      { kind: 'order', strategy: 's', symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: d('60000'), size: { kind: 'base', quantity: d('1') } },
      { reservationId: id },
    );

    expect(o.filled.toFixed()).toBe('0.25');
    expect(o.state).toBe('partially_filled');
    expect(reservations.get(id)!.remaining.toFixed()).toBe('45000');
    expect(reservations.reservedBy('s', 'USDT').toFixed()).toBe('45000');
    engine.stop();
  });
});
