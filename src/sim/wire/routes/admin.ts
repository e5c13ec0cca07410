/**
 * The simulator's admin routes under `/__sim/` (not part of the exchange): read and switch faults,
 * and create a funded account with an API key for drills.
 */
import type { SimulatedExchange } from '../../exchange.js';
import type { FaultConfig, FaultInjector } from '../../faults.js';
import { SimError } from '../../errors.js';
import type { Permission } from '../../accounts.js';
import { ok, type Route } from '../route.js';

interface FaultRequest extends FaultConfig {
  /** Stall (`on: true`) or release one channel. */
  stall?: { channel: string; on?: boolean };
  dropConnections?: boolean;
  reset?: boolean;
}

export function adminRoutes(sim: SimulatedExchange, faults: FaultInjector): Route[] {
  return [
    { method: 'GET', path: '/__sim/faults', handler: () => ok(faults.state()) },
    {
      method: 'POST',
      path: '/__sim/faults',
      handler: (req) => {
        const body = req.body as FaultRequest;
        try {
          if (body.reset) faults.reset();
          faults.configure(body);
          if (body.stall) faults.stall(body.stall.channel, body.stall.on ?? true);
        } catch (err) {
          throw new SimError(422, err instanceof Error ? err.message : String(err));
        }
        if (body.dropConnections) faults.dropConnections();
        return ok(faults.state());
      },
    },
    {
      method: 'POST',
      path: '/__sim/accounts',
      handler: (req) => {
        const body = req.body as { id?: string; balances?: Record<string, string>; permissions?: Permission[]; ips?: string[] };
        const account = sim.createAccount({ ...(body.id ? { id: body.id } : {}), balances: body.balances ?? {} });
        const key = sim.createApiKey(account.id, { name: 'sim', permissions: body.permissions ?? ['read', 'trade'], ips: body.ips ?? [] });
        return ok({ accountId: account.id, apiKey: key.key }, 201);
      },
    },
  ];
}
