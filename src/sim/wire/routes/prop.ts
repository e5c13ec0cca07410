/**
 * Trading-credit routes (spec 4.6) and the simulator's admin route to open a trading-credit account
 * (the exchange documents no endpoint for it): `POST /__sim/prop/open` with `{account, package_id}`.
 * Admin routes go in the server's admin router (no API key), the others in its `routes`.
 */
import { simErrors } from '../../errors.js';
import { accountOf, intParam, requireText } from '../../margin/parse.js';
import type { PropDesk } from '../../prop.js';
import { ok, type Route } from '../route.js';

export function propRoutes(desk: PropDesk): Route[] {
  return [
    {
      method: 'GET',
      path: '/v1/prop/user/packages/history',
      auth: 'read',
      handler: (req) => {
        const list = desk.history(accountOf(req));
        return ok(list, 200, { result_info: { page: 1, per_page: list.length, count: list.length, total_count: list.length } });
      },
    },
    { method: 'GET', path: '/v1/prop/packages/:id', auth: 'read', handler: (req) => ok(desk.packageDetail(intParam(req, 'id', 'path'))) },
    {
      method: 'DELETE',
      path: '/v1/prop/user/packages',
      auth: 'trade',
      handler: (req) => {
        const sub = req.headers['sub-account-client-id'] ?? req.subAccountId;
        if (!sub) throw simErrors.invalid({ 'sub-account-client-id': ['the sub-account-client-id header is required'] });
        return ok(desk.close(accountOf(req), sub));
      },
    },
  ];
}

/** `POST /__sim/prop/open` `{account, package_id}` -> the new history entry (its `client_id` is the header value to trade with). */
export function propAdminRoutes(desk: PropDesk): Route[] {
  return [
    {
      method: 'POST',
      path: '/__sim/prop/open',
      handler: (req) => ok(desk.openSubAccount(req.accountId ?? requireText(req, 'account'), intParam(req, 'package_id')), 201),
    },
  ];
}
