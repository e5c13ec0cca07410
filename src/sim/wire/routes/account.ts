/** Account routes served by the simulator's core: fees, balances, the account's trades and open orders. */
import type { SimulatedExchange } from '../../exchange.js';
import { ASSET_PRECISION } from '../../markets.js';
import { wireAccountTrade, wireBalance, wireOrder } from '../format.js';
import { ok, type Route } from '../route.js';
import { paginate, param } from './common.js';
import { tradingAccountOf, type SubAccountResolver } from './common.js';
import type { WireRequest } from '../route.js';

export function accountRoutes(sim: SimulatedExchange, resolve?: SubAccountResolver): Route[] {
  const acct = (req: WireRequest): string => tradingAccountOf(req, resolve);
  return [
    {
      method: 'GET',
      path: '/v1/account/fee',
      auth: 'read',
      handler: (req) => {
        const fees = sim.fees(acct(req));
        const result: Record<string, unknown> = {};
        for (const [symbol, f] of Object.entries(fees)) {
          result[symbol] = { makerFeeRate: f.makerFee.toFixed(8), takerFeeRate: f.takerFee.toFixed(8), recent_days_sum: 0 };
        }
        result.default = [];
        result.metaData = { levels: [0], coin_levels: [0], latestTradesSum: 0 };
        return ok(result);
      },
    },
    {
      method: 'GET',
      path: '/v1/account/balances',
      auth: 'read',
      handler: (req) => {
        const balances: Record<string, unknown> = {};
        for (const [asset, e] of Object.entries(sim.balances(acct(req)))) {
          const minQty = sim
            .markets()
            .filter((m) => m.baseAsset === asset)
            .map((m) => m.minQty);
          const dustBelow = minQty.length > 0 ? minQty.reduce((a, b) => (b.lt(a) ? b : a)) : undefined;
          balances[asset] = wireBalance(asset, e, ASSET_PRECISION[asset] ?? 8, dustBelow);
        }
        return ok({ balances });
      },
    },
    {
      method: 'GET',
      path: '/v1/account/trades',
      auth: 'read',
      handler: (req) => {
        const symbol = param(req, 'symbol')?.toUpperCase();
        const side = param(req, 'side')?.toUpperCase();
        const fills = sim.accountTrades(acct(req), symbol).filter((f) => !side || (side === 'BUY') === f.isBuyer);
        const page = paginate(req, fills, 100);
        return ok({ AccountLatestTrades: page.items.map(wireAccountTrade) }, 200, { result_info: page.info });
      },
    },
    {
      method: 'GET',
      path: '/v1/account/openOrders',
      auth: 'read',
      handler: (req) => {
        const symbol = param(req, 'symbol')?.toUpperCase();
        const page = paginate(req, sim.openOrders(acct(req), symbol).reverse());
        return ok({ orders: page.items.map(wireOrder) }, 200, { result_info: page.info });
      },
    },
  ];
}
