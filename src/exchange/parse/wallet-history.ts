/**
 * Parsers of the crypto wallet history (read only): `GET /v1/account/crypto-deposit` and
 * `GET /v1/account/crypto-withdrawal`, each a `result` array with the envelope's `result_info`.
 * Field names as the exchange's documentation shows them (api-docs.wallex.ir): a deposit has
 * `asset, amount, txHash, block_explorer_link, confirmations, min_confirmation, coin_type{…},
 * network{name,…}, status, time, wallet{address, memo}, deposit_type`; a withdrawal has `id, asset,
 * amount, wallet_address, memo, fee, txHash, block_explorer_link, status, coin{…}, network{name,…},
 * time`. Amounts are exact decimals; times epoch milliseconds.
 */
import type { Decimal } from '../../core/decimal.js';
import type { PageInfo, Paged } from '../../core/types/index.js';
import { arr, compact, dec, decOpt, intOpt, isObject, obj, str, strOpt, timeMs, type Json } from './fields.js';

export interface CryptoDeposit {
  asset: string;
  amount: Decimal;
  status: string;
  /** Epoch ms. */
  time: number;
  network?: string;
  txHash?: string;
  blockExplorerLink?: string;
  confirmations?: number;
  minConfirmation?: number;
  address?: string;
  memo?: string;
  depositType?: string;
}

export interface CryptoWithdrawal {
  id?: number;
  asset: string;
  amount: Decimal;
  fee?: Decimal;
  status: string;
  /** Epoch ms. */
  time: number;
  network?: string;
  walletAddress?: string;
  memo?: string;
  txHash?: string;
  blockExplorerLink?: string;
}

const networkName = (o: Json, f: string): string | undefined =>
  o.network == null ? undefined : isObject(o.network) ? strOpt(o.network.name, `${f}.network.name`) : strOpt(o.network, `${f}.network`);

function list(json: unknown): unknown[] {
  return Array.isArray(json) ? json : arr(obj(json, 'result').items, 'result');
}

export function parseCryptoDeposits(json: unknown, pageInfo?: PageInfo): Paged<CryptoDeposit> {
  const items = list(json).map((item, i) => {
    const f = `result[${i}]`;
    const o = obj(item, f);
    const wallet = o.wallet == null ? {} : obj(o.wallet, `${f}.wallet`);
    return compact<CryptoDeposit>({
      asset: str(o.asset, `${f}.asset`),
      amount: dec(o.amount, `${f}.amount`),
      status: str(o.status, `${f}.status`),
      time: timeMs(o.time, `${f}.time`),
      network: networkName(o, f),
      txHash: strOpt(o.txHash, `${f}.txHash`),
      blockExplorerLink: strOpt(o.block_explorer_link, `${f}.block_explorer_link`),
      confirmations: intOpt(o.confirmations, `${f}.confirmations`),
      minConfirmation: intOpt(o.min_confirmation, `${f}.min_confirmation`),
      address: strOpt(wallet.address, `${f}.wallet.address`),
      memo: strOpt(wallet.memo, `${f}.wallet.memo`),
      depositType: strOpt(o.deposit_type, `${f}.deposit_type`),
    });
  });
  return pageInfo ? { items, pageInfo } : { items };
}

export function parseCryptoWithdrawals(json: unknown, pageInfo?: PageInfo): Paged<CryptoWithdrawal> {
  const items = list(json).map((item, i) => {
    const f = `result[${i}]`;
    const o = obj(item, f);
    return compact<CryptoWithdrawal>({
      id: intOpt(o.id, `${f}.id`),
      asset: str(o.asset, `${f}.asset`),
      amount: dec(o.amount, `${f}.amount`),
      fee: decOpt(o.fee, `${f}.fee`),
      status: str(o.status, `${f}.status`),
      time: timeMs(o.time, `${f}.time`),
      network: networkName(o, f),
      walletAddress: strOpt(o.wallet_address, `${f}.wallet_address`),
      memo: strOpt(o.memo, `${f}.memo`),
      txHash: strOpt(o.txHash, `${f}.txHash`),
      blockExplorerLink: strOpt(o.block_explorer_link, `${f}.block_explorer_link`),
    });
  });
  return pageInfo ? { items, pageInfo } : { items };
}
