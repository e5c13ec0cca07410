/**
 * Parsers of the trading-credit lifecycle and sub-account answers (docs/EXCHANGE-COVERAGE.md; the shapes of
 * developers.wallex.ir's trade-credit pages). Amounts are Decimals; a field of the wrong type is a
 * ResponseParseError naming it.
 */
import type { Decimal } from '../../core/decimal.js';
import type { PageInfo, Paged, PropPackageDetail } from '../../core/types/index.js';
import { arr, bool, boolOpt, compact, dec, decOpt, int, intOpt, obj, str, strOpt, strOrNull } from './fields.js';
import { parsePropPackageDetail } from './prop.js';

/** A trading-credit sub-account (`POST /v1/prop/user/packages`, `GET /sub-accounts`, a transfer's answer). */
export interface SubAccount {
  /** The `sub-account-client-id` to trade and manage it with. */
  clientId: string;
  title: string;
  isActive: boolean;
  isSuspend?: boolean;
  type?: string;
  createdAt?: string;
  userId?: string;
  darkAvatarUrl?: string;
  lightAvatarUrl?: string;
}

export interface PropAvailabilityCheck {
  key: string;
  isValid: boolean;
}

export interface WalletConnection {
  currency: string;
  credit: Decimal;
  usageCount: number;
  usedCount: number;
  status: string;
}

export interface SubAccountTransfer {
  uniqueId: number;
  sourceClientId?: string;
  destinationClientId?: string;
  destinationClientTitle?: string | null;
  currency: string;
  value?: Decimal;
  reason?: string;
  createdAt?: string;
}

/** `GET /v1/prop/user/packages/active`: the package and the account's running state. */
export interface ActivePropAccount {
  packageDetail: { id: number; title: string; currency: string; assurance: Decimal; loan: Decimal; startBalance?: Decimal; expireDays?: number };
  userPackageDetail: {
    status: string;
    createdAt?: string;
    expireAt?: string;
    openDays?: number;
    totalDays?: number;
    warningLimit?: Decimal;
    liquidityLimit?: Decimal;
    profit?: Decimal;
    profitPercentage?: Decimal;
    connectToWallet: string | null | undefined;
  };
  alerts: { type: string; message?: string }[];
}

const idText = (v: unknown, f: string): string | undefined => (v == null ? undefined : typeof v === 'number' ? String(v) : str(v, f));

export function parseSubAccount(json: unknown, f = 'result'): SubAccount {
  const o = obj(json, f);
  return compact<SubAccount>({
    clientId: str(o.clientId, `${f}.clientId`),
    title: str(o.title, `${f}.title`),
    isActive: bool(o.isActive, `${f}.isActive`),
    isSuspend: boolOpt(o.isSuspend, `${f}.isSuspend`),
    type: strOpt(o.type, `${f}.type`),
    createdAt: strOpt(o.createdAt, `${f}.createdAt`),
    userId: idText(o.userId, `${f}.userId`),
    darkAvatarUrl: strOpt(o.darkAvatarUrl, `${f}.darkAvatarUrl`),
    lightAvatarUrl: strOpt(o.lightAvatarUrl, `${f}.lightAvatarUrl`),
  });
}

export function parseSubAccounts(json: unknown): SubAccount[] {
  // The list page documents one object; an array of them is what a list answers.
  const list = Array.isArray(json) ? json : [json];
  return list.map((x, i) => parseSubAccount(x, `result[${i}]`));
}

export function parsePropPackages(json: unknown): PropPackageDetail[] {
  return arr(json, 'result').map((x, i) => parsePropPackageDetail(x, `result[${i}]`));
}

export function parseAvailability(json: unknown): PropAvailabilityCheck[] {
  return arr(json, 'result').map((x, i) => {
    const o = obj(x, `result[${i}]`);
    return { key: str(o.key, `result[${i}].key`), isValid: bool(o.isValid, `result[${i}].isValid`) };
  });
}

export function parseWalletConnection(json: unknown): WalletConnection {
  const o = obj(json, 'result');
  return {
    currency: str(o.currency, 'result.currency'),
    credit: dec(o.credit, 'result.credit'),
    usageCount: int(o.usageCount, 'result.usageCount'),
    usedCount: int(o.usedCount, 'result.usedCount'),
    status: str(o.status, 'result.status'),
  };
}

export function parseTransfers(json: unknown, pageInfo?: PageInfo): Paged<SubAccountTransfer> {
  const items = arr(json, 'result').map((x, i) => {
    const f = `result[${i}]`;
    const o = obj(x, f);
    return compact<SubAccountTransfer>({
      uniqueId: int(o.unique_id, `${f}.unique_id`),
      sourceClientId: strOpt(o.source_client_id, `${f}.source_client_id`),
      destinationClientId: strOpt(o.destination_client_id, `${f}.destination_client_id`),
      destinationClientTitle: strOrNull(o.destination_client_title, `${f}.destination_client_title`),
      currency: str(o.currency, `${f}.currency`),
      value: o.value === '' ? undefined : decOpt(o.value, `${f}.value`),
      reason: strOpt(o.reason, `${f}.reason`),
      createdAt: strOpt(o.createdAt, `${f}.createdAt`),
    });
  });
  return pageInfo ? { items, pageInfo } : { items };
}

export function parseActivePropAccount(json: unknown): ActivePropAccount {
  const o = obj(json, 'result');
  const p = obj(o.packageDetail, 'result.packageDetail');
  const u = obj(o.userPackageDetail, 'result.userPackageDetail');
  const pf = 'result.packageDetail';
  const uf = 'result.userPackageDetail';
  return {
    packageDetail: compact({
      id: int(p.id, `${pf}.id`),
      title: str(p.title, `${pf}.title`),
      currency: str(p.currency, `${pf}.currency`),
      assurance: dec(p.assurance, `${pf}.assurance`),
      loan: dec(p.loan, `${pf}.loan`),
      startBalance: decOpt(p.startBalance, `${pf}.startBalance`),
      expireDays: intOpt(p.expireDays, `${pf}.expireDays`),
    }),
    userPackageDetail: compact({
      status: str(u.status, `${uf}.status`),
      createdAt: strOpt(u.createdAt, `${uf}.createdAt`),
      expireAt: strOpt(u.expireAt, `${uf}.expireAt`),
      openDays: intOpt(u.openDays, `${uf}.openDays`),
      totalDays: intOpt(u.totalDays, `${uf}.totalDays`),
      warningLimit: decOpt(u.warningLimit, `${uf}.warningLimit`),
      liquidityLimit: decOpt(u.liquidityLimit, `${uf}.liquidityLimit`),
      profit: decOpt(u.profit, `${uf}.profit`),
      profitPercentage: decOpt(u.profitPercentage, `${uf}.profitPercentage`),
      connectToWallet: strOrNull(u.connectToWallet, `${uf}.connectToWallet`),
    }),
    alerts: (o.alertsData == null ? [] : arr(o.alertsData, 'result.alertsData')).map((a, i) => {
      const x = obj(a, `result.alertsData[${i}]`);
      return compact({ type: str(x.type, `result.alertsData[${i}].type`), message: strOpt(x.message, `result.alertsData[${i}].message`) });
    }),
  };
}
