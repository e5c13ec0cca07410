/** Profile, bank cards, IBANs (with `result_info`) and crypto wallet addresses (spec 4.2). */
import type { AccountExtras } from '../../account-extras.js';
import { accountOf, textParam } from '../../margin/parse.js';
import { ok, type Route } from '../route.js';

export function profileRoutes(extras: AccountExtras): Route[] {
  return [
    { method: 'GET', path: '/v1/account/profile', auth: 'read', handler: (req) => ok(extras.profile(accountOf(req))) },
    { method: 'GET', path: '/v1/account/card-numbers', auth: 'read', handler: (req) => ok(extras.cards(accountOf(req))) },
    {
      method: 'GET',
      path: '/v1/account/ibans',
      auth: 'read',
      handler: (req) => {
        const list = extras.ibans(accountOf(req));
        return ok(list, 200, { result_info: { page: 1, per_page: list.length, count: list.length, total_count: list.length } });
      },
    },
    {
      method: 'GET',
      path: '/v1/account/wallets/:coin',
      auth: 'read',
      handler: (req) => {
        const w = extras.wallet(accountOf(req), req.params.coin ?? '', textParam(req, 'network'));
        return ok(w.result, 200, { provider: w.provider });
      },
    },
  ];
}
