/**
 * Routes of the trading-credit lifecycle and the sub-accounts (PropLifecycle; docs/EXCHANGE-COVERAGE.md).
 * The calls that name one trading-credit account take it from the `sub-account-client-id` header
 * (sent with the main key: these manage the account from the main one, wire/key-scope.ts).
 */
import { simErrors } from '../../errors.js';
import { accountOf, intParam, textParam } from '../../margin/parse.js';
import type { PropLifecycle } from '../../prop-lifecycle.js';
import { ok, type Route, type WireRequest } from '../route.js';
import { paginate } from './common.js';

function subHeader(req: WireRequest): string {
  const sub = req.headers['sub-account-client-id'] ?? req.subAccountId;
  if (!sub) throw simErrors.invalid({ 'sub-account-client-id': ['the sub-account-client-id header is required'] });
  return sub;
}

const opt = (req: WireRequest, name: string) => textParam(req, name);

export function propLifecycleRoutes(life: PropLifecycle): Route[] {
  return [
    { method: 'GET', path: '/v1/prop/packages', auth: 'read', handler: () => ok(life.packages()) },
    {
      method: 'GET',
      path: '/v1/prop/user/packages/:id/check-availability',
      auth: 'read',
      handler: (req) => ok(life.availability(accountOf(req), intParam(req, 'id', 'path'))),
    },
    {
      method: 'POST',
      path: '/v1/prop/user/packages',
      auth: 'trade',
      handler: (req) => ok(life.buy(accountOf(req), intParam(req, 'prop_package_id')).subAccount, 201),
    },
    {
      method: 'POST',
      path: '/v1/prop/user/packages/connect-to-wallet',
      auth: 'trade',
      handler: (req) =>
        ok(
          life.connectWallet(accountOf(req), subHeader(req), {
            credit: opt(req, 'credit'),
            currency: opt(req, 'currency'),
            usageCount: opt(req, 'usageCount'),
          }),
          200,
          { message: 'اتصال کیف پول با موفقیت انجام شد' },
        ),
    },
    {
      method: 'DELETE',
      path: '/v1/prop/user/packages/connect-to-wallet',
      auth: 'trade',
      handler: (req) => ok(life.disconnectWallet(accountOf(req), subHeader(req)), 200, { message: 'قطع اتصال کیف پول با موفقیت انجام شد' }),
    },
    { method: 'POST', path: '/v1/prop/user/packages/enable-renew', auth: 'trade', handler: (req) => ok(life.enableRenew(accountOf(req), subHeader(req))) },
    { method: 'GET', path: '/v1/prop/user/packages/active', auth: 'read', handler: (req) => ok(life.activeDetail(accountOf(req), subHeader(req))) },
    {
      method: 'GET',
      path: '/v1/prop/user/packages/history/:subAccountClientId',
      auth: 'read',
      handler: (req) => ok(life.history(accountOf(req), req.params.subAccountClientId ?? '')),
    },
    { method: 'GET', path: '/sub-accounts', auth: 'read', handler: (req) => ok(life.subAccounts(accountOf(req))) },
    {
      method: 'GET',
      path: '/sub-accounts/transfers',
      auth: 'read',
      handler: (req) => {
        const page = paginate(req, life.transferList(accountOf(req)));
        return ok(page.items, 200, { result_info: page.info });
      },
    },
    {
      method: 'POST',
      path: '/sub-accounts/transfers',
      auth: 'trade',
      handler: (req) =>
        ok(life.transfer(accountOf(req), { currency: opt(req, 'currency'), value: opt(req, 'value'), subAccount_client_id: opt(req, 'subAccount_client_id') })),
    },
  ];
}

/** `GET /__sim/prop/api-key?account=&client_id=` (admin, no key): the API key issued with a bought account. */
export function propLifecycleAdminRoutes(life: PropLifecycle): Route[] {
  return [
    {
      method: 'GET',
      path: '/__sim/prop/api-key',
      handler: (req) => {
        const account = textParam(req, 'account');
        const clientId = textParam(req, 'client_id');
        if (!account || !clientId) throw simErrors.invalid({ [account ? 'client_id' : 'account']: ['required'] });
        return ok({ client_id: clientId, api_key: life.issuedKey(account, clientId) });
      },
    },
  ];
}
