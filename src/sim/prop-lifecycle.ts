/**
 * The trading-credit lifecycle around PropDesk (test/e2e/prop-account.test.ts), as the exchange's current docs
 * (developers.wallex.ir, trade-credit pages) describe it:
 *
 * - the package list and a user's availability check for one package (KYC, enough free assurance);
 * - buying a package (`POST /v1/prop/user/packages`): takes the assurance, funds a new sub-account and
 *   issues that account's own API key (the exchange's panel does this; here `issueKey`);
 * - connecting the main wallet (an automatic top-up allowance: `credit` per transfer, `usageCount`
 *   transfers), turning renewal on, the active account's detail, one account's history entry;
 * - the sub-account list, and transfers from the main account to a sub-account (only the package's
 *   currency: another is refused 422 `{currency: [...]}` like the docs' sample), listed newest first.
 *
 * State lives here and in the ledger; PropDesk keeps the accounts.
 */
import type { Clock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import type { Ledger } from './ledger.js';
import { simErrors } from './errors.js';
import { isoSeconds } from './margin/ports.js';
import type { PropDesk, SubAccountView } from './prop.js';

export interface PropLifecycleDeps {
  desk: PropDesk;
  ledger: Ledger;
  clock: Clock;
  /** Issues the sub-account's own API key (owner, client id) -> the key. */
  issueKey: (owner: string, clientId: string) => string;
}

interface WalletLink {
  currency: string;
  credit: Decimal;
  usageCount: number;
  usedCount: number;
}

interface Transfer {
  uniqueId: number;
  account: string;
  clientId: string;
  title: string;
  currency: string;
  value: Decimal;
  atMs: number;
}

const img = (id: number, theme: string) => `https://sim.local/prop/${id}-${theme}.png`;

export class PropLifecycle {
  private readonly links = new Map<string, WalletLink>();
  private readonly renew = new Set<string>();
  private readonly transfers: Transfer[] = [];
  private readonly keys = new Map<string, string>();

  constructor(private readonly deps: PropLifecycleDeps) {}

  /** `GET /v1/prop/packages`. */
  packages(): Record<string, unknown>[] {
    return this.deps.desk.packageList().map((p) => {
      const { detail } = this.deps.desk.packageDetail(p.id);
      return { ...detail, status: p.status.toUpperCase(), destination_currency: p.destinationCurrency === p.currency ? null : p.destinationCurrency };
    });
  }

  /** `GET /v1/prop/user/packages/{id}/check-availability`: `[{key, isValid}]`. */
  availability(account: string, packageId: number): { key: string; isValid: boolean }[] {
    const pkg = this.deps.desk.packageList().find((p) => p.id === packageId);
    if (!pkg) throw simErrors.notFound(`trading-credit package ${packageId} not found`);
    return [
      { key: 'kyc', isValid: true },
      { key: 'balance', isValid: this.deps.ledger.free(account, pkg.currency).gte(pkg.assurance) },
      { key: 'package', isValid: pkg.status === 'active' },
    ];
  }

  /** `POST /v1/prop/user/packages {prop_package_id}` -> the new sub-account (201); its key is issued. */
  buy(account: string, packageId: number): { subAccount: Record<string, unknown>; apiKey: string } {
    const entry = this.deps.desk.openSubAccount(account, packageId);
    const clientId = String(entry.client_id);
    const apiKey = this.deps.issueKey(account, clientId);
    this.keys.set(clientId, apiKey);
    return { subAccount: this.subAccountJson(this.deps.desk.subAccountOf(account, clientId)), apiKey };
  }

  /** The key issued when `clientId` was bought (the simulator's stand-in for the exchange's panel). */
  issuedKey(account: string, clientId: string): string {
    this.deps.desk.subAccountOf(account, clientId);
    const key = this.keys.get(clientId);
    if (key === undefined)
      throw simErrors.notFound(`no API key was issued with trading-credit account ${clientId} (it was not bought through POST /v1/prop/user/packages)`);
    return key;
  }

  /** `GET /sub-accounts`. */
  subAccounts(account: string): Record<string, unknown>[] {
    return this.deps.desk.subAccountsOf(account).map((s) => this.subAccountJson(s));
  }

  /** `POST /v1/prop/user/packages/connect-to-wallet` (header names the account). */
  connectWallet(account: string, clientId: string, body: { credit?: string; currency?: string; usageCount?: string }): Record<string, unknown> {
    const sub = this.active(account, clientId);
    const fields: Record<string, string[]> = {};
    const credit = positive(body.credit);
    if (!credit) fields.credit = [`credit must be a positive amount, got ${JSON.stringify(body.credit ?? null)}`];
    if (body.currency !== sub.pkg.currency)
      fields.currency = [`currency must be ${sub.pkg.currency}, the package's currency, got ${JSON.stringify(body.currency ?? null)}`];
    const usage = Number(body.usageCount);
    if (!Number.isInteger(usage) || usage < 1) fields.usageCount = [`usageCount must be a whole number >= 1, got ${JSON.stringify(body.usageCount ?? null)}`];
    if (Object.keys(fields).length > 0) throw simErrors.invalid(fields);
    const link: WalletLink = { currency: sub.pkg.currency, credit: credit!, usageCount: usage, usedCount: 0 };
    this.links.set(clientId, link);
    return linkJson(link);
  }

  /** `DELETE /v1/prop/user/packages/connect-to-wallet`. */
  disconnectWallet(account: string, clientId: string): unknown[] {
    this.active(account, clientId);
    if (!this.links.delete(clientId))
      throw simErrors.invalid({ 'sub-account-client-id': [`trading-credit account ${clientId} is not connected to the wallet`] });
    return [];
  }

  /** `POST /v1/prop/user/packages/enable-renew`. */
  enableRenew(account: string, clientId: string): unknown[] {
    this.active(account, clientId);
    this.renew.add(clientId);
    return [];
  }

  /** `GET /v1/prop/user/packages/active` (header names the account). */
  activeDetail(account: string, clientId: string): Record<string, unknown> {
    const sub = this.active(account, clientId);
    const p = sub.pkg;
    const e = this.deps.desk.historyEntry(account, clientId);
    const start = p.assurance.plus(p.loan);
    const value = this.deps.desk.valueOf(account, clientId);
    const profit = value.minus(start);
    const link = this.links.get(clientId);
    return {
      packageDetail: {
        id: p.id,
        title: p.title,
        assurance: p.assurance.toFixed(),
        loan: p.loan.toFixed(),
        currency: p.currency,
        destination_currency: p.destinationCurrency === p.currency ? null : p.destinationCurrency,
        dailyFee: e.daily_fee,
        dailyFeeDiscount: e.daily_fee_discount,
        dailyFeeAfterDiscount: e.daily_fee_after_discount,
        darkImageUrl: img(p.id, 'dark'),
        lightImageUrl: img(p.id, 'light'),
        startBalance: start.toFixed(),
        expireDays: p.expireDays,
      },
      userPackageDetail: {
        id: this.deps.desk.subAccountsOf(account).findIndex((x) => x.clientId === clientId) + 1,
        status: sub.status,
        createdAt: isoSeconds(sub.createdAtMs),
        expireAt: isoSeconds(sub.expireAtMs),
        type: 'prop',
        openDays: e.open_days,
        totalDays: e.total_days,
        cyclesCount: e.open_days,
        debtCyclesCount: 0,
        paidCyclesCount: e.open_days,
        warningLimit: p.warningLimit.toFixed(),
        liquidityLimit: p.liquidityLimit.toFixed(),
        profit: profit.toFixed(),
        profitPercentage: profit.div(p.assurance).mul(100).toDecimalPlaces(2).toFixed(),
        connectToWallet: link ? JSON.stringify(linkJson(link)) : null,
        renew: this.renew.has(clientId),
        finalFeeAfterDiscount: e.final_fee_after_discount,
        finalFee: e.final_fee,
        finalPayableFeeAmount: e.final_fee_after_discount,
        finalPayback: p.loan.toFixed(),
      },
      alertsData: sub.isWarned
        ? [{ type: 'warning', message: `the account's value is at or under the warning limit ${p.warningLimit.toFixed()} ${p.currency}` }]
        : [],
    };
  }

  /** `GET /v1/prop/user/packages/history/{subAccountClientId}`. */
  history(account: string, clientId: string): Record<string, unknown> {
    return this.deps.desk.historyEntry(account, clientId);
  }

  /** `POST /sub-accounts/transfers {currency, value, subAccount_client_id}`: main -> sub-account. */
  transfer(account: string, body: { currency?: string; value?: string; subAccount_client_id?: string }): Record<string, unknown> {
    const clientId = body.subAccount_client_id;
    if (!clientId) throw simErrors.invalid({ subAccount_client_id: ['subAccount_client_id is required'] });
    const sub = this.active(account, clientId, 'subAccount_client_id');
    const value = positive(body.value);
    if (!body.currency) throw simErrors.invalid({ currency: ['currency is required'] });
    // The docs' 422 sample: "transferring BTC to this account is not allowed".
    if (body.currency !== sub.pkg.currency)
      throw simErrors.invalid({ currency: [`انتقال ارز ${body.currency} به این اکانت مجاز نمی باشد.`] }, 'اطلاعات وارد شده اشتباه است');
    if (!value) throw simErrors.invalid({ value: [`value must be a positive amount, got ${JSON.stringify(body.value ?? null)}`] });
    this.deps.ledger.debitFree(account, sub.pkg.currency, value);
    this.deps.ledger.credit(sub.ledgerId, sub.pkg.currency, value);
    this.transfers.push({
      uniqueId: this.transfers.length + 1,
      account,
      clientId,
      title: sub.pkg.title,
      currency: sub.pkg.currency,
      value,
      atMs: this.deps.clock.now(),
    });
    return this.subAccountJson(sub);
  }

  /** `GET /sub-accounts/transfers`: newest first. */
  transferList(account: string): Record<string, unknown>[] {
    return this.transfers
      .filter((t) => t.account === account)
      .reverse()
      .map((t) => ({
        unique_id: t.uniqueId,
        source_client_id: account,
        source_client_title: 'main',
        destination_client_id: t.clientId,
        destination_client_title: t.title,
        source_user_type: 'main',
        destination_user_type: 'prop',
        fa_source_user_type: 'اصلی',
        fa_destination_user_type: 'اعتبار معاملاتی',
        currency: t.currency,
        value: t.value.toFixed(),
        reason: 'transfer',
        createdAt: isoSeconds(t.atMs),
      }));
  }

  private active(account: string, clientId: string, field = 'sub-account-client-id'): SubAccountView {
    const sub = this.deps.desk.subAccountOf(account, clientId);
    if (sub.status !== 'active') throw simErrors.invalid({ [field]: [`trading-credit account ${clientId} is closed`] });
    return sub;
  }

  private subAccountJson(s: SubAccountView): Record<string, unknown> {
    return {
      userId: s.userId,
      title: s.pkg.title,
      darkAvatarUrl: img(s.pkg.id, 'dark'),
      lightAvatarUrl: img(s.pkg.id, 'light'),
      clientId: s.clientId,
      isActive: s.status === 'active',
      type: 'prop',
      createdAt: isoSeconds(s.createdAtMs),
      isSuspend: false,
    };
  }
}

function positive(v: string | undefined): Decimal | undefined {
  if (v === undefined || !/^\d+(\.\d+)?$/.test(v)) return undefined;
  const d = new Decimal(v);
  return d.gt(0) ? d : undefined;
}

const linkJson = (l: WalletLink) => ({ currency: l.currency, credit: l.credit.toFixed(), usageCount: l.usageCount, usedCount: l.usedCount, status: 'active' });
