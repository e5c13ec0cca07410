/** Parsers for account resources (spec 2.7 - 2.11a, 2.17). */
import type {
  Balances,
  BankCard,
  FeeRate,
  FeeRates,
  FiatWithdrawal,
  Iban,
  PageInfo,
  Paged,
  Profile,
  WalletAddress,
  WalletEntry,
} from '../../core/types/index.js';
import {
  arr,
  bool,
  boolOpt,
  compact,
  dec,
  decOpt,
  decOrNull,
  int,
  intOpt,
  isObject,
  numOpt,
  obj,
  parseFail,
  str,
  strOpt,
  strOrNull,
  type Json,
} from './fields.js';

function objOrNull(value: unknown, field: string): Json | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  return obj(value, field);
}

function strings(value: unknown, field: string): string[] {
  if (value == null) return [];
  return arr(value, field).map((s, i) => str(s, `${field}[${i}]`));
}

export function parseProfile(json: unknown): Profile {
  const o = obj(json, 'result');
  const phone = objOrNull(o.phone_number, 'result.phone_number');
  return compact<Profile>({
    trackingId: intOpt(o.tracking_id ?? o.client_id, 'result.tracking_id'),
    firstName: strOpt(o.first_name, 'result.first_name'),
    lastName: strOpt(o.last_name, 'result.last_name'),
    nationalCode: strOpt(o.national_code, 'result.national_code'),
    faceImage: strOpt(o.face_image, 'result.face_image'),
    birthday: strOpt(o.birthday, 'result.birthday'),
    address: objOrNull(o.address, 'result.address'),
    phoneNumber:
      phone == null
        ? phone
        : compact({
            areaCode: strOpt(phone.area_code, 'result.phone_number.area_code'),
            mainNumber: strOpt(phone.main_number, 'result.phone_number.main_number'),
          }),
    mobileNumber: strOpt(o.mobile_number, 'result.mobile_number'),
    verification: strOpt(o.verification, 'result.verification'),
    email: strOpt(o.email, 'result.email'),
    inviteCode: strOpt(o.invite_code, 'result.invite_code'),
    avatar: strOrNull(o.avatar, 'result.avatar'),
    commission: numOpt(o.commission, 'result.commission'),
    settings: objOrNull(o.settings, 'result.settings'),
    status: objOrNull(o.status, 'result.status'),
    kycInfo: objOrNull(o.kyc_info, 'result.kyc_info'),
    meta: objOrNull(o.meta, 'result.meta'),
  });
}

const NON_MARKET_FEE_KEYS = new Set(['default', 'metaData']);

/**
 * `result` of /v1/account/fee: a map symbol -> {makerFeeRate, takerFeeRate, recent_days_sum}, mixed
 * with the non-market keys `default` (seen as `[]`) and `metaData` (volume levels), which are kept
 * aside. An array of such maps (as one documentation page renders it) is merged.
 */
export function parseFeeRates(json: unknown): FeeRates {
  const parts = Array.isArray(json) ? json.map((p, i) => obj(p, `result[${i}]`)) : [obj(json, 'result')];
  const markets: Record<string, FeeRate> = {};
  let metaData: Record<string, unknown> | undefined;
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      if (key === 'metaData') {
        if (isObject(value)) metaData = value;
        continue;
      }
      if (NON_MARKET_FEE_KEYS.has(key)) continue;
      const f = `result.${key}`;
      const o = obj(value, f);
      markets[key] = compact<FeeRate>({
        symbol: key,
        makerFeeRate: dec(o.makerFeeRate, `${f}.makerFeeRate`),
        takerFeeRate: dec(o.takerFeeRate, `${f}.takerFeeRate`),
        recentDaysSum: decOpt(o.recent_days_sum, `${f}.recent_days_sum`),
      });
    }
  }
  return metaData ? { markets, metaData } : { markets };
}

export function parseBankCards(json: unknown): BankCard[] {
  const list = Array.isArray(json) ? json : arr(obj(json, 'result').cards ?? obj(json, 'result').items, 'result');
  return list.map((item, i) => {
    const f = `result[${i}]`;
    const o = obj(item, f);
    return {
      id: int(o.id, `${f}.id`),
      cardNumber: str(o.card_number, `${f}.card_number`),
      owners: strings(o.owners, `${f}.owners`),
      status: str(o.status, `${f}.status`),
      isDefault: bool(o.is_default ?? false, `${f}.is_default`),
    };
  });
}

function parseIban(json: unknown, f: string): Iban {
  const o = obj(json, f);
  const bd = o.bank_details == null ? undefined : obj(o.bank_details, `${f}.bank_details`);
  return compact<Iban>({
    id: int(o.id, `${f}.id`),
    iban: str(o.iban, `${f}.iban`),
    owners: strings(o.owners, `${f}.owners`),
    bankName: strOpt(o.bank_name, `${f}.bank_name`),
    status: str(o.status, `${f}.status`),
    isDefault: bool(o.is_default ?? false, `${f}.is_default`),
    withdrawDailyAmount: decOpt(o.withdraw_daily_amount, `${f}.withdraw_daily_amount`),
    withdrawAvailableAmount: decOrNull(o.withdraw_available_amount, `${f}.withdraw_available_amount`),
    bankDetails: bd
      ? compact({
          code: strOpt(bd.code, `${f}.bank_details.code`),
          label: strOpt(bd.label, `${f}.bank_details.label`),
          isAvailable: boolOpt(bd.is_available, `${f}.bank_details.is_available`),
        })
      : undefined,
  });
}

/** `result` of /v1/account/ibans: an array (or `{ibans: [...]}`), with the envelope's `result_info`. */
export function parseIbans(json: unknown, pageInfo?: PageInfo): Paged<Iban> {
  const list = Array.isArray(json) ? json : arr(obj(json, 'result').ibans, 'result.ibans');
  const items = list.map((item, i) => parseIban(item, `result[${i}]`));
  return pageInfo ? { items, pageInfo } : { items };
}

/** `result` of /v1/account/balances: `{balances: {ASSET: {...}}}`. */
export function parseBalances(json: unknown): Balances {
  const map = obj(obj(json, 'result').balances, 'result.balances');
  const out: Balances = {};
  for (const [key, value] of Object.entries(map)) {
    const f = `result.balances.${key}`;
    const o = obj(value, f);
    const asset = strOpt(o.asset, `${f}.asset`) ?? key;
    const total = dec(o.value, `${f}.value`);
    const locked = dec(o.locked, `${f}.locked`);
    // A balance that cannot be true is refused (the whole answer: the last good sync stays in use).
    if (total.isNeg() && !total.isZero()) throw parseFail(`${f}.value`, 'a balance not below 0', o.value);
    if (locked.isNeg() && !locked.isZero()) throw parseFail(`${f}.locked`, 'a locked amount not below 0', o.locked);
    if (locked.gt(total)) throw parseFail(`${f}.locked`, `a locked amount not above the value ${total.toFixed()}`, o.locked);
    out[asset] = compact({
      asset,
      faName: strOpt(o.faName, `${f}.faName`),
      fiat: bool(o.fiat, `${f}.fiat`),
      value: total,
      locked,
    });
  }
  return out;
}

/** `result` of /v1/account/wallets/{coin}, plus the envelope's `provider`. */
export function parseWalletAddress(json: unknown, provider?: string): WalletAddress {
  const o = obj(json, 'result');
  const ct = obj(o.coin_type, 'result.coin_type');
  const wallets: Record<string, WalletEntry> = {};
  for (const [name, value] of Object.entries(obj(o.wallets ?? {}, 'result.wallets'))) {
    const f = `result.wallets.${name}`;
    const w = obj(value, f);
    const n = w.network == null ? {} : obj(w.network, `${f}.network`);
    wallets[name] = compact<WalletEntry>({
      network: compact({
        id: typeof n.id === 'number' || typeof n.id === 'string' ? n.id : undefined,
        name: strOpt(n.name, `${f}.network.name`),
        depositAvailability: boolOpt(n.deposit_availability, `${f}.network.deposit_availability`),
        withdrawalAvailability: boolOpt(n.withdrawal_availability, `${f}.network.withdrawal_availability`),
        depositUnavailabilityReason: strOrNull(n.deposit_unavailability_reason, `${f}.network.deposit_unavailability_reason`),
        withdrawalUnavailabilityReason: strOrNull(n.withdrawal_unavailability_reason, `${f}.network.withdrawal_unavailability_reason`),
      }),
      address: str(w.address, `${f}.address`),
      memo: strOrNull(w.memo, `${f}.memo`),
      expireAt: strOrNull(w.expire_at, `${f}.expire_at`),
      minConfirmation: intOpt(w.min_confirmation, `${f}.min_confirmation`),
      transactionFee: decOpt(w.transaction_fee, `${f}.transaction_fee`),
      minWithdrawalValue: decOpt(w.min_withdrawal_value, `${f}.min_withdrawal_value`),
      minDepositValue: decOpt(w.min_deposit_value, `${f}.min_deposit_value`),
    });
  }
  return compact<WalletAddress>({
    coinType: compact({
      key: str(ct.key, 'result.coin_type.key'),
      name: strOpt(ct.name, 'result.coin_type.name'),
      nameEn: strOpt(ct.name_en, 'result.coin_type.name_en'),
      type: strOpt(ct.type, 'result.coin_type.type'),
      depositAvailability: boolOpt(ct.deposit_availability, 'result.coin_type.deposit_availability'),
      withdrawalAvailability: boolOpt(ct.withdrawal_availability, 'result.coin_type.withdrawal_availability'),
      depositUnavailabilityReason: strOrNull(ct.deposit_unavailability_reason, 'result.coin_type.deposit_unavailability_reason'),
      withdrawalUnavailabilityReason: strOrNull(ct.withdrawal_unavailability_reason, 'result.coin_type.withdrawal_unavailability_reason'),
    }),
    wallets,
    provider,
  });
}

/** `result` of /v1/account/money-withdrawal. */
export function parseFiatWithdrawal(json: unknown): FiatWithdrawal {
  const o = obj(json, 'result');
  return compact<FiatWithdrawal>({
    amount: dec(o.amount, 'result.amount'),
    fee: dec(o.fee, 'result.fee'),
    trackingCode: str(o.tracking_code, 'result.tracking_code'),
    createdAt: str(o.created_at, 'result.created_at'),
    status: str(o.status, 'result.status'),
    iban: o.iban == null ? undefined : parseIban(o.iban, 'result.iban'),
    details: (o.details == null ? [] : arr(o.details, 'result.details')).map((item, i) => {
      const dd = obj(item, `result.details[${i}]`);
      return { value: dec(dd.value, `result.details[${i}].value`), status: str(dd.status, `result.details[${i}].status`) };
    }),
  });
}
