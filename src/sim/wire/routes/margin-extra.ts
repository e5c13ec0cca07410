/**
 * The margin calls the documentation lists by path only: a position's profit, the margin order list,
 * the user's risk-coefficient levels and the profit summary (answers: sim/margin/extras.ts).
 */
import type { MarginDesk } from '../../margin/desk.js';
import { marginOrders, positionProfit, userLevel, userLevels, userPnl } from '../../margin/extras.js';
import { intParam, textParam, tradingAccount, type SubAccountResolver } from '../../margin/parse.js';
import { ok, type Route, type WireRequest } from '../route.js';
import { paginate } from './common.js';

export function marginExtraRoutes(desk: MarginDesk, resolveSubAccount?: SubAccountResolver): Route[] {
  const account = (req: WireRequest) => tradingAccount(req, resolveSubAccount);
  return [
    {
      method: 'POST',
      path: '/margin-trade/v1/positions/:id/profit',
      auth: 'read',
      handler: (req) => ok(positionProfit(desk, account(req), intParam(req, 'id', 'path'))),
    },
    {
      method: 'GET',
      path: '/margin-trade/v1/orders',
      auth: 'read',
      handler: (req) => {
        const market = textParam(req, 'market')?.toUpperCase();
        const positionId = textParam(req, 'position_id') === undefined ? undefined : intParam(req, 'position_id');
        const page = paginate(req, marginOrders(desk, account(req), { ...(market ? { market } : {}), ...(positionId !== undefined ? { positionId } : {}) }));
        return ok(page.items, 200, { result_info: page.info });
      },
    },
    { method: 'GET', path: '/margin-trade/v1/user/levels', auth: 'read', handler: () => ok(userLevels(desk)) },
    {
      method: 'GET',
      path: '/margin-trade/v1/user/levels/:market',
      auth: 'read',
      handler: (req) => ok(userLevel(desk, (req.params.market ?? '').toUpperCase())),
    },
    { method: 'GET', path: '/margin-trade/v1/user/pnl', auth: 'read', handler: (req) => ok(userPnl(desk, account(req))) },
  ];
}
