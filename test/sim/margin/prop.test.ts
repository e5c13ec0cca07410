import { describe, it, expect, beforeEach } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { Ledger } from '../../../src/sim/ledger.js';
import { SimError } from '../../../src/sim/errors.js';
import { PropDesk } from '../../../src/sim/prop.js';
import { D, FakePrices, HOUR, T0 } from './helpers.js';

let ledger: Ledger;
let prices: FakePrices;
let clock: ManualClock;
let desk: PropDesk;

const statusOf = (fn: () => unknown): number | undefined => {
  try {
    fn();
  } catch (e) {
    if (e instanceof SimError) return e.status;
    throw e;
  }
  return undefined;
};

beforeEach(() => {
  ledger = new Ledger();
  ledger.credit('a', 'USDT', D(2000));
  prices = new FakePrices();
  prices.set('BTCUSDT', '52000', '52100');
  clock = new ManualClock(T0);
  desk = new PropDesk({ ledger, prices, clock });
});

describe('PropDesk', () => {
  it('serves package detail with the spec fields and unavailable markets', () => {
    const { detail, unavailableMarkets } = desk.packageDetail(1);
    expect(detail).toMatchObject({
      id: 1,
      currency: 'TMN',
      destination_currency: 'TMN',
      assurance: '10000000',
      loan: '90000000',
      warning_limit: '94000000',
      liquidity_limit: '92000000',
      status: 'active',
      expire_days: 30,
      daily_fee: '50000',
      daily_fee_after_discount: '50000',
      final_fee_after_discount: '200000',
      usage_count_step: 0,
    });
    expect(Object.keys(detail)).toEqual(
      expect.arrayContaining(['title', 'dark_image_url', 'light_image_url', 'daily_fee_discount', 'final_fee', 'final_fee_discount']),
    );
    expect(unavailableMarkets).toEqual(['SHIBTMN']);
    expect(statusOf(() => desk.packageDetail(99))).toBe(404);
  });

  it('opens a sub-account: takes the assurance, funds assurance + loan, resolves for its owner only', () => {
    const e = desk.openSubAccount('a', 2);
    const id = e.client_id as string;
    expect(e).toMatchObject({
      status: 'active',
      currency: 'USDT',
      start_balance: '10000',
      assurance: '1000',
      loan: '9000',
      final_balance: null,
      user_id: 1001,
    });
    expect(ledger.get('a', 'USDT').value.toFixed()).toBe('1000');
    const sub = desk.resolveSubAccount('a', id);
    expect(ledger.get(sub, 'USDT').value.toFixed()).toBe('10000');
    expect(statusOf(() => desk.resolveSubAccount('b', id))).toBe(404);
    expect(desk.packageDetail(2).detail.usage_count_step).toBe(1);
  });

  it('refuses a package the account cannot pay for (402) and moves nothing', () => {
    ledger.credit('b', 'USDT', D(500));
    expect(statusOf(() => desk.openSubAccount('b', 2))).toBe(402);
    expect(ledger.get('b', 'USDT').value.toFixed()).toBe('500');
    expect(desk.history('b')).toEqual([]);
    expect(statusOf(() => desk.openSubAccount('a', 7))).toBe(404);
  });

  it('closes with the final balance valued at the bid, fees per started day, and the rest paid back', () => {
    const id = desk.openSubAccount('a', 2).client_id as string;
    const sub = desk.resolveSubAccount('a', id);
    // a spot buy on the sub-account: 0.1 BTC for 5000 USDT
    ledger.debitFree(sub, 'USDT', D(5000));
    ledger.credit(sub, 'BTC', D('0.1'));
    clock.advance(60 * HOUR); // 2.5 days -> 3 started days
    const closed = desk.close('a', id);
    // F = 5000 + 0.1 * 52000 = 10200; fees = (5 - 1) * 3 + 10 = 22; back = 10200 - 9000 - 22 = 1178
    expect(closed).toEqual({
      client_id: id,
      currency: 'USDT',
      final_balance: '10200',
      final_balance_without_transfers: '10200',
      prop_package_id: 2,
      start_balance: '10000',
      user_id: 1001,
    });
    expect(ledger.get('a', 'USDT').value.toFixed()).toBe('2178');
    expect(ledger.get(sub, 'USDT').value.toFixed()).toBe('0');
    expect(ledger.get(sub, 'BTC').value.toFixed()).toBe('0');
    const [h] = desk.history('a');
    expect(h).toMatchObject({
      status: 'closed',
      close_reason: 'user',
      profit: '200',
      profit_percentage: '20',
      final_assurance: '1178',
      final_payBack: '9022',
      open_days: 3,
      total_days: 14,
      finished_at: '2024-01-03T12:00:00Z',
      expire_at: '2024-01-15T00:00:00Z',
      applicable_daily_fee_after_discount: '12',
    });
    expect(statusOf(() => desk.resolveSubAccount('a', id))).toBe(422);
    expect(statusOf(() => desk.close('a', id))).toBe(422);
  });

  it('refuses to close while orders lock funds, or an unknown id', () => {
    const id = desk.openSubAccount('a', 2).client_id as string;
    ledger.lock(desk.resolveSubAccount('a', id), 'USDT', D(100));
    expect(statusOf(() => desk.close('a', id))).toBe(422);
    expect(statusOf(() => desk.close('a', 'nope'))).toBe(404);
  });

  it('check(): warns under the warning limit, closes at the liquidity limit and at expiry', () => {
    const a = desk.openSubAccount('a', 2).client_id as string;
    ledger.credit('a', 'USDT', D(1000));
    const b = desk.openSubAccount('a', 2).client_id as string;
    ledger.debitFree(desk.resolveSubAccount('a', a), 'USDT', D(700)); // 9300: warned
    ledger.debitFree(desk.resolveSubAccount('a', b), 'USDT', D(900)); // 9100: at or below 9200
    desk.check(clock.now());
    const [hb, ha] = desk.history('a');
    expect(ha).toMatchObject({ client_id: a, status: 'active', is_warned: true });
    // back = 9100 - 9000 - (4 * 1 + 10) = 86
    expect(hb).toMatchObject({ client_id: b, status: 'closed', close_reason: 'liquidity', final_assurance: '86' });
    clock.advance(14 * 24 * HOUR);
    desk.check(clock.now());
    expect(desk.history('a')[1]).toMatchObject({ status: 'closed', close_reason: 'expired' });
  });
});
