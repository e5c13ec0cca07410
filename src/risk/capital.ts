/**
 * A strategy's `capital` in use, per asset: what its intents in flight have reserved of it plus the
 * cost of the positions it holds in markets quoted in it. One computation for the exposure rule (a
 * spend above the capital is denied) and the sizing of `fraction(f)` (f of what the capital has left).
 */
import type { Decimal } from '../core/decimal.js';
import type { RiskPorts } from './ports.js';
import type { Reservations } from './reservations.js';

export function capitalInUse(ports: RiskPorts, reservations: Reservations, strategy: string, asset: string): Decimal {
  let used = reservations.reservedBy(strategy, asset);
  for (const p of ports.positions?.() ?? []) {
    if (p.strategy !== strategy || !p.cost || p.quantity.isZero()) continue;
    const pm = ports.market(p.symbol);
    if (pm && pm.quote === asset) used = used.plus(p.cost);
  }
  return used;
}
