/**
 * The fiat withdrawal route (spec 4.2). The server's auth (`auth: 'withdraw'`) checks the key's
 * permission and IPs; given `keyInfo`, the route hands the key's permissions and permitted IPs to
 * WithdrawalDesk, which checks them again. Without it the route relies on the server's check.
 */
import type { Permission, Route } from '../route.js';
import { ok } from '../route.js';
import { accountOf, intParam, requireDecimal } from '../../margin/parse.js';
import type { WithdrawalDesk } from '../../withdrawal.js';

export interface WithdrawalRoutesOptions {
  keyInfo?: (apiKey: string) => { permissions: readonly Permission[]; ips: readonly string[] } | undefined;
}

export function withdrawalRoutes(desk: WithdrawalDesk, opts: WithdrawalRoutesOptions = {}): Route[] {
  return [
    {
      method: 'POST',
      path: '/v1/account/money-withdrawal',
      auth: 'withdraw',
      handler: (req) => {
        const account = accountOf(req);
        const info = opts.keyInfo?.(req.headers['x-api-key'] ?? '');
        const auth = info
          ? { permissions: info.permissions, ip: req.ip, permittedIps: info.ips }
          : { permissions: ['withdraw'] as const, ip: req.ip, permittedIps: [req.ip] };
        return ok(desk.request(account, { iban: intParam(req, 'iban'), value: requireDecimal(req, 'value') }, auth));
      },
    },
  ];
}
