/** Account calls (spec 4.2): read-only ones retried; the withdrawal is guarded and never retried. */
import type { Decimal } from '../../core/decimal.js';
import { ForbiddenOperationError, ParameterError } from '../../core/errors.js';
import type { Balances, BankCard, FeeRates, FiatWithdrawal, Iban, Paged, Profile, WalletAddress } from '../../core/types/index.js';
import { parseBalances, parseBankCards, parseFeeRates, parseFiatWithdrawal, parseIbans, parseProfile, parseWalletAddress } from '../parse/account.js';
import { parseCryptoDeposits, parseCryptoWithdrawals, type CryptoDeposit, type CryptoWithdrawal } from '../parse/wallet-history.js';
import type { HttpCore } from './http.js';
import { guardWrite } from './write.js';
import * as v from './validate.js';

const get = (http: HttpCore, path: string, query?: Record<string, string>) =>
  http.request({ method: 'GET', path, query, auth: true, retry: true, envelope: 'required' });

/** GET /v1/account/profile */
export async function getProfile(http: HttpCore): Promise<Profile> {
  return parseProfile((await get(http, '/v1/account/profile')).payload);
}

/** GET /v1/account/fee */
export async function getFees(http: HttpCore): Promise<FeeRates> {
  return parseFeeRates((await get(http, '/v1/account/fee')).payload);
}

/** GET /v1/account/card-numbers */
export async function getBankCards(http: HttpCore): Promise<BankCard[]> {
  return parseBankCards((await get(http, '/v1/account/card-numbers')).payload);
}

/** GET /v1/account/ibans */
export async function getIbans(http: HttpCore): Promise<Paged<Iban>> {
  const res = await get(http, '/v1/account/ibans');
  return parseIbans(res.payload, res.envelope?.resultInfo);
}

/** GET /v1/account/balances */
export async function getBalances(http: HttpCore): Promise<Balances> {
  return parseBalances((await get(http, '/v1/account/balances')).payload);
}

/** GET /v1/account/wallets/{coin}?network= */
export async function getWalletAddress(http: HttpCore, coin: string, network: string): Promise<WalletAddress> {
  const c = v.coin(coin);
  const n = v.network(network);
  const res = await get(http, `/v1/account/wallets/${encodeURIComponent(c)}`, { network: n });
  const provider = res.envelope?.extras.provider;
  return parseWalletAddress(res.payload, typeof provider === 'string' ? provider : undefined);
}

export interface HistoryPage {
  /** From 1. */
  page?: number;
  perPage?: number;
}

const pageQuery = (q: HistoryPage): Record<string, string> => {
  const query: Record<string, string> = {};
  const page = v.positiveIntOpt(q.page, 'page');
  const perPage = v.positiveIntOpt(q.perPage, 'perPage');
  if (page !== undefined) query.page = String(page);
  if (perPage !== undefined) query.per_page = String(perPage);
  return query;
};

/** GET /v1/account/crypto-deposit?page=&per_page= (read only). */
export async function getCryptoDeposits(http: HttpCore, q: HistoryPage = {}): Promise<Paged<CryptoDeposit>> {
  const res = await get(http, '/v1/account/crypto-deposit', pageQuery(q));
  return parseCryptoDeposits(res.payload, res.envelope?.resultInfo);
}

/** GET /v1/account/crypto-withdrawal?page=&per_page= (read only: mizan never creates crypto withdrawals). */
export async function getCryptoWithdrawals(http: HttpCore, q: HistoryPage = {}): Promise<Paged<CryptoWithdrawal>> {
  const res = await get(http, '/v1/account/crypto-withdrawal', pageQuery(q));
  return parseCryptoWithdrawals(res.payload, res.envelope?.resultInfo);
}

export interface WithdrawalRequest {
  /** Id of a registered IBAN (from getIbans), not the IBAN text. */
  iban: number;
  /** Amount in Toman. */
  value: Decimal | string | number;
}

/**
 * POST /v1/account/money-withdrawal. Refused before sending unless the client was created with
 * `allowWithdrawals: true`; never retried (a lost answer gives OrderOutcomeUnknownError).
 */
export async function requestWithdrawal(http: HttpCore, allowed: boolean, req: WithdrawalRequest): Promise<FiatWithdrawal> {
  if (!allowed) {
    throw new ForbiddenOperationError(
      'requestWithdrawal: withdrawals are disabled for this client; create it with allowWithdrawals: true (and a key with withdraw permission) to allow them',
    );
  }
  const iban = v.positiveInt(req.iban, 'iban');
  const value = v.positive(req.value, 'value');
  // Toman has no decimals; the spec types the amount as a JSON number, exact for whole amounts.
  if (!value.isInteger() || value.gt(Number.MAX_SAFE_INTEGER)) throw new ParameterError('value', req.value, 'a whole Toman amount');
  const amount = value.toNumber();
  const res = await guardWrite('requestWithdrawal', undefined, () =>
    http.request({ method: 'POST', path: '/v1/account/money-withdrawal', body: { iban, value: amount }, auth: true, retry: false, envelope: 'required' }),
  );
  return guardWrite('requestWithdrawal', undefined, async () => parseFiatWithdrawal(res.payload));
}
