/**
 * Crypto wallet history routes (read only): `GET /v1/account/crypto-deposit` and
 * `GET /v1/account/crypto-withdrawal`, `page` / `per_page` (default 10, as the documented samples
 * show), `result` an array with `result_info`. Admin routes record transfers made outside mizan:
 * `POST /__sim/crypto-deposits` and `/__sim/crypto-withdrawals` with `{accountId, asset, amount,
 * network, address, memo?, fee?}`.
 */
import type { CryptoHistory, CryptoTransferInput } from '../../crypto-history.js';
import { SimError } from '../../errors.js';
import { requireDecimal, requireText, decimalParam, textParam } from '../../margin/parse.js';
import { ok, type Route, type WireRequest } from '../route.js';
import { paginate, tradingAccountOf, type SubAccountResolver } from './common.js';

export function walletHistoryRoutes(history: CryptoHistory, resolve?: SubAccountResolver): Route[] {
  const acct = (req: WireRequest) => tradingAccountOf(req, resolve);
  return [
    {
      method: 'GET',
      path: '/v1/account/crypto-deposit',
      auth: 'read',
      handler: (req) => {
        const page = paginate(req, history.depositsOf(acct(req)), 10);
        return ok(page.items, 200, { result_info: page.info });
      },
    },
    {
      method: 'GET',
      path: '/v1/account/crypto-withdrawal',
      auth: 'read',
      handler: (req) => {
        const page = paginate(req, history.withdrawalsOf(acct(req)), 10);
        return ok(page.items, 200, { result_info: page.info });
      },
    },
  ];
}

function transfer(req: WireRequest): { accountId: string; input: CryptoTransferInput } {
  const memo = textParam(req, 'memo');
  const fee = decimalParam(req, 'fee');
  return {
    accountId: requireText(req, 'accountId'),
    input: {
      asset: requireText(req, 'asset').toUpperCase(),
      amount: requireDecimal(req, 'amount'),
      network: requireText(req, 'network'),
      address: requireText(req, 'address'),
      ...(memo !== undefined ? { memo } : {}),
      ...(fee !== undefined ? { fee } : {}),
    },
  };
}

export function walletHistoryAdminRoutes(history: CryptoHistory, accountExists: (id: string) => boolean): Route[] {
  const known = (id: string) => {
    if (!accountExists(id)) throw new SimError(422, 'The given data was invalid.', { accountId: [`no account ${JSON.stringify(id)} on this simulator`] });
    return id;
  };
  return [
    {
      method: 'POST',
      path: '/__sim/crypto-deposits',
      handler: (req) => {
        const t = transfer(req);
        return ok(history.deposit(known(t.accountId), t.input), 201);
      },
    },
    {
      method: 'POST',
      path: '/__sim/crypto-withdrawals',
      handler: (req) => {
        const t = transfer(req);
        return ok(history.withdraw(known(t.accountId), t.input), 201);
      },
    },
  ];
}
