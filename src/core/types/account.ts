/** Account resources (spec 2.7 - 2.11a, 2.17). */
import type { Decimal } from '../decimal.js';

export interface Profile {
  trackingId?: number;
  firstName?: string;
  lastName?: string;
  nationalCode?: string;
  faceImage?: string;
  birthday?: string;
  address?: Record<string, unknown> | null;
  phoneNumber?: { areaCode?: string; mainNumber?: string } | null;
  mobileNumber?: string;
  verification?: string;
  email?: string;
  inviteCode?: string;
  avatar?: string | null;
  commission?: number;
  settings?: Record<string, unknown> | null;
  status?: Record<string, unknown> | null;
  kycInfo?: Record<string, unknown> | null;
  meta?: Record<string, unknown> | null;
}

export interface FeeRate {
  symbol: string;
  makerFeeRate: Decimal;
  takerFeeRate: Decimal;
  recentDaysSum?: Decimal;
}

/** The fee map without its non-market keys (`default`, `metaData`), which are kept aside. */
export interface FeeRates {
  markets: Record<string, FeeRate>;
  /** The `metaData` object (volume levels), as sent. */
  metaData?: Record<string, unknown>;
}

export interface BankCard {
  id: number;
  cardNumber: string;
  owners: string[];
  status: string;
  isDefault: boolean;
}

export interface Iban {
  id: number;
  iban: string;
  owners: string[];
  bankName?: string;
  status: string;
  isDefault: boolean;
  withdrawDailyAmount?: Decimal;
  /** Remaining daily amount; the exchange has sent null. */
  withdrawAvailableAmount?: Decimal | null;
  bankDetails?: { code?: string; label?: string; isAvailable?: boolean };
}

export interface PageInfo {
  page: number;
  perPage: number;
  count: number;
  totalCount: number;
}

export interface Paged<T> {
  items: T[];
  pageInfo?: PageInfo;
}

export interface Balance {
  asset: string;
  faName?: string;
  fiat: boolean;
  /** Amount held, locked included. */
  value: Decimal;
  /** Amount frozen by open orders. */
  locked: Decimal;
}

export type Balances = Record<string, Balance>;

export interface FiatWithdrawal {
  amount: Decimal;
  fee: Decimal;
  trackingCode: string;
  createdAt: string;
  status: string;
  iban?: Iban;
  details: { value: Decimal; status: string }[];
}

export interface WalletNetwork {
  id?: number | string;
  name?: string;
  depositAvailability?: boolean;
  withdrawalAvailability?: boolean;
  depositUnavailabilityReason?: string | null;
  withdrawalUnavailabilityReason?: string | null;
}

export interface WalletEntry {
  network: WalletNetwork;
  address: string;
  memo?: string | null;
  expireAt?: string | null;
  minConfirmation?: number;
  transactionFee?: Decimal;
  minWithdrawalValue?: Decimal;
  minDepositValue?: Decimal;
}

export interface WalletAddress {
  coinType: {
    key: string;
    name?: string;
    nameEn?: string;
    type?: string;
    depositAvailability?: boolean;
    withdrawalAvailability?: boolean;
    depositUnavailabilityReason?: string | null;
    withdrawalUnavailabilityReason?: string | null;
  };
  wallets: Record<string, WalletEntry>;
  provider?: string;
}
