import { describe, it, expect, beforeEach } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { Ledger } from '../../../src/sim/ledger.js';
import { SimError } from '../../../src/sim/errors.js';
import { AccountExtras } from '../../../src/sim/account-extras.js';
import { WithdrawalDesk, type WithdrawalAuth } from '../../../src/sim/withdrawal.js';
import { D, HOUR, T0 } from './helpers.js';

let ledger: Ledger;
let clock: ManualClock;
let extras: AccountExtras;
let desk: WithdrawalDesk;
let ibanId: number;

const AUTH: WithdrawalAuth = { permissions: ['read', 'withdraw'], ip: '10.0.0.5', permittedIps: ['10.0.0.5'] };
const refusal = (fn: () => unknown): { status: number; fields: string[] } | undefined => {
  try {
    fn();
  } catch (e) {
    if (e instanceof SimError) return { status: e.status, fields: Object.keys(e.fields) };
    throw e;
  }
  return undefined;
};
const tmn = () => ledger.get('a', 'TMN');
const available = () => extras.ibans('a').find((i) => i.id === ibanId)?.withdraw_available_amount;

beforeEach(() => {
  ledger = new Ledger();
  ledger.credit('a', 'TMN', D(300_000_000));
  clock = new ManualClock(T0);
  extras = new AccountExtras({ clock });
  desk = new WithdrawalDesk({ ledger, extras, clock, fee: (v) => D(Math.min(4000, v.toNumber() * 0.0001)) });
  ibanId = extras.ibans('a')[0]?.id as number;
});

describe('WithdrawalDesk', () => {
  it('answers pending with details, locks the amount and lowers the available amount', () => {
    const w = desk.request('a', { iban: ibanId, value: D(70_000_000) }, AUTH);
    expect(w).toMatchObject({
      amount: 70_000_000,
      fee: 4000,
      status: 'pending',
      created_at: '2024-01-01T00:00:00Z',
      // 70,000,000 - 4,000 paid out in transfers of at most 50,000,000
      details: [
        { value: 50_000_000, status: 'pending' },
        { value: 19_996_000, status: 'pending' },
      ],
      iban: { id: ibanId, withdraw_daily_amount: '100000000', withdraw_available_amount: '30000000', status: 'ACCEPTED' },
    });
    expect(w.tracking_code).toMatch(/^[0-9A-F]{12}$/);
    expect(tmn()).toEqual({ value: D(300_000_000), locked: D(70_000_000) });
    expect(available()).toBe('30000000');
    const done = desk.complete(w.tracking_code);
    expect(done.status).toBe('done');
    expect(tmn()).toEqual({ value: D(230_000_000), locked: D(0) });
    expect(desk.list('a')).toHaveLength(1);
  });

  it('refuses without withdraw permission, without permitted IPs, or from another IP (403); nothing moves', () => {
    expect(refusal(() => desk.request('a', { iban: ibanId, value: D(1000) }, { ...AUTH, permissions: ['read', 'trade'] }))?.status).toBe(403);
    expect(refusal(() => desk.request('a', { iban: ibanId, value: D(1000) }, { ...AUTH, permittedIps: [] }))?.status).toBe(403);
    expect(refusal(() => desk.request('a', { iban: ibanId, value: D(1000) }, { ...AUTH, ip: '10.0.0.6' }))?.status).toBe(403);
    expect(tmn()).toEqual({ value: D(300_000_000), locked: D(0) });
    expect(available()).toBe('100000000');
  });

  it("refuses an unknown IBAN or another account's IBAN (422 iban); nothing moves", () => {
    const other = extras.ibans('b')[0]?.id as number;
    expect(refusal(() => desk.request('a', { iban: 999, value: D(1000) }, AUTH))).toEqual({ status: 422, fields: ['iban'] });
    expect(refusal(() => desk.request('a', { iban: other, value: D(1000) }, AUTH))).toEqual({ status: 422, fields: ['iban'] });
    expect(tmn()).toEqual({ value: D(300_000_000), locked: D(0) });
  });

  it('refuses above the daily amount (422 value), counting earlier withdrawals, and resets the next Tehran day', () => {
    desk.request('a', { iban: ibanId, value: D(60_000_000) }, AUTH);
    expect(refusal(() => desk.request('a', { iban: ibanId, value: D(40_000_001) }, AUTH))).toEqual({ status: 422, fields: ['value'] });
    expect(tmn().locked.toFixed()).toBe('60000000');
    expect(available()).toBe('40000000');
    // T0 is 03:30 in Tehran; the Tehran day ends at 20:30 UTC
    clock.set(T0 + 20 * HOUR + 29 * 60_000);
    expect(available()).toBe('40000000');
    clock.set(T0 + 20 * HOUR + 30 * 60_000);
    expect(available()).toBe('100000000');
    expect(desk.request('a', { iban: ibanId, value: D(100_000_000) }, AUTH).status).toBe('pending');
  });

  it('refuses a fractional or non-positive value (422) and a short balance (402); nothing moves', () => {
    expect(refusal(() => desk.request('a', { iban: ibanId, value: D('1000.5') }, AUTH))).toEqual({ status: 422, fields: ['value'] });
    expect(refusal(() => desk.request('a', { iban: ibanId, value: D(0) }, AUTH))).toEqual({ status: 422, fields: ['value'] });
    ledger.lock('a', 'TMN', D(250_000_000));
    expect(refusal(() => desk.request('a', { iban: ibanId, value: D(60_000_000) }, AUTH))?.status).toBe(402);
    expect(tmn()).toEqual({ value: D(300_000_000), locked: D(250_000_000) });
    expect(available()).toBe('100000000');
  });

  it('refuses an IBAN that is not ACCEPTED', () => {
    const id = extras.addIban('a', { iban: 'IR0000', owners: ['x'], bankName: 'b', bankCode: 'B', status: 'PENDING', isDefault: false, dailyAmount: D(10) });
    expect(refusal(() => desk.request('a', { iban: id, value: D(5) }, AUTH))).toEqual({ status: 422, fields: ['iban'] });
  });
});

describe('AccountExtras', () => {
  it('serves a deterministic profile, a card and an IBAN per account', () => {
    const p = extras.profile('a');
    expect(p).toMatchObject({ verification: 'VERIFIED', commission: 25, phone_number: { area_code: '021' } });
    expect(Object.keys(p)).toEqual(
      expect.arrayContaining([
        'tracking_id',
        'first_name',
        'last_name',
        'national_code',
        'face_image',
        'birthday',
        'address',
        'mobile_number',
        'email',
        'invite_code',
        'avatar',
        'settings',
        'status',
        'kyc_info',
        'meta',
      ]),
    );
    expect(new AccountExtras({ clock }).profile('a')).toEqual(p);
    const [card] = extras.cards('a');
    expect(card).toMatchObject({ card_number: expect.stringMatching(/^603799\*{6}\d{4}$/), status: 'ACCEPTED', is_default: 1 });
    expect(extras.ibans('a')[0]).toMatchObject({ bank_details: { code: 'BMI', is_available: true }, is_default: 1 });
  });

  it('serves wallet addresses per network, filters by network, refuses unknown coins and networks', () => {
    const all = extras.wallet('a', 'usdt');
    expect(all.provider).toBe('mizan-sim');
    expect(all.result.coin_type).toMatchObject({ key: 'USDT', name_en: 'Tether', deposit_availability: true });
    const wallets = all.result.wallets as Record<string, { address: string; network: { name: string } }>;
    expect(Object.keys(wallets)).toEqual(['TRC20', 'ERC20', 'BSC']);
    expect(wallets.TRC20?.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(wallets.ERC20?.address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(wallets.BSC?.address).not.toBe(wallets.ERC20?.address);
    const one = extras.wallet('a', 'USDT', 'trc20').result.wallets as Record<string, unknown>;
    expect(Object.keys(one)).toEqual(['TRC20']);
    expect(extras.wallet('b', 'USDT').result.wallets).not.toEqual(all.result.wallets);
    expect(refusal(() => extras.wallet('a', 'NOPE'))?.status).toBe(404);
    expect(refusal(() => extras.wallet('a', 'BTC', 'TRC20'))).toEqual({ status: 422, fields: ['network'] });
  });
});
