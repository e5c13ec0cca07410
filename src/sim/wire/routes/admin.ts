/**
 * The simulator's admin routes under `/__sim/` (not part of the exchange): read and switch faults,
 * list an account's orders, and create a funded account with an API key for drills.
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
      // Every order of an account, open and closed, one entry per order (a twin shows twice): drills
      // run the simulator in another process and compare their journal with it order by order.
      method: 'GET',
      path: '/__sim/orders',
      handler: (req) => {
        const accountId = req.query.accountId;
        if (!accountId) throw new SimError(422, 'accountId: required (the account whose orders to list, e.g. "test")');
        return ok(
          sim.orders(accountId).map((o) => ({
            clientOrderId: o.clientOrderId,
            symbol: o.symbol,
            side: o.side,
            type: o.type,
            status: o.status,
            active: o.active,
            origQty: o.origQty.toFixed(),
            executedQty: o.executedQty.toFixed(),
            executedSum: o.executedSum.toFixed(),
            fee: o.fee.toFixed(),
          })),
        );
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
