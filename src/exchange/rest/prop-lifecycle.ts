/**
 * Trading-credit lifecycle and sub-account calls (docs/EXCHANGE-COVERAGE.md). Reads are retried; the calls
 * that move money or change an account (buying a package, a transfer, connecting the wallet,
 * renewal) are writes: never retried, a lost answer is OrderOutcomeUnknownError (look the account
 * up before acting again). The calls that manage one trading-credit account send its
 * `sub-account-client-id` with the main key, as the docs' examples do.
 *
 * People reach these through `mizan account ...` (src/cli/account.ts); strategies never do: no
 * venue or strategy context exposes them.
 */
import { toPlain, type Decimal } from '../../core/decimal.js';
import { ParameterError } from '../../core/errors.js';
import type { Paged, PropHistoryEntry, PropPackageDetail } from '../../core/types/index.js';
import {
  parseActivePropAccount,
  parseAvailability,
  parsePropPackages,
  parseSubAccount,
  parseSubAccounts,
  parseTransfers,
  parseWalletConnection,
  type ActivePropAccount,
  type PropAvailabilityCheck,
  type SubAccount,
  type SubAccountTransfer,
  type WalletConnection,
} from '../parse/prop-lifecycle.js';
import { parsePropHistoryEntry } from '../parse/prop.js';
import type { HttpCore, HttpMethod } from './http.js';
import { guardWrite } from './write.js';
import * as v from './validate.js';

const read = (http: HttpCore, path: string, headers?: Record<string, string>, query?: Record<string, string>) =>
  http.request({ method: 'GET', path, auth: true, retry: true, envelope: 'required', ...(headers ? { headers } : {}), ...(query ? { query } : {}) });

const write = (http: HttpCore, method: HttpMethod, path: string, body?: Record<string, unknown>, headers?: Record<string, string>) =>
  http.request({ method, path, auth: true, retry: false, envelope: 'required', ...(body ? { body } : {}), ...(headers ? { headers } : {}) });

const sub = (id: string) => ({ 'sub-account-client-id': v.headerId(id, 'subAccountId') });

/** GET /v1/prop/packages */
export async function getPropPackages(http: HttpCore): Promise<PropPackageDetail[]> {
  return parsePropPackages((await read(http, '/v1/prop/packages')).payload);
}

/** GET /v1/prop/user/packages/{id}/check-availability */
export async function checkPropAvailability(http: HttpCore, packageId: number): Promise<PropAvailabilityCheck[]> {
  const id = v.positiveInt(packageId, 'packageId');
  return parseAvailability((await read(http, `/v1/prop/user/packages/${id}/check-availability`)).payload);
}

/** POST /v1/prop/user/packages {prop_package_id} (201): buys a package, opening a trading-credit account. */
export async function buyPropPackage(http: HttpCore, packageId: number): Promise<SubAccount> {
  const id = v.positiveInt(packageId, 'packageId');
  return guardWrite('buyPropPackage', undefined, async () =>
    parseSubAccount((await write(http, 'POST', '/v1/prop/user/packages', { prop_package_id: String(id) })).payload),
  );
}

export interface WalletConnectionRequest {
  /** Amount moved per automatic transfer, in the package's currency. */
  credit: Decimal | string | number;
  /** The package's currency (TMN or USDT). */
  currency: string;
  /** At most this many transfers. */
  usageCount: number;
}

/** POST /v1/prop/user/packages/connect-to-wallet {credit, currency, usageCount}, header `sub-account-client-id`. */
export async function connectPropWallet(http: HttpCore, subAccountId: string, r: WalletConnectionRequest): Promise<WalletConnection> {
  const headers = sub(subAccountId);
  const body = {
    credit: toPlain(v.positive(r.credit, 'credit')),
    currency: v.coin(r.currency, 'currency'),
    usageCount: v.positiveInt(r.usageCount, 'usageCount'),
  };
  return guardWrite('connectPropWallet', undefined, async () =>
    parseWalletConnection((await write(http, 'POST', '/v1/prop/user/packages/connect-to-wallet', body, headers)).payload),
  );
}

/** DELETE /v1/prop/user/packages/connect-to-wallet, header `sub-account-client-id`. */
export async function disconnectPropWallet(http: HttpCore, subAccountId: string): Promise<void> {
  const headers = sub(subAccountId);
  await guardWrite('disconnectPropWallet', undefined, () => write(http, 'DELETE', '/v1/prop/user/packages/connect-to-wallet', undefined, headers));
}

/** POST /v1/prop/user/packages/enable-renew, header `sub-account-client-id`. */
export async function enablePropRenew(http: HttpCore, subAccountId: string): Promise<void> {
  const headers = sub(subAccountId);
  await guardWrite('enablePropRenew', undefined, () => write(http, 'POST', '/v1/prop/user/packages/enable-renew', undefined, headers));
}

/** GET /v1/prop/user/packages/active, header `sub-account-client-id`. */
export async function getActivePropAccount(http: HttpCore, subAccountId: string): Promise<ActivePropAccount> {
  return parseActivePropAccount((await read(http, '/v1/prop/user/packages/active', sub(subAccountId))).payload);
}

/** GET /v1/prop/user/packages/history/{subAccountClientId} */
export async function getPropAccountHistory(http: HttpCore, subAccountId: string): Promise<PropHistoryEntry> {
  const id = v.headerId(subAccountId, 'subAccountId');
  return parsePropHistoryEntry((await read(http, `/v1/prop/user/packages/history/${encodeURIComponent(id)}`)).payload, 'result');
}

/** GET /sub-accounts */
export async function getSubAccounts(http: HttpCore): Promise<SubAccount[]> {
  return parseSubAccounts((await read(http, '/sub-accounts')).payload);
}

/** GET /sub-accounts/transfers?page=&per_page= */
export async function getSubAccountTransfers(http: HttpCore, q: { page?: number; perPage?: number } = {}): Promise<Paged<SubAccountTransfer>> {
  const query: Record<string, string> = {};
  const page = v.positiveIntOpt(q.page, 'page');
  const perPage = v.positiveIntOpt(q.perPage, 'perPage');
  if (page !== undefined) query.page = String(page);
  if (perPage !== undefined) query.per_page = String(perPage);
  const res = await read(http, '/sub-accounts/transfers', undefined, query);
  return parseTransfers(res.payload, res.envelope?.resultInfo);
}

export interface SubAccountTransferRequest {
  subAccountId: string;
  currency: string;
  value: Decimal | string | number;
}

/** POST /sub-accounts/transfers {currency, value, subAccount_client_id}: main account -> trading-credit account. */
export async function transferToSubAccount(http: HttpCore, r: SubAccountTransferRequest): Promise<SubAccount> {
  const value = v.positive(r.value, 'value');
  // The docs type `value` as a number: exact for the amounts a person moves (checked as a plain decimal).
  const body = { currency: v.coin(r.currency, 'currency'), value: Number(toPlain(value)), subAccount_client_id: v.headerId(r.subAccountId, 'subAccountId') };
  if (toPlain(value) !== String(body.value)) throw new ParameterError('value', r.value, 'an amount a JSON number holds exactly');
  return guardWrite('transferToSubAccount', undefined, async () => parseSubAccount((await write(http, 'POST', '/sub-accounts/transfers', body)).payload));
}
