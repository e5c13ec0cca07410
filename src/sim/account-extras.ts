/**
 * The simulated account's personal data (spec 2.7, 2.9, 2.10, 2.17): profile, bank cards, IBANs
 * (with the daily withdrawal amount and what is left of it today) and crypto wallet addresses. Every
 * account gets a deterministic default set on first use (masked numbers and addresses derived from
 * the account id), which tests and admin code can replace or extend.
 * The withdrawal day is the Tehran calendar day (UTC+03:30, no daylight saving since 2022).
 */
import { createHash } from 'node:crypto';
import { Decimal } from '../core/decimal.js';
import type { Clock } from '../core/clock.js';
import { simErrors } from './errors.js';
import { isoSeconds } from './margin/ports.js';

export interface IbanRecord {
  id: number;
  iban: string;
  owners: string[];
  bankName: string;
  bankCode: string;
  status: string;
  isDefault: boolean;
  dailyAmount: Decimal;
}

export interface CardRecord {
  id: number;
  cardNumber: string;
  owners: string[];
  status: string;
  isDefault: boolean;
  /** The issuing bank (`bank_details`); default: from the card number's first six digits. */
  bankCode?: string;
  bankName?: string;
}

/** Issuer numbers (first six digits) of a few Iranian banks, for a card's `bank_details`. */
const CARD_ISSUERS: Record<string, { code: string; label: string }> = {
  '603799': { code: 'BMI', label: 'بانک ملی' },
  '621986': { code: 'SABCIR', label: 'بانک سامان' },
  '610433': { code: 'BKMTIR', label: 'بانک ملت' },
};

interface CoinNetwork {
  name: string;
  /** Address style. */
  kind: 'btc' | 'evm' | 'tron' | 'memo';
  minConfirmation: number;
  transactionFee: string;
  minWithdrawal: string;
  minDeposit: string;
}

export interface CoinConfig {
  key: string;
  name: string;
  nameEn: string;
  type: string;
  networks: CoinNetwork[];
}

const DEFAULT_COINS: CoinConfig[] = [
  {
    key: 'BTC',
    name: 'بیت کوین',
    nameEn: 'Bitcoin',
    type: 'coin',
    networks: [{ name: 'BTC', kind: 'btc', minConfirmation: 2, transactionFee: '0.0002', minWithdrawal: '0.0005', minDeposit: '0.0001' }],
  },
  {
    key: 'ETH',
    name: 'اتریوم',
    nameEn: 'Ethereum',
    type: 'coin',
    networks: [{ name: 'ERC20', kind: 'evm', minConfirmation: 12, transactionFee: '0.002', minWithdrawal: '0.005', minDeposit: '0.001' }],
  },
  {
    key: 'USDT',
    name: 'تتر',
    nameEn: 'Tether',
    type: 'token',
    networks: [
      { name: 'TRC20', kind: 'tron', minConfirmation: 20, transactionFee: '1', minWithdrawal: '5', minDeposit: '1' },
      { name: 'ERC20', kind: 'evm', minConfirmation: 12, transactionFee: '5', minWithdrawal: '20', minDeposit: '5' },
      { name: 'BSC', kind: 'evm', minConfirmation: 15, transactionFee: '0.5', minWithdrawal: '5', minDeposit: '1' },
    ],
  },
  {
    key: 'TRX',
    name: 'ترون',
    nameEn: 'TRON',
    type: 'coin',
    networks: [{ name: 'TRC20', kind: 'tron', minConfirmation: 20, transactionFee: '1', minWithdrawal: '10', minDeposit: '1' }],
  },
  {
    key: 'XRP',
    name: 'ریپل',
    nameEn: 'Ripple',
    type: 'coin',
    networks: [{ name: 'XRP', kind: 'memo', minConfirmation: 1, transactionFee: '0.25', minWithdrawal: '10', minDeposit: '1' }],
  },
];

export interface AccountExtrasOptions {
  clock: Clock;
  coins?: CoinConfig[];
  /** Daily withdrawal amount of the default IBAN, TMN. Default 100,000,000. */
  defaultDailyAmount?: Decimal;
  provider?: string;
}

interface AccountData {
  profile: Record<string, unknown>;
  cards: CardRecord[];
  ibans: IbanRecord[];
}

const TEHRAN_OFFSET_MS = 3.5 * 3600_000;
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

const hash = (s: string): string => createHash('sha256').update(s).digest('hex');
const digits = (s: string, n: number): string =>
  [...hash(s)]
    .map((c) => String(parseInt(c, 16) % 10))
    .join('')
    .slice(0, n);

export class AccountExtras {
  private readonly data = new Map<string, AccountData>();
  /** `ibanId` -> day key -> amount withdrawn that day. */
  private readonly used = new Map<number, { day: number; amount: Decimal }>();
  private readonly coins: CoinConfig[];
  private nextIbanId = 1;
  private nextCardId = 1;

  constructor(private readonly opts: AccountExtrasOptions) {
    this.coins = opts.coins ?? DEFAULT_COINS;
  }

  profile(account: string): Record<string, unknown> {
    return this.ensure(account).profile;
  }

  /** Replaces fields of the profile (admin and tests). */
  updateProfile(account: string, fields: Record<string, unknown>): void {
    Object.assign(this.ensure(account).profile, fields);
  }

  cards(account: string): Record<string, unknown>[] {
    return this.ensure(account).cards.map((c) => {
      const issuer = c.bankCode ? { code: c.bankCode, label: c.bankName ?? c.bankCode } : CARD_ISSUERS[c.cardNumber.slice(0, 6)];
      return {
        id: c.id,
        card_number: c.cardNumber,
        owners: c.owners,
        status: c.status,
        is_default: c.isDefault ? 1 : 0,
        bank_details: issuer ? { ...issuer, is_available: c.status === 'ACCEPTED' } : null,
      };
    });
  }

  addCard(account: string, card: Omit<CardRecord, 'id'>): number {
    const id = this.nextCardId++;
    this.ensure(account).cards.push({ id, ...card });
    return id;
  }

  addIban(account: string, iban: Omit<IbanRecord, 'id'>): number {
    const id = this.nextIbanId++;
    this.ensure(account).ibans.push({ id, ...iban });
    return id;
  }

  findIban(account: string, id: number): IbanRecord | undefined {
    return this.ensure(account).ibans.find((i) => i.id === id);
  }

  /** What is left of the IBAN's daily amount today. */
  available(iban: IbanRecord): Decimal {
    const u = this.used.get(iban.id);
    const spent = u && u.day === this.day() ? u.amount : new Decimal(0);
    return Decimal.max(0, iban.dailyAmount.minus(spent));
  }

  /** Counts a withdrawal against today's amount (the caller checked `available`). */
  consume(iban: IbanRecord, amount: Decimal): void {
    const day = this.day();
    const u = this.used.get(iban.id);
    this.used.set(iban.id, { day, amount: (u && u.day === day ? u.amount : new Decimal(0)).plus(amount) });
  }

  ibanWire(iban: IbanRecord): Record<string, unknown> {
    return {
      id: iban.id,
      iban: iban.iban,
      owners: iban.owners,
      bank_name: iban.bankName,
      status: iban.status,
      is_default: iban.isDefault ? 1 : 0,
      withdraw_daily_amount: iban.dailyAmount.toFixed(),
      withdraw_available_amount: this.available(iban).toFixed(),
      bank_details: { code: iban.bankCode, label: iban.bankName, is_available: iban.status === 'ACCEPTED' },
    };
  }

  ibans(account: string): Record<string, unknown>[] {
    return this.ensure(account).ibans.map((i) => this.ibanWire(i));
  }

  /** `GET /v1/account/wallets/{coin}?network=`: `{result: {coin_type, wallets}, provider}` parts. */
  wallet(account: string, coin: string, network?: string): { result: Record<string, unknown>; provider: string } {
    const c = this.coins.find((x) => x.key === coin.toUpperCase());
    if (!c) throw simErrors.notFound(`coin ${JSON.stringify(coin)} not found`);
    const nets = network ? c.networks.filter((n) => n.name.toUpperCase() === network.toUpperCase()) : c.networks;
    if (nets.length === 0) throw simErrors.invalid({ network: [`network ${JSON.stringify(network)} is not available for ${c.key}`] });
    const availability = {
      deposit_availability: true,
      withdrawal_availability: true,
      deposit_unavailability_reason: null,
      withdrawal_unavailability_reason: null,
    };
    const wallets: Record<string, unknown> = {};
    for (const n of nets) {
      const seed = `${account}:${c.key}:${n.name}`;
      wallets[n.name] = {
        network: { id: c.networks.indexOf(n) + 1, name: n.name, ...availability },
        address: address(n.kind, seed),
        memo: n.kind === 'memo' ? digits(`${seed}:memo`, 9) : null,
        expire_at: null,
        min_confirmation: n.minConfirmation,
        transaction_fee: n.transactionFee,
        min_withdrawal_value: n.minWithdrawal,
        min_deposit_value: n.minDeposit,
      };
    }
    return {
      result: { coin_type: { key: c.key, name: c.name, name_en: c.nameEn, type: c.type, ...availability }, wallets },
      provider: this.opts.provider ?? 'mizan-sim',
    };
  }

  private day(): number {
    return Math.floor((this.opts.clock.now() + TEHRAN_OFFSET_MS) / 86_400_000);
  }

  private ensure(account: string): AccountData {
    let d = this.data.get(account);
    if (d) return d;
    const now = isoSeconds(this.opts.clock.now());
    const tail = digits(`${account}:id`, 4);
    d = {
      profile: {
        tracking_id: Number(digits(`${account}:tracking`, 7)),
        first_name: 'کاربر',
        last_name: 'آزمایشی',
        national_code: `00******${tail.slice(0, 2)}`,
        face_image: '',
        birthday: '1990-03-21T00:00:00Z',
        address: { country: 'ایران', province: 'تهران', city: 'تهران', location: '', postal_code: '', house_number: '' },
        phone_number: { area_code: '021', main_number: digits(`${account}:phone`, 8) },
        mobile_number: `0912***${tail}`,
        verification: 'VERIFIED',
        email: `u***@example.com`,
        invite_code: hash(`${account}:invite`).slice(0, 6),
        avatar: null,
        commission: 25,
        settings: { mode: 'pro', theme: 'dark', money_withdraw: true, coin_withdraw: true },
        status: { first_name: 'ACCEPTED', last_name: 'ACCEPTED', national_code: 'ACCEPTED', mobile_number: 'ACCEPTED', email: 'ACCEPTED' },
        kyc_info: { level: 2 },
        meta: {},
        created_at: now,
        updated_at: now,
      },
      cards: [],
      ibans: [],
    };
    this.data.set(account, d);
    d.cards.push({ id: this.nextCardId++, cardNumber: `603799******${tail}`, owners: ['کاربر آزمایشی'], status: 'ACCEPTED', isDefault: true });
    d.ibans.push({
      id: this.nextIbanId++,
      iban: `IR06017000000*******${tail}`,
      owners: ['کاربر آزمایشی'],
      bankName: 'بانک ملی',
      bankCode: 'BMI',
      status: 'ACCEPTED',
      isDefault: true,
      dailyAmount: this.opts.defaultDailyAmount ?? new Decimal(100_000_000),
    });
    return d;
  }
}

function address(kind: CoinNetwork['kind'], seed: string): string {
  const h = hash(seed) + hash(`${seed}:2`);
  if (kind === 'evm') return `0x${h.slice(0, 40)}`;
  if (kind === 'btc') return `bc1q${h.slice(0, 38)}`;
  const b58 = [...h].map((c, i) => BASE58[(parseInt(c, 16) * 7 + i) % 58]).join('');
  return kind === 'tron' ? `T${b58.slice(0, 33)}` : `r${b58.slice(0, 33)}`;
}
