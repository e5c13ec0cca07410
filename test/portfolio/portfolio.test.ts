import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { Portfolio } from '../../src/portfolio/portfolio.js';
import type { RoundTripClosed } from '../../src/portfolio/trade-book.js';
import type { FillEvent } from '../../src/strategy/views.js';

function closes(p: Portfolio): RoundTripClosed[] {
  const out: RoundTripClosed[] = [];
  p.trades.onClose((t) => out.push(t));
  return out;
}

const split = (s: string) => ({ base: s.replace(/(USDT|TMN)$/, ''), quote: s.endsWith('TMN') ? 'TMN' : 'USDT' });

function fill(side: 'BUY' | 'SELL', qty: string, price: string, fee: string, feeAsset: string, t = 0, strategy = 's1'): FillEvent {
  return { clientOrderId: 'c', strategy, symbol: 'BTCUSDT', side, price: d(price), quantity: d(qty), fee: d(fee), feeAsset, timestamp: t };
}

describe('Portfolio', () => {
  it('a position polled before its first fill is found once the fill makes it', () => {
    const p = new Portfolio({ split, price: () => undefined, reference: 'USDT' });
    // Polled per candle before any fill (the miss is remembered), then another strategy's record is made.
    for (let i = 0; i < 3; i++) expect(p.positions.view('s1', 'BTCUSDT')).toBeUndefined();
    p.applyFill(fill('BUY', '1', '100', '0', 'USDT', 1, 's2'));
    expect(p.positions.get('s1', 'BTCUSDT')).toBeUndefined();
    expect(p.positions.get('s2', 'BTCUSDT')?.quantity.toFixed()).toBe('1');
    expect(p.positions.get('s1', 'BTCUSDT')).toBeUndefined();
    p.applyFill(fill('BUY', '2', '100', '0', 'USDT', 2));
    expect(p.positions.view('s1', 'BTCUSDT')?.quantity.toFixed()).toBe('2');
    expect(p.positions.get('s2', 'ETHUSDT')).toBeUndefined();
  });

  it('average cost and realised PnL, worked by hand', () => {
    const p = new Portfolio({ split, price: () => undefined, reference: 'USDT' });
    const closed = closes(p);
    // Buy 1 @ 100, fee 0.002 BTC (in base): receive 0.998 BTC for 100 USDT -> avg 100/0.998.
    p.applyFill(fill('BUY', '1', '100', '0.002', 'BTC', 1));
    // Buy 1 @ 110, fee 0.22 USDT: cost 110.22 for 1 BTC.
    p.applyFill(fill('BUY', '1', '110', '0.22', 'USDT', 2));
    const pos = p.positions.get('s1', 'BTCUSDT')!;
    expect(pos.quantity.toFixed()).toBe('1.998');
    // (100 + 110.22) / 1.998
    expect(pos.avgPrice.toFixed(10)).toBe(d('210.22').div('1.998').toFixed(10));
    // Sell 1.998 @ 120, fee 0.47952 USDT (0.2%): pnl = (120 - avg) * 1.998 - 0.47952 = 239.76 - 210.22 - 0.47952 = 29.06048
    const pnl = p.applyFill(fill('SELL', '1.998', '120', '0.47952', 'USDT', 3));
    expect(pnl.toFixed()).toBe('29.06048');
    expect(pos.quantity.isZero()).toBe(true);
    // The same fill closed the round trip in the ledger's trade book, with the same pnl.
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatchObject({ strategy: 's1', symbol: 'BTCUSDT', openedAt: 1, closedAt: 3 });
    expect(closed[0]!.pnl.toFixed()).toBe('29.06048');
  });

  it('tells every closed round trip and keeps no record unless asked (memory stays flat over a long run)', () => {
    const p = new Portfolio({ split, price: () => undefined, reference: 'USDT' });
    const closed = closes(p);
    for (let i = 0; i < 3; i++) {
      p.applyFill(fill('BUY', '1', '100', '0', 'USDT', 10 * i + 1));
      p.applyFill(fill('SELL', '1', String(101 + i), '0', 'USDT', 10 * i + 2));
    }
    expect(closed.map((t) => t.pnl.toFixed())).toEqual(['1', '2', '3']);
    expect(closed[2]).toMatchObject({ openedAt: 21, closedAt: 22 });
    expect(p.trades.trades).toHaveLength(0);
    const kept = new Portfolio({ split, price: () => undefined, reference: 'USDT', trades: { retain: true } });
    kept.applyFill(fill('BUY', '1', '100', '0', 'USDT', 1));
    kept.applyFill(fill('SELL', '1', '101', '0', 'USDT', 2));
    expect(kept.trades.trades).toHaveLength(1);
  });

  it('a round trip of two sells is one trade with the pnl of both (the protections read it)', () => {
    const p = new Portfolio({ split, price: () => undefined, reference: 'USDT' });
    const closed = closes(p);
    p.applyFill(fill('BUY', '2', '100', '0', 'USDT', 1));
    p.applyFill(fill('SELL', '1', '90', '0', 'USDT', 2));
    const last = p.applyFill(fill('SELL', '1', '105', '0', 'USDT', 3));
    // The last sell realised a gain; the round trip lost 5.
    expect(last.toFixed()).toBe('5');
    expect(closed).toHaveLength(1);
    expect(closed[0]!.pnl.toFixed()).toBe('-5');
  });

  it('adjusts balances by fills between syncs and values equity in the reference asset', () => {
    const p = new Portfolio({ split, price: (a) => (a === 'BTC' ? d('50000') : undefined), reference: 'USDT' });
    p.syncBalances('main', { USDT: { asset: 'USDT', fiat: false, value: d('1000'), locked: d('0') } }, 0);
    p.applyFill(fill('BUY', '0.01', '50000', '0.00002', 'BTC'));
    expect(p.balance('USDT').value.toFixed()).toBe('500');
    expect(p.balance('BTC').value.toFixed()).toBe('0.00998');
    // 500 + 0.00998 * 50000 = 999
    expect(p.equity(10).equity.toFixed()).toBe('999');
    p.syncBalances('main', { DOGE: { asset: 'DOGE', fiat: false, value: d('5'), locked: d('0') } }, 11);
    expect(p.equity(12).unpriced).toEqual(['DOGE']);
  });

  it('a sell of more than the strategy bought realises only the held part', () => {
    const p = new Portfolio({ split, price: () => undefined, reference: 'USDT' });
    p.applyFill(fill('BUY', '1', '100', '0', 'USDT'));
    const pnl = p.applyFill(fill('SELL', '1.5', '110', '0', 'USDT'));
    expect(pnl.toFixed()).toBe('10');
    expect(p.positions.get('s1', 'BTCUSDT')!.oversold.toFixed()).toBe('0.5');
    const rows = p.pnl(() => d(120));
    expect(rows[0]).toMatchObject({ strategy: 's1', symbol: 'BTCUSDT' });
    expect(rows[0]!.realized.toFixed()).toBe('10');
  });

  it('moves no balance before the account is read: the read holds the fills already (a restart)', () => {
    const p = new Portfolio({ split, price: () => undefined, reference: 'USDT' });
    expect(p.balancesRead('main')).toBe(false);
    // A restart: the journal's fills and one found while the bot was down, before the first read.
    p.applyFill(fill('BUY', '0.0012', '60000', '0', 'USDT', 1));
    expect([p.balance('BTC').value.toFixed(), p.balance('USDT').value.toFixed()]).toEqual(['0', '0']); // were 0.0012 and -72: booked onto nothing
    expect(p.positions.get('s1', 'BTCUSDT')?.quantity.toFixed()).toBe('0.0012'); // the position still books it
    // A few assets merged in (the private stream) are not a read of the account.
    p.syncBalances('main', { USDT: { asset: 'USDT', fiat: false, value: d('5'), locked: d('0') } }, 2, false);
    expect(p.balancesRead('main')).toBe(false);
    p.syncBalances('main', { BTC: { asset: 'BTC', fiat: false, value: d('0.5'), locked: d('0') } }, 3);
    expect(p.balancesRead('main')).toBe(true);
    expect(p.balancesRead('prop:x')).toBe(false);
    p.applyFill(fill('SELL', '0.1', '60000', '0', 'USDT', 4));
    expect(p.balance('BTC').value.toFixed()).toBe('0.4');
  });

  it('closes the round trip when a sell leaves only unsellable dust (fee taken in the base asset)', () => {
    const p = new Portfolio({ split, price: () => undefined, reference: 'USDT', minSellable: () => d('0.000001') });
    p.syncBalances('main', {}, 0); // the account read: fills move its balances from now on
    // Buy 0.1469 @ 100 with a 0.2% fee in BTC: holding 0.1466062 (7 decimals, the step is 6).
    p.applyFill(fill('BUY', '0.1469', '100', '0.0002938', 'BTC', 1));
    const pos = p.positions.get('s1', 'BTCUSDT')!;
    expect(pos.quantity.toFixed()).toBe('0.1466062');
    // The strategy sells what the step allows: 0.146606, leaving 0.0000002 BTC of dust.
    const pnl = p.applyFill(fill('SELL', '0.146606', '110', '0', 'USDT', 2));
    expect(pos.quantity.isZero()).toBe(true);
    expect(pos.dust.toFixed()).toBe('0.0000002');
    // proceeds 16.12666 + the dust at this price 0.000022 - all the cost 14.69 = 1.436682
    expect(pnl.toFixed()).toBe('1.436682');
    expect(pos.dustValue.toFixed()).toBe('0.000022');
    expect(p.balance('BTC').value.toFixed()).toBe('0.0000002');
  });

  it("a strategy's realised PnL is its trades' pnl: one holding, dust carried into the next trip", () => {
    // Before, the position wrote the dust off (realised 1.43666) while the trade book valued it at
    // the sell's price (1.436682): two copies of one holding that disagreed.
    const p = new Portfolio({ split, price: () => undefined, reference: 'USDT', minSellable: () => d('0.000001'), trades: { retain: true } });
    const closed = closes(p);
    p.applyFill(fill('BUY', '0.1469', '100', '0.0002938', 'BTC', 1));
    p.applyFill(fill('SELL', '0.146606', '110', '0', 'USDT', 2));
    // The next trip starts holding the dust (0.0000002 worth 0.000022); its last sell sells it too.
    p.applyFill(fill('BUY', '1', '120', '0', 'USDT', 3));
    const pnl = p.applyFill(fill('SELL', '1.0000002', '130', '0', 'USDT', 4));
    const pos = p.positions.get('s1', 'BTCUSDT')!;
    // 130.000026 - 120 - 0.000022 (the dust's value when it was left) = 10.000004
    expect(pnl.toFixed()).toBe('10.000004');
    expect(pos.dust.isZero() && pos.oversold.isZero()).toBe(true);
    expect(closed.map((t) => t.pnl.toFixed())).toEqual(['1.436682', '10.000004']);
    expect(p.trades.trades.map((t) => t.pnl)).toEqual(['1.436682', '10.000004']);
    expect(pos.realizedPnl.toFixed()).toBe('11.436686');
  });
});
