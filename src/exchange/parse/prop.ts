/** Parsers for trading-credit (prop) packages (spec 2.15). */
import type { ClosedPropAccount, PageInfo, Paged, PropHistoryEntry, PropPackage, PropPackageDetail } from '../../core/types/index.js';
import { arr, compact, dec, decOpt, decOrNull, int, intOpt, obj, str, strOpt, strOrNull } from './fields.js';

export function parsePropPackage(json: unknown): PropPackage {
  const o = obj(json, 'result');
  const detail = parsePropPackageDetail(o.detail, 'result.detail');
  const unavailable = o.unavailableMarkets == null ? [] : arr(o.unavailableMarkets, 'result.unavailableMarkets');
  return { detail, unavailableMarkets: unavailable.map((m, i) => str(m, `result.unavailableMarkets[${i}]`)) };
}

/** One package's fields (the detail of GET /v1/prop/packages/{id}, an item of GET /v1/prop/packages). */
export function parsePropPackageDetail(json: unknown, f: string): PropPackageDetail {
  const d = obj(json, f);
  return compact<PropPackageDetail>({
    id: int(d.id, `${f}.id`),
    title: str(d.title, `${f}.title`),
    currency: str(d.currency, `${f}.currency`),
    destinationCurrency: strOpt(d.destination_currency, `${f}.destination_currency`),
    assurance: dec(d.assurance, `${f}.assurance`),
    loan: dec(d.loan, `${f}.loan`),
    warningLimit: dec(d.warning_limit, `${f}.warning_limit`),
    liquidityLimit: dec(d.liquidity_limit, `${f}.liquidity_limit`),
    status: str(d.status, `${f}.status`),
    expireDays: int(d.expire_days, `${f}.expire_days`),
    darkImageUrl: strOpt(d.dark_image_url, `${f}.dark_image_url`),
    lightImageUrl: strOpt(d.light_image_url, `${f}.light_image_url`),
    dailyFee: decOpt(d.daily_fee, `${f}.daily_fee`),
    dailyFeeDiscount: decOpt(d.daily_fee_discount, `${f}.daily_fee_discount`),
    dailyFeeAfterDiscount: decOpt(d.daily_fee_after_discount, `${f}.daily_fee_after_discount`),
    finalFee: decOpt(d.final_fee, `${f}.final_fee`),
    finalFeeDiscount: decOpt(d.final_fee_discount, `${f}.final_fee_discount`),
    finalFeeAfterDiscount: decOpt(d.final_fee_after_discount, `${f}.final_fee_after_discount`),
    usageCountStep: intOpt(d.usage_count_step, `${f}.usage_count_step`),
  });
}

export function parsePropHistoryEntry(json: unknown, f: string): PropHistoryEntry {
  const o = obj(json, f);
  return compact<PropHistoryEntry>({
    userId: intOpt(o.user_id, `${f}.user_id`),
    clientId: str(o.client_id, `${f}.client_id`),
    packageTitle: strOpt(o.package_title, `${f}.package_title`),
    darkImageUrl: strOpt(o.dark_image_url, `${f}.dark_image_url`),
    lightImageUrl: strOpt(o.light_image_url, `${f}.light_image_url`),
    currency: str(o.currency, `${f}.currency`),
    destinationCurrency: strOpt(o.destination_currency, `${f}.destination_currency`),
    assurance: decOpt(o.assurance, `${f}.assurance`),
    loan: decOpt(o.loan, `${f}.loan`),
    finalBalance: decOrNull(o.final_balance, `${f}.final_balance`),
    finalBalanceWithoutTransfers: decOrNull(o.final_balance_without_transfers, `${f}.final_balance_without_transfers`),
    startBalance: decOpt(o.start_balance, `${f}.start_balance`),
    warningLimit: decOpt(o.warning_limit, `${f}.warning_limit`),
    liquidityLimit: decOpt(o.liquidity_limit, `${f}.liquidity_limit`),
    createdAt: strOpt(o.created_at, `${f}.created_at`),
    finishedAt: strOrNull(o.finished_at, `${f}.finished_at`),
    expireAt: strOpt(o.expire_at, `${f}.expire_at`),
    closeReason: strOrNull(o.close_reason, `${f}.close_reason`),
    status: str(o.status, `${f}.status`),
    expireDays: intOpt(o.expire_days, `${f}.expire_days`),
    dailyFee: decOpt(o.daily_fee, `${f}.daily_fee`),
    dailyFeeDiscount: decOpt(o.daily_fee_discount, `${f}.daily_fee_discount`),
    dailyFeeAfterDiscount: decOpt(o.daily_fee_after_discount, `${f}.daily_fee_after_discount`),
    finalFee: decOpt(o.final_fee, `${f}.final_fee`),
    finalFeeDiscount: decOpt(o.final_fee_discount, `${f}.final_fee_discount`),
    finalFeeAfterDiscount: decOpt(o.final_fee_after_discount, `${f}.final_fee_after_discount`),
    openDays: intOpt(o.open_days, `${f}.open_days`),
    totalDays: intOpt(o.total_days, `${f}.total_days`),
    applicableDailyFee: decOpt(o.applicable_daily_fee, `${f}.applicable_daily_fee`),
    applicableDailyFeeDiscount: decOpt(o.applicable_daily_fee_discount, `${f}.applicable_daily_fee_discount`),
    applicableDailyFeeAfterDiscount: decOpt(o.applicable_daily_fee_after_discount, `${f}.applicable_daily_fee_after_discount`),
    profit: decOrNull(o.profit, `${f}.profit`),
    profitPercentage: decOrNull(o.profit_percentage, `${f}.profit_percentage`),
    finalAssurance: decOrNull(o.final_assurance, `${f}.final_assurance`),
    finalPayBack: decOrNull(o.final_payBack ?? o.final_payback, `${f}.final_payBack`),
  });
}

/** `result` of /v1/prop/user/packages/history: an array, with the envelope's `result_info`. */
export function parsePropHistory(json: unknown, pageInfo?: PageInfo): Paged<PropHistoryEntry> {
  const list = Array.isArray(json) ? json : arr(obj(json, 'result').items ?? obj(json, 'result').history, 'result');
  const items = list.map((e, i) => parsePropHistoryEntry(e, `result[${i}]`));
  return pageInfo ? { items, pageInfo } : { items };
}

export function parseClosedPropAccount(json: unknown): ClosedPropAccount {
  const o = obj(json, 'result');
  return compact<ClosedPropAccount>({
    clientId: str(o.client_id, 'result.client_id'),
    currency: str(o.currency, 'result.currency'),
    finalBalance: dec(o.final_balance, 'result.final_balance'),
    finalBalanceWithoutTransfers: decOpt(o.final_balance_without_transfers, 'result.final_balance_without_transfers'),
    propPackageId: int(o.prop_package_id, 'result.prop_package_id'),
    startBalance: dec(o.start_balance, 'result.start_balance'),
    userId: intOpt(o.user_id, 'result.user_id'),
  });
}
