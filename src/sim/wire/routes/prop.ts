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

/** Issues the API key of a trading-credit account (owner, client id, optional fixed value) -> the key. */
export type PropKeyIssuer = (owner: string, clientId: string, key?: string) => string;

/**
 * Admin routes (no API key): `POST /__sim/prop/open` `{account, package_id, api_key?}` opens a
 * trading-credit account -> its history entry (`client_id`: the header value to trade with) and
 * `api_key`, the key issued for it; `POST /__sim/prop/api-keys` `{account, client_id, api_key?}`
 * issues another key for an open account (what the exchange's web panel does for a bought package).
 */
export function propAdminRoutes(desk: PropDesk, issueKey: PropKeyIssuer): Route[] {
  const fixedKey = (req: Parameters<Route['handler']>[0]): string | undefined => {
    const k = req.body.api_key;
    if (k === undefined) return undefined;
    if (typeof k !== 'string' || k.length < 16) throw simErrors.invalid({ api_key: ['api_key must be a string of at least 16 characters'] });
    return k;
  };
  return [
    {
      method: 'POST',
      path: '/__sim/prop/open',
      handler: (req) => {
        const account = req.accountId ?? requireText(req, 'account');
        const key = fixedKey(req);
        const entry = desk.openSubAccount(account, intParam(req, 'package_id'));
        const clientId = String(entry.client_id);
        return ok({ ...entry, api_key: issueKey(account, clientId, key) }, 201);
      },
    },
    {
      method: 'POST',
      path: '/__sim/prop/api-keys',
      handler: (req) => {
        const account = requireText(req, 'account');
        const clientId = requireText(req, 'client_id');
        desk.resolveSubAccount(account, clientId);
        return ok({ client_id: clientId, api_key: issueKey(account, clientId, fixedKey(req)) }, 201);
      },
    },
  ];
}
