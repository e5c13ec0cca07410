/**
 * CryptoHistory: the simulated exchange's crypto deposit and withdrawal records, read through
 * `GET /v1/account/crypto-deposit` and `GET /v1/account/crypto-withdrawal` (newest first). mizan never
 * moves crypto in or out; a drill records a transfer made elsewhere (the exchange's website, another
 * wallet) with the admin routes `POST /__sim/crypto-deposits` and `/__sim/crypto-withdrawals`: a
 * deposit credits the account, a withdrawal takes the amount plus its fee from the free balance (402
 * when short). Records carry the fields of the exchange's documented samples.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { Decimal } from '../core/decimal.js';
import type { Ledger } from './ledger.js';
import { isoSeconds } from './margin/ports.js';
import { simErrors } from './errors.js';

export interface CryptoTransferInput {
  asset: string;
  amount: Decimal;
  network: string;
  address: string;
  memo?: string;
  /** Withdrawals only; default 0. */
  fee?: Decimal;
}

export interface WireCoinType {
  key: string;
  name: string;
  name_en: string;
  type: 'CRYPTO';
  deposit_availability: 'ENABLE';
  withdrawal_availability: 'ENABLE';
  deposit_unavailability_reason: null;
  withdrawal_unavailability_reason: null;
}

interface WireNetwork {
  name: string;
  message: null;
  type: 'ADDRESS';
  deposit_availability: 'ENABLE';
  withdrawal_availability: 'ENABLE';
}

export interface WireCryptoDeposit {
  asset: string;
  amount: string;
  txHash: string;
  block_explorer_link: string;
  confirmations: number;
  min_confirmation: number;
  coin_type: WireCoinType;
  network: WireNetwork;
  status: 'confirmed';
  time: string;
  wallet: { address: string; memo_base: boolean; memo: string | null };
  deposit_type: 'DEPOSIT';
}

export interface WireCryptoWithdrawal {
  id: number;
  asset: string;
  amount: string;
  wallet_address: string;
  memo: string | null;
  fee: string;
  txHash: string;
  block_explorer_link: string;
  status: 'Accomplished';
  coin: WireCoinType & { id: number; status: 1; min_confirmation_rate: null; transaction_fee: null; configs: { type: 'address'; service: 'sim' } };
  network: WireNetwork;
  time: string;
}

const ASSET = /^[A-Z0-9]{1,20}$/;

export class CryptoHistory {
  private readonly deposits = new Map<string, WireCryptoDeposit[]>();
  private readonly withdrawals = new Map<string, WireCryptoWithdrawal[]>();
  private seq = 0;

  constructor(private readonly deps: { ledger: Ledger; clock: Clock; names?: (asset: string) => string | undefined }) {}

  deposit(account: string, t: CryptoTransferInput): WireCryptoDeposit {
    this.check(t);
    this.deps.ledger.credit(account, t.asset, t.amount);
    const tx = this.txHash('deposit', account);
    const rec: WireCryptoDeposit = {
      asset: t.asset,
      amount: t.amount.toFixed(),
      txHash: tx,
      block_explorer_link: `https://explorer.invalid/tx/${tx}`,
      confirmations: 1,
      min_confirmation: 1,
      coin_type: this.coinType(t.asset),
      network: network(t.network),
      status: 'confirmed',
      time: isoSeconds(this.deps.clock.now()),
      wallet: { address: t.address, memo_base: t.memo !== undefined, memo: t.memo ?? null },
      deposit_type: 'DEPOSIT',
    };
    push(this.deposits, account, rec);
    return rec;
  }

  withdraw(account: string, t: CryptoTransferInput): WireCryptoWithdrawal {
    this.check(t);
    const fee = t.fee;
    if (fee && fee.isNeg()) throw simErrors.invalid({ fee: [`fee must not be negative, got ${fee.toFixed()}`] });
    this.deps.ledger.debitFree(account, t.asset, fee ? t.amount.plus(fee) : t.amount);
    const tx = this.txHash('withdrawal', account);
    const id = 2_000_000_000 + this.seq;
    const rec: WireCryptoWithdrawal = {
      id,
      asset: t.asset,
      amount: t.amount.toFixed(),
      wallet_address: t.address,
      memo: t.memo ?? null,
      fee: fee ? fee.toFixed() : '0',
      txHash: tx,
      block_explorer_link: `https://explorer.invalid/tx/${tx}`,
      status: 'Accomplished',
      coin: { ...this.coinType(t.asset), id: 1, status: 1, min_confirmation_rate: null, transaction_fee: null, configs: { type: 'address', service: 'sim' } },
      network: network(t.network),
      time: isoSeconds(this.deps.clock.now()),
    };
    push(this.withdrawals, account, rec);
    return rec;
  }

  /** Newest first. */
  depositsOf(account: string): WireCryptoDeposit[] {
    return [...(this.deposits.get(account) ?? [])].reverse();
  }

  /** Newest first. */
  withdrawalsOf(account: string): WireCryptoWithdrawal[] {
    return [...(this.withdrawals.get(account) ?? [])].reverse();
  }

  private check(t: CryptoTransferInput): void {
    if (!ASSET.test(t.asset)) throw simErrors.invalid({ asset: [`asset must be an upper-case asset code, got ${JSON.stringify(t.asset)}`] });
    if (!t.amount.isFinite() || t.amount.lte(0)) throw simErrors.invalid({ amount: [`amount must be positive, got ${t.amount.toFixed()}`] });
    if (!t.network) throw simErrors.invalid({ network: ['network is required'] });
    if (!t.address) throw simErrors.invalid({ address: ['address is required'] });
  }

  private coinType(asset: string): WireCoinType {
    return {
      key: asset,
      name: this.deps.names?.(asset) ?? asset,
      name_en: asset,
      type: 'CRYPTO',
      deposit_availability: 'ENABLE',
      withdrawal_availability: 'ENABLE',
      deposit_unavailability_reason: null,
      withdrawal_unavailability_reason: null,
    };
  }

  private txHash(kind: string, account: string): string {
    return createHash('sha256').update(`${kind}:${account}:${++this.seq}`).digest('hex');
  }
}

const network = (name: string): WireNetwork => ({ name, message: null, type: 'ADDRESS', deposit_availability: 'ENABLE', withdrawal_availability: 'ENABLE' });

function push<T>(map: Map<string, T[]>, account: string, rec: T): void {
  const list = map.get(account);
  if (list) list.push(rec);
  else map.set(account, [rec]);
}
