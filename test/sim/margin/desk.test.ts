import { describe, it, expect, beforeEach } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { Ledger } from '../../../src/sim/ledger.js';
import { SimError } from '../../../src/sim/errors.js';
import { MarginDesk, type MarginInput } from '../../../src/sim/margin/desk.js';
import { D, FakePrices, HOUR, specs, T0 } from './helpers.js';

let ledger: Ledger;
let prices: FakePrices;
let clock: ManualClock;
let desk: MarginDesk;

const long = (extra: Partial<MarginInput> = {}): MarginInput => ({
  market: 'BTCUSDT',
  side: 'long',
  collateral: D(1000),
  riskCoef: D(5),
  openPrice: D(50000),
  ...extra,
});
const usdt = () => ledger.get('a', 'USDT');
const status = (fn: () => unknown): number | undefined => {
  try {
    fn();
  } catch (e) {
    return e instanceof SimError ? e.status : -1;
  }
  return undefined;
};
const fields = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (e) {
    return e instanceof SimError ? Object.keys(e.fields) : [];
  }
  return [];
};

beforeEach(() => {
  ledger = new Ledger();
  ledger.credit('a', 'USDT', D(10000));
  prices = new FakePrices();
  prices.set('BTCUSDT', '50000', '50000');
  prices.set('ETHUSDT', '3000', '3000');
  clock = new ManualClock(T0);
  desk = new MarginDesk({ ledger, prices, specs, clock });
});

describe('MarginDesk: opening', () => {
  it('opens a long at the ask with the hand-worked loan, prices, fee and ledger moves', () => {
    const p = desk.open('a', long());
    expect(p).toMatchObject({
      id: 1,
      market: 'BTCUSDT',
      side: 'long',
      state: 'open',
      first_order_filled: true,
      is_called: false,
      open_price: '50000',
      open_filled_price: '50000',
      risk_coef: '5',
      loan: { currency: 'USDT', value: '4000' },
      collateral: { currency: 'USDT', value: '1000' },
      interest: { currency: 'USDT', value: '0' },
      profit: { currency: 'USDT', value: '0' },
      call_price: '44444.45',
      liquidity_price: '42105.27',
      opened_at: '2024-01-01T00:00:00Z',
      expires_at: '2024-01-22T00:00:00Z',
      extend_time: 14400,
      max_age: 1814400,
      close_reason: null,
      closed_at: null,
    });
    // opening fee 5000 * 0.002 = 10 taken; the collateral is locked
    expect(usdt().value.toFixed()).toBe('9990');
    expect(usdt().locked.toFixed()).toBe('1000');
  });

  it('opens a short with its loan in base', () => {
    const p = desk.open('a', { ...long(), side: 'short' });
    expect(p.loan).toEqual({ currency: 'BTC', value: '0.1' });
    expect(p.liquidity_price).toBe('57142.85');
    expect(p.call_price).toBe('54545.45');
  });

  it('rejects an open price more than 5% from the market (422 naming open_price); 5% exactly passes', () => {
    expect(status(() => desk.open('a', long({ openPrice: D(52600) })))).toBe(422);
    expect(fields(() => desk.open('a', long({ openPrice: D(47400) })))).toEqual(['open_price']);
    expect(usdt().value.toFixed()).toBe('10000');
    expect(desk.open('a', long({ openPrice: D(52500) })).state).toBe('open');
  });

  it('rejects bad risk coefficients, collateral, brackets and markets with the field named', () => {
    expect(fields(() => desk.open('a', long({ riskCoef: D('5.25') })))).toEqual(['risk_coef']);
    expect(fields(() => desk.open('a', long({ riskCoef: D(11) })))).toEqual(['risk_coef']);
    expect(fields(() => desk.open('a', long({ collateral: D(3) })))).toEqual(['collateral']); // min 20/5 = 4
    expect(fields(() => desk.open('a', long({ stopLoss: D(51000) })))).toEqual(['stop_loss']);
    expect(fields(() => desk.open('a', long({ takeProfit: D(49000) })))).toEqual(['take_profit']);
    expect(fields(() => desk.open('a', long({ market: 'DOGEUSDT' })))).toEqual(['market']);
  });

  it('answers 402 and moves nothing when the free balance does not cover collateral plus fee', () => {
    ledger.lock('a', 'USDT', D(9000)); // 1000 free, 1010 needed
    expect(status(() => desk.open('a', long()))).toBe(402);
    expect(usdt().value.toFixed()).toBe('10000');
    expect(usdt().locked.toFixed()).toBe('9000');
    expect(desk.list('a')).toEqual([]);
  });

  it('waits as pending when the open price is not reached, fills when a replayed price reaches it', () => {
    const p = desk.open('a', long({ openPrice: D(49000) }));
    expect(p).toMatchObject({ state: 'pending', first_order_filled: false, opened_at: null, loan: { value: '4000' } });
    desk.onPrice('BTCUSDT', D(49500), T0 + 1000);
    expect(desk.get('a', 1).state).toBe('pending');
    desk.onPrice('BTCUSDT', D(48900), T0 + 2000);
    const f = desk.get('a', 1);
    // Q = 5000/49000 = 0.10204 (6 dp down), cash left 0.04; liq (4000-0.04)/(0.10204*0.95) = 41263.075... -> 41263.08
    expect(f).toMatchObject({ state: 'open', open_filled_price: '49000', liquidity_price: '41263.08', call_price: '43555.47' });
  });

  it('cancels a pending position on close and refunds collateral and fee', () => {
    desk.open('a', long({ openPrice: D(49000) }));
    const c = desk.close('a', 1);
    expect(c).toMatchObject({ state: 'canceled', close_reason: 'user' });
    expect(usdt()).toEqual({ value: D(10000), locked: D(0) });
  });
});

describe('MarginDesk: interest, call, liquidation, collateral', () => {
  it('charges L*r every 4 hours: 3 periods on a 4000 loan at 0.05% = 6 USDT, prices move toward the market', () => {
    desk.open('a', long());
    desk.accrue(T0 + 4 * HOUR - 1);
    expect(desk.get('a', 1).interest.value).toBe('0');
    desk.accrue(T0 + 12 * HOUR + 5);
    const p = desk.get('a', 1);
    expect(p.interest).toEqual({ currency: 'USDT', value: '6' });
    expect(p.liquidity_price).toBe('42168.43'); // 4006 / 0.095
    expect(p.call_price).toBe('44511.12'); // 4006 / 0.09
    desk.accrue(T0 + 12 * HOUR + 10); // nothing more due
    expect(desk.get('a', 1).interest.value).toBe('6');
  });

  it('a close exactly at a 4-hour boundary is charged that period, as a stop loss at that instant is (issue 33 item 9)', () => {
    desk.open('a', long({ stopLoss: D(49000) })); // 1: closed by the stop loss
    desk.open('a', long()); // 2: closed by the strategy (PATCH …/close)
    clock.set(T0 + 4 * HOUR);
    desk.close('a', 2);
    desk.onPrice('BTCUSDT', D(48000), T0 + 4 * HOUR);
    expect(desk.get('a', 1)).toMatchObject({ state: 'closed', close_reason: 'stop_loss', interest: { value: '2' } });
    expect(desk.get('a', 2)).toMatchObject({ state: 'closed', close_reason: 'user', interest: { value: '2' } }); // 4000 * 0.05%
    expect(desk.costs('a', 2).interest.toFixed()).toBe('2');
  });

  it('a close with a price at least as good as the market, at a boundary, is charged too', () => {
    desk.open('a', long());
    clock.set(T0 + 8 * HOUR);
    desk.close('a', 1, D(49000)); // the bid (50000) is better: closes at once
    expect(desk.get('a', 1)).toMatchObject({ state: 'closed', interest: { value: '4' } });
  });

  it('charges a short 2.5 USDT per period (0.1 BTC at 50000 * 0.05%)', () => {
    desk.open('a', { ...long(), side: 'short' });
    desk.onPrice('BTCUSDT', D(50000), T0 + 8 * HOUR);
    const p = desk.get('a', 1);
    expect(p.interest.value).toBe('5');
    expect(p.liquidity_price).toBe('57095.23'); // 5995 / 0.105
  });

  it('sets is_called at the call price and clears it when the price recovers', () => {
    desk.open('a', long());
    desk.onPrice('BTCUSDT', D(44000), T0 + 1000);
    expect(desk.get('a', 1)).toMatchObject({ is_called: true, state: 'open' });
    desk.onPrice('BTCUSDT', D(46000), T0 + 2000);
    expect(desk.get('a', 1).is_called).toBe(false);
  });

  it('liquidates a long when the replayed price crosses the liquidation price', () => {
    desk.open('a', long());
    desk.onPrice('BTCUSDT', D('42105.28'), T0 + 1000);
    expect(desk.get('a', 1).state).toBe('open');
    desk.onPrice('BTCUSDT', D(42000), T0 + 2000);
    const p = desk.get('a', 1);
    // E = 0.1*42000 - 4000 = 200; closing fee 4200*0.002 = 8.4; payout 191.6; profit 191.6 - 1000
    expect(p).toMatchObject({
      state: 'liquidated',
      close_reason: 'liquidation',
      close_filled_price: '42000',
      closed_at: '2024-01-01T00:00:02Z',
      profit: { currency: 'USDT', value: '-808.4' },
      profit_percentage: '-80.84',
    });
    expect(usdt()).toEqual({ value: D('9181.6'), locked: D(0) }); // 9990 - 1000 + 191.6
  });

  it('liquidates a short when the price rises through its liquidation price', () => {
    desk.open('a', { ...long(), side: 'short' });
    desk.onPrice('BTCUSDT', D(57200), T0 + 1000);
    // E = 6000 - 0.1*57200 = 280; fee 5720*0.002 = 11.44; payout 268.56
    expect(desk.get('a', 1)).toMatchObject({ state: 'liquidated', profit: { value: '-731.44' } });
    expect(usdt()).toEqual({ value: D('9258.56'), locked: D(0) });
  });

  it('a collateral top-up moves the long prices away from the market and locks the amount', () => {
    desk.open('a', long());
    const p = desk.addCollateral('a', 1, D(500));
    // debt 4000 - 500 = 3500: liq 3500/0.095 = 36842.105... -> 36842.11, call 3500/0.09 -> 38888.89
    expect(p).toMatchObject({ collateral: { value: '1500' }, liquidity_price: '36842.11', call_price: '38888.89', loan: { value: '4000' } });
    expect(usdt()).toEqual({ value: D(9990), locked: D(1500) });
    desk.onPrice('BTCUSDT', D(42000), T0 + 1000); // would have liquidated before the top-up
    expect(desk.get('a', 1).state).toBe('open');
  });

  it('a collateral top-up moves a short liquidation price up', () => {
    desk.open('a', { ...long(), side: 'short' });
    // 6500 / 0.105 = 61904.76...
    expect(desk.addCollateral('a', 1, D(500)).liquidity_price).toBe('61904.76');
  });

  it('refuses a top-up beyond the free balance (402) and a non-positive change (422)', () => {
    desk.open('a', long());
    expect(status(() => desk.addCollateral('a', 1, D(9000)))).toBe(402);
    expect(fields(() => desk.addCollateral('a', 1, D(0)))).toEqual(['change']);
    expect(usdt()).toEqual({ value: D(9990), locked: D(1000) });
  });
});

describe('MarginDesk: closing', () => {
  it('closes at the bid without a price', () => {
    desk.open('a', long());
    prices.set('BTCUSDT', '50500', '50600');
    const p = desk.close('a', 1);
    // E = 0.1*50500 - 4000 = 1050; fee 10.1; payout 1039.9
    expect(p).toMatchObject({ state: 'closed', close_reason: 'user', close_filled_price: '50500', profit: { value: '39.9' } });
    expect(usdt()).toEqual({ value: D('10029.9'), locked: D(0) });
  });

  it('keeps a close price above the bid and closes when the replayed price reaches it', () => {
    desk.open('a', long());
    const p = desk.close('a', 1, D(51000));
    expect(p).toMatchObject({ state: 'open', close_price: '51000' });
    desk.onPrice('BTCUSDT', D(51000), T0 + 1000);
    // E = 5100 - 4000 = 1100; fee 10.2 -> payout 1089.8
    expect(desk.get('a', 1)).toMatchObject({ state: 'closed', close_reason: 'user', close_filled_price: '51000', profit: { value: '89.8' } });
    expect(fields(() => desk.close('a', 1))).toEqual(['id']);
  });

  it('rejects a close price more than 5% away that would wait', () => {
    desk.open('a', long());
    expect(fields(() => desk.close('a', 1, D(60000)))).toEqual(['price']);
  });

  it('closes at once at the market when the price is as good, however far below it (only its form is checked)', () => {
    desk.open('a', long());
    prices.set('BTCUSDT', '50500', '50600');
    expect(fields(() => desk.close('a', 1, D('45000.123456789')))).toEqual(['price']);
    expect(fields(() => desk.close('a', 1, D(0)))).toEqual(['price']);
    // 45000 is 10.9% below the bid: a long asking at least 45000 closes at the bid.
    expect(desk.close('a', 1, D(45000))).toMatchObject({ state: 'closed', close_reason: 'user', close_filled_price: '50500' });
  });

  it('take profit closes at its price, stop loss at the replayed price', () => {
    desk.open('a', long({ stopLoss: D(48000), takeProfit: D(53000) }));
    desk.open('a', long({ stopLoss: D(48000), takeProfit: D(53000) }));
    desk.onPrice('BTCUSDT', D(53500), T0 + 1000);
    // E = 5300 - 4000 = 1300, fee 10.6 -> payout 1289.4
    expect(desk.get('a', 1)).toMatchObject({ state: 'closed', close_reason: 'take_profit', close_filled_price: '53000', profit: { value: '289.4' } });
    expect(desk.get('a', 2).state).toBe('closed');
    desk.open('a', long({ stopLoss: D(48000) }));
    desk.onPrice('BTCUSDT', D(47900), T0 + 2000);
    // E = 4790 - 4000 = 790, fee 9.58 -> payout 780.42
    expect(desk.get('a', 3)).toMatchObject({ state: 'closed', close_reason: 'stop_loss', close_filled_price: '47900', profit: { value: '-219.58' } });
  });

  it('expires after 21 days: 126 periods of interest, closed at the market with reason expired', () => {
    desk.open('a', long());
    desk.accrue(T0 + 21 * 24 * HOUR);
    // I = 126 * 2 = 252; E = 5000 - 4000 - 252 = 748; fee 10 -> payout 738
    expect(desk.get('a', 1)).toMatchObject({ state: 'closed', close_reason: 'expired', interest: { value: '252' }, profit: { value: '-262' } });
    expect(usdt()).toEqual({ value: D(9728), locked: D(0) }); // 9990 - 1000 + 738
  });
});

describe('MarginDesk: reading', () => {
  it("lists with the active, position_side and market filters, and only the account's own", () => {
    desk.open('a', long());
    desk.open('a', { ...long(), side: 'short' });
    desk.open('a', long({ market: 'ETHUSDT', openPrice: D(3000) }));
    desk.close('a', 1);
    expect(desk.list('a').map((p) => p.id)).toEqual([1, 2, 3]);
    expect(desk.list('a', { active: true }).map((p) => p.id)).toEqual([2, 3]);
    expect(desk.list('a', { active: false }).map((p) => p.id)).toEqual([1]);
    expect(desk.list('a', { positionSide: 'long' }).map((p) => p.id)).toEqual([1, 3]);
    expect(desk.list('a', { market: 'ETHUSDT', positionSide: 'long' }).map((p) => p.id)).toEqual([3]);
    expect(desk.list('b')).toEqual([]);
    expect(status(() => desk.get('b', 1))).toBe(404);
    expect(status(() => desk.close('b', 2))).toBe(404);
  });

  it('reports unrealized profit at the replayed price', () => {
    desk.open('a', long());
    desk.onPrice('BTCUSDT', D(51000), T0 + 1000);
    expect(desk.get('a', 1)).toMatchObject({ profit: { value: '100' }, profit_percentage: '10' });
  });

  it('dry-run and loan bounds give the numbers open would use, without moving money', () => {
    const r = desk.dryRun(long({ stopLoss: D(48000) }));
    expect(r).toMatchObject({
      call_price: '44444.45',
      liquidity_price: '42105.27',
      stop_loss: '48000',
      take_profit: null,
      loan: { currency: 'USDT', value: '4000' },
      extend_fee: { value: '2' },
      open_fee: { value: '10' },
      trade_fee: { value: '10' },
      extend_time: 14400,
      max_age: 1814400,
    });
    expect(desk.loanBounds({ market: 'BTCUSDT', side: 'long', riskCoef: D(5), collateral: D(1000) })).toEqual({
      collateral: { min: '4', max: '40000' },
      loan: { currency: 'USDT', value: '4000' },
    });
    expect(desk.loanBounds({ market: 'BTCUSDT', side: 'short', riskCoef: D(5), collateral: D(1000) }).loan).toEqual({ currency: 'BTC', value: '0.1' });
    expect(usdt()).toEqual({ value: D(10000), locked: D(0) });
  });
});
