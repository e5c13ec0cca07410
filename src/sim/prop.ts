/**
 * PropDesk: trading-credit packages (spec 2.15, 4.6). A package lends `loan` on top of the user's
 * `assurance`; opening one takes the assurance from the account's free balance and funds a separate
 * ledger account (the sub-account) with assurance + loan. Trading on it goes through the spot engine
 * with the `sub-account-client-id` header; the server maps that header to the ledger id with
 * `resolveSubAccount`.
 *
 * Closing values every asset of the sub-account in the package currency (its `<asset><currency>`
 * market's best bid, else last price), F = final balance. Fees = daily fee after discount × days
 * open (each started day counts, at least 1) + final fee after discount. The lender takes back the
 * loan and the fees; the account gets max(0, F − loan − fees) (`final_assurance`). profit = F − start
 * balance, profit_percentage = profit / assurance × 100.
 * `check(nowMs)` closes accounts past `expire_at` (reason `expired`) and accounts whose value fell to
 * the liquidity limit (reason `liquidity`); `warning_limit` sets the `is_warned` flag of the record.
 */
import { createHash } from 'node:crypto';
import { Decimal } from '../core/decimal.js';
import type { Clock } from '../core/clock.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { Ledger } from './ledger.js';
import { SimError, simErrors } from './errors.js';
import { isoSeconds, type PriceView } from './margin/ports.js';

export interface PropPackageConfig {
  id: number;
  title: string;
  currency: string;
  destinationCurrency: string;
  assurance: Decimal;
  loan: Decimal;
  /** Sub-account value (package currency) at which the user is warned. */
  warningLimit: Decimal;
  /** Sub-account value at which the account is closed. */
  liquidityLimit: Decimal;
  status: 'active' | 'inactive';
  expireDays: number;
  dailyFee: Decimal;
  dailyFeeDiscount: Decimal;
  finalFee: Decimal;
  finalFeeDiscount: Decimal;
  unavailableMarkets: string[];
}

const D = (v: string | number) => new Decimal(v);
const img = (id: number, theme: string) => `https://sim.local/prop/${id}-${theme}.png`;

const DEFAULT_PROP_PACKAGES: PropPackageConfig[] = [
  {
    id: 1,
    title: 'اعتبار معاملاتی ۱۰۰ میلیون تومانی',
    currency: 'TMN',
    destinationCurrency: 'TMN',
    assurance: D(10_000_000),
    loan: D(90_000_000),
    warningLimit: D(94_000_000),
    liquidityLimit: D(92_000_000),
    status: 'active',
    expireDays: 30,
    dailyFee: D(50_000),
    dailyFeeDiscount: D(0),
    finalFee: D(200_000),
    finalFeeDiscount: D(0),
    unavailableMarkets: ['SHIBTMN'],
  },
  {
    id: 2,
    title: 'Trading credit 10,000 USDT',
    currency: 'USDT',
    destinationCurrency: 'USDT',
    assurance: D(1_000),
    loan: D(9_000),
    warningLimit: D(9_400),
    liquidityLimit: D(9_200),
    status: 'active',
    expireDays: 14,
    dailyFee: D(5),
    dailyFeeDiscount: D(1),
    finalFee: D(10),
    finalFeeDiscount: D(0),
    unavailableMarkets: [],
  },
];

export interface PropDeskDeps {
  ledger: Ledger;
  prices: PriceView;
  clock: Clock;
  packages?: PropPackageConfig[];
  idSeed?: string;
  logger?: Logger;
}

/** A trading-credit account as the lifecycle routes see it. */
export type SubAccountView = SubAccount;

interface SubAccount {
  clientId: string;
  ledgerId: string;
  account: string;
  userId: number;
  pkg: PropPackageConfig;
  createdAtMs: number;
  expireAtMs: number;
  status: 'active' | 'closed';
  isWarned: boolean;
  closeReason: string | null;
  finishedAtMs?: number;
  finalBalance?: Decimal;
  fees?: Decimal;
  openDays?: number;
  finalAssurance?: Decimal;
}

export interface WireClosedPropAccount {
  client_id: string;
  currency: string;
  final_balance: string;
  final_balance_without_transfers: string;
  prop_package_id: number;
  start_balance: string;
  user_id: number;
}

const DAY_MS = 86_400_000;
const s = (v: Decimal | undefined): string | null => (v === undefined ? null : v.toFixed());
const after = (fee: Decimal, discount: Decimal) => Decimal.max(0, fee.minus(discount));

export class PropDesk {
  private readonly packages = new Map<number, PropPackageConfig>();
  private readonly subs = new Map<string, SubAccount>();
  private readonly userIds = new Map<string, number>();
  private readonly usage = new Map<number, number>();
  private readonly log: Logger;
  private seq = 0;

  constructor(private readonly deps: PropDeskDeps) {
    for (const p of deps.packages ?? DEFAULT_PROP_PACKAGES) this.packages.set(p.id, p);
    this.log = deps.logger ?? silentLogger;
  }

  /** `GET /v1/prop/packages/{id}`: `{detail, unavailableMarkets}`. */
  packageDetail(id: number): { detail: Record<string, unknown>; unavailableMarkets: string[] } {
    const p = this.packages.get(id);
    if (!p) throw simErrors.notFound(`trading-credit package ${id} not found`);
    return {
      detail: {
        id: p.id,
        title: p.title,
        currency: p.currency,
        destination_currency: p.destinationCurrency,
        assurance: p.assurance.toFixed(),
        loan: p.loan.toFixed(),
        warning_limit: p.warningLimit.toFixed(),
        liquidity_limit: p.liquidityLimit.toFixed(),
        status: p.status,
        expire_days: p.expireDays,
        dark_image_url: img(p.id, 'dark'),
        light_image_url: img(p.id, 'light'),
        ...this.feeFields(p),
        usage_count_step: this.usage.get(p.id) ?? 0,
      },
      unavailableMarkets: [...p.unavailableMarkets],
    };
  }

  /** Opens a trading-credit account: takes the assurance (402 when short), funds the sub-account. */
  openSubAccount(account: string, packageId: number): Record<string, unknown> {
    const pkg = this.packages.get(packageId);
    if (!pkg) throw simErrors.notFound(`trading-credit package ${packageId} not found`);
    if (pkg.status !== 'active') throw simErrors.invalid({ package_id: [`package ${packageId} is ${pkg.status}`] });
    this.deps.ledger.debitFree(account, pkg.currency, pkg.assurance);
    const h = createHash('sha256')
      .update(`${this.deps.idSeed ?? 'mizan-sim'}:prop:${++this.seq}`)
      .digest('hex');
    const clientId = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
    const now = this.deps.clock.now();
    const sub: SubAccount = {
      clientId,
      ledgerId: `${account}/prop/${clientId}`,
      account,
      userId: this.userId(account),
      pkg,
      createdAtMs: now,
      expireAtMs: now + pkg.expireDays * DAY_MS,
      status: 'active',
      isWarned: false,
      closeReason: null,
    };
    this.deps.ledger.credit(sub.ledgerId, pkg.currency, pkg.assurance.plus(pkg.loan));
    this.subs.set(clientId, sub);
    this.usage.set(pkg.id, (this.usage.get(pkg.id) ?? 0) + 1);
    this.log.info({ account, packageId, clientId }, 'trading-credit account opened');
    return this.entry(sub);
  }

  /** The ledger id of an active sub-account of `accountId` (404 unknown or not the account's, 422 closed). */
  resolveSubAccount(accountId: string, clientId: string): string {
    const sub = this.owned(accountId, clientId);
    if (sub.status !== 'active') throw simErrors.invalid({ 'sub-account-client-id': [`trading-credit account ${clientId} is closed`] });
    return sub.ledgerId;
  }

  /** Every package, in configuration order (`GET /v1/prop/packages`). */
  packageList(): PropPackageConfig[] {
    return [...this.packages.values()];
  }

  /** The trading-credit accounts of `account`, oldest first (the lifecycle routes read them). */
  subAccountsOf(account: string): Readonly<SubAccountView>[] {
    return [...this.subs.values()].filter((x) => x.account === account).map((x) => ({ ...x }));
  }

  /** One trading-credit account of `account` (404 unknown or another's), active or closed. */
  subAccountOf(account: string, clientId: string): Readonly<SubAccountView> {
    return { ...this.owned(account, clientId) };
  }

  /** The history entry of one trading-credit account (`GET .../history/{subAccountClientId}`). */
  historyEntry(account: string, clientId: string): Record<string, unknown> {
    return this.entry(this.owned(account, clientId));
  }

  /** Sub-account value in the package currency (422 when an asset has no price). */
  valueOf(account: string, clientId: string): Decimal {
    return this.value(this.owned(account, clientId));
  }

  /** `GET /v1/prop/user/packages/history`: newest first. */
  history(account: string): Record<string, unknown>[] {
    return [...this.subs.values()]
      .filter((x) => x.account === account)
      .reverse()
      .map((x) => this.entry(x));
  }

  /** `DELETE /v1/prop/user/packages`: values and empties the sub-account, pays back the loan and fees. */
  close(account: string, clientId: string, reason = 'user'): WireClosedPropAccount {
    const sub = this.owned(account, clientId);
    if (sub.status !== 'active') throw simErrors.invalid({ 'sub-account-client-id': [`trading-credit account ${clientId} is already closed`] });
    const { pkg } = sub;
    const balances = this.deps.ledger.balances(sub.ledgerId);
    for (const [asset, e] of Object.entries(balances)) {
      if (e.locked.gt(0)) throw simErrors.invalid({ 'sub-account-client-id': [`${e.locked.toFixed()} ${asset} is locked by open orders; cancel them first`] });
    }
    const value = this.value(sub);
    const now = this.deps.clock.now();
    const openDays = Math.max(1, Math.ceil((now - sub.createdAtMs) / DAY_MS));
    const fees = after(pkg.dailyFee, pkg.dailyFeeDiscount).mul(openDays).plus(after(pkg.finalFee, pkg.finalFeeDiscount));
    const back = Decimal.max(0, value.minus(pkg.loan).minus(fees));
    for (const [asset, e] of Object.entries(balances)) if (e.value.gt(0)) this.deps.ledger.debitFree(sub.ledgerId, asset, e.value);
    this.deps.ledger.credit(account, pkg.currency, back);
    Object.assign(sub, { status: 'closed', closeReason: reason, finishedAtMs: now, finalBalance: value, fees, openDays, finalAssurance: back });
    this.log.info({ account, clientId, reason, finalBalance: value.toFixed() }, 'trading-credit account closed');
    return {
      client_id: clientId,
      currency: pkg.currency,
      final_balance: value.toFixed(),
      final_balance_without_transfers: value.toFixed(),
      prop_package_id: pkg.id,
      start_balance: pkg.assurance.plus(pkg.loan).toFixed(),
      user_id: sub.userId,
    };
  }

  /** Closes expired accounts and accounts at the liquidity limit; sets the warning flag. */
  check(nowMs: number): void {
    for (const sub of this.subs.values()) {
      if (sub.status !== 'active') continue;
      try {
        if (nowMs >= sub.expireAtMs) {
          this.close(sub.account, sub.clientId, 'expired');
          continue;
        }
        const v = this.value(sub);
        if (v.lte(sub.pkg.liquidityLimit)) {
          this.close(sub.account, sub.clientId, 'liquidity');
          continue;
        }
        sub.isWarned = v.lte(sub.pkg.warningLimit);
      } catch (e) {
        if (!(e instanceof SimError)) throw e;
        this.log.warn({ clientId: sub.clientId, reason: e.message }, 'trading-credit check skipped');
      }
    }
  }

  /** Sub-account value in the package currency. 422 when an asset has no price. */
  private value(sub: SubAccount): Decimal {
    const cur = sub.pkg.currency;
    let total = new Decimal(0);
    for (const [asset, e] of Object.entries(this.deps.ledger.balances(sub.ledgerId))) {
      if (asset === cur) {
        total = total.plus(e.value);
        continue;
      }
      if (e.value.isZero()) continue;
      const sym = `${asset}${cur}`;
      const px = this.deps.prices.bestBid(sym) ?? this.deps.prices.lastPrice(sym);
      if (!px) throw simErrors.invalid({ 'sub-account-client-id': [`no ${sym} price to value ${e.value.toFixed()} ${asset}`] });
      total = total.plus(e.value.mul(px));
    }
    return total;
  }

  private owned(account: string, clientId: string): SubAccount {
    const sub = this.subs.get(clientId);
    if (!sub || sub.account !== account) throw simErrors.notFound(`trading-credit account ${JSON.stringify(clientId)} not found`);
    return sub;
  }

  private userId(account: string): number {
    let id = this.userIds.get(account);
    if (id === undefined) {
      id = 1000 + this.userIds.size + 1;
      this.userIds.set(account, id);
    }
    return id;
  }

  private feeFields(p: PropPackageConfig): Record<string, string> {
    return {
      daily_fee: p.dailyFee.toFixed(),
      daily_fee_discount: p.dailyFeeDiscount.toFixed(),
      daily_fee_after_discount: after(p.dailyFee, p.dailyFeeDiscount).toFixed(),
      final_fee: p.finalFee.toFixed(),
      final_fee_discount: p.finalFeeDiscount.toFixed(),
      final_fee_after_discount: after(p.finalFee, p.finalFeeDiscount).toFixed(),
    };
  }

  private entry(x: SubAccount): Record<string, unknown> {
    const p = x.pkg;
    const start = p.assurance.plus(p.loan);
    const now = this.deps.clock.now();
    const openDays = x.openDays ?? Math.max(1, Math.ceil((now - x.createdAtMs) / DAY_MS));
    const profit = x.finalBalance?.minus(start);
    const fees = this.feeFields(p);
    return {
      user_id: x.userId,
      client_id: x.clientId,
      package_title: p.title,
      dark_image_url: img(p.id, 'dark'),
      light_image_url: img(p.id, 'light'),
      currency: p.currency,
      destination_currency: p.destinationCurrency,
      assurance: p.assurance.toFixed(),
      loan: p.loan.toFixed(),
      final_balance: s(x.finalBalance),
      final_balance_without_transfers: s(x.finalBalance),
      start_balance: start.toFixed(),
      warning_limit: p.warningLimit.toFixed(),
      liquidity_limit: p.liquidityLimit.toFixed(),
      created_at: isoSeconds(x.createdAtMs),
      finished_at: x.finishedAtMs === undefined ? null : isoSeconds(x.finishedAtMs),
      expire_at: isoSeconds(x.expireAtMs),
      close_reason: x.closeReason,
      status: x.status,
      is_warned: x.isWarned,
      expire_days: p.expireDays,
      ...fees,
      open_days: openDays,
      total_days: p.expireDays,
      applicable_daily_fee: after(p.dailyFee, new Decimal(0)).mul(openDays).toFixed(),
      applicable_daily_fee_discount: p.dailyFeeDiscount.mul(openDays).toFixed(),
      applicable_daily_fee_after_discount: after(p.dailyFee, p.dailyFeeDiscount).mul(openDays).toFixed(),
      profit: s(profit),
      profit_percentage: profit ? profit.div(p.assurance).mul(100).toDecimalPlaces(2).toFixed() : null,
      final_assurance: s(x.finalAssurance),
      final_payBack: x.finalBalance && x.finalAssurance ? x.finalBalance.minus(x.finalAssurance).toFixed() : null,
    };
  }
}
