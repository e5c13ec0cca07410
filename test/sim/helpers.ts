/** Test helpers: a simulator on a manual clock with a few hand-made levels. */
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import { SimulatedExchange } from '../../src/sim/exchange.js';

export function levels(...pairs: [string, string][]) {
  return pairs.map(([price, quantity]) => ({ price: d(price), quantity: d(quantity) }));
}

export function makeSim(start = 1_700_000_000_000) {
  const clock = new ManualClock(start);
  const sim = new SimulatedExchange({ clock, seed: 7 });
  sim.replaceBookSide('BTCUSDT', 'bid', levels(['100', '1'], ['99', '2'], ['98', '3']));
  sim.replaceBookSide('BTCUSDT', 'ask', levels(['101', '1'], ['102', '2'], ['103', '3']));
  sim.setLastPrice('BTCUSDT', d('100.5'));
  const acc = sim.createAccount({ id: 'alice', balances: { USDT: '100000', BTC: '10' } });
  return { clock, sim, acc: acc.id };
}
