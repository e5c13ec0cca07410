import { describe, it, expect } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { SimError } from '../../src/sim/errors.js';
import { levels, makeSim } from './helpers.js';

function bal(sim: ReturnType<typeof makeSim>['sim'], acc: string, asset: string) {
  const b = sim.balances(acc)[asset]!;
  return { value: b.value.toFixed(), locked: b.locked.toFixed() };
}

describe('SimulatedExchange matching', () => {
  it('fills a limit buy partially across levels, rests the rest, and charges the taker fee in the received asset', () => {
    const { sim, acc } = makeSim();
    const o = sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('2.5'), price: d('102'), clientId: 'b1' });
    expect(o.fills.map((f) => [f.price.toFixed(), f.quantity.toFixed()])).toEqual([
      ['101', '1'],
      ['102', '1.5'],
    ]);
    expect(o.active).toBe(false);
    expect(o.status).toBe('FILLED');
    // 2.5 BTC bought, fee 0.2% of 2.5 = 0.005 BTC
    expect(o.fee.toFixed()).toBe('0.005');
    expect(bal(sim, acc, 'BTC').value).toBe('12.495');
    expect(bal(sim, acc, 'USDT')).toEqual({ value: String(100000 - 101 - 153), locked: '0' });
    expect(o.executedSum.div(o.executedQty).toFixed()).toBe('101.6');
    // The replayed ask at 102 keeps 0.5, consumed until the next snapshot
    expect(sim.book('BTCUSDT').asks.map((l) => [l.price.toFixed(), l.quantity.toFixed()])).toEqual([
      ['102', '0.5'],
      ['103', '3'],
    ]);
  });

  it('rests a partly filled limit order, locks what it may spend, and releases it on cancel', () => {
    const { sim, acc } = makeSim();
    const o = sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('3'), price: d('101.5'), clientId: 'p1' });
    expect(o.active).toBe(true);
    expect(o.status).toBe('NEW');
    expect(o.executedQty.toFixed()).toBe('1');
    expect(bal(sim, acc, 'USDT').locked).toBe('203'); // 2 × 101.5 still reserved
    expect(sim.bestBid('BTCUSDT')!.toFixed()).toBe('101.5');
    const c = sim.cancelOrder(acc, 'p1');
    expect(c.status).toBe('CANCELED');
    expect(c.active).toBe(false);
    expect(c.executedQty.toFixed()).toBe('1');
    expect(bal(sim, acc, 'USDT')).toEqual({ value: String(100000 - 101), locked: '0' });
    expect(sim.bestBid('BTCUSDT')!.toFixed()).toBe('100');
    expect(() => sim.cancelOrder(acc, 'p1')).toThrow(SimError);
  });

  it('matches account orders against each other with price-time priority and maker/taker fees', () => {
    const { sim, acc } = makeSim();
    const bob = sim.createAccount({ id: 'bob', balances: { BTC: '5' } }).id;
    const carol = sim.createAccount({ id: 'carol', balances: { BTC: '5' }, fees: { BTCUSDT: { makerFee: '0.001', takerFee: '0.003' } } }).id;
    // Two asks at 100.8 (bob first, then carol), both ahead of the replayed 101
    sim.placeOrder(bob, { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', quantity: d('0.5'), price: d('100.8'), clientId: 'bob1' });
    sim.placeOrder(carol, { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', quantity: d('0.5'), price: d('100.8'), clientId: 'carol1' });
    sim.placeOrder(carol, { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', quantity: d('0.5'), price: d('100.7'), clientId: 'carol2' });
    const t = sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('1.2'), price: d('100.8'), clientId: 't1' });
    expect(t.fills.map((f) => [f.price.toFixed(), f.quantity.toFixed(), f.isMaker])).toEqual([
      ['100.7', '0.5', false],
      ['100.8', '0.5', false],
      ['100.8', '0.2', false],
    ]);
    const bob1 = sim.getOrder(bob, 'bob1');
    expect(bob1.status).toBe('FILLED');
    const carol1 = sim.getOrder(carol, 'carol1');
    expect(carol1.executedQty.toFixed()).toBe('0.2');
    expect(carol1.active).toBe(true);
    // carol's maker fee 0.1% of the USDT received: 0.5 × 100.7 × 0.001 + 0.2 × 100.8 × 0.001
    expect(sim.getOrder(carol, 'carol2').fee.toFixed()).toBe('0.05035');
    expect(carol1.fee.toFixed()).toBe('0.02016');
    expect(sim.balances(carol).USDT!.value.toFixed()).toBe('70.43949'); // 50.35 + 20.16 - 0.07051 fees
    expect(sim.accountTrades(bob)[0]!.feeAsset).toBe('USDT');
  });

  it('applies the real rules with the real statuses and per-field messages', () => {
    const { sim, acc } = makeSim();
    const err = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return e as SimError;
      }
      throw new Error('expected a SimError');
    };
    const e1 = err(() => sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.0000001'), price: d('100.123') }));
    expect(e1.status).toBe(422);
    expect(Object.keys(e1.fields).sort()).toEqual(['price', 'quantity']);
    const e2 = err(() => sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.05'), price: d('100') }));
    expect(e2.status).toBe(422);
    expect(e2.fields.quantity![0]).toContain('below the minimum 10 USDT');
    const e3 = err(() => sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('101'), price: d('100') }));
    expect(e3.fields.quantity![0]).toContain('above the maximum 100');
    const e4 = err(() => sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('99'), price: d('10000') }));
    expect(e4.status).toBe(402);
    sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.2'), price: d('90'), clientId: 'dup' });
    expect(err(() => sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.2'), price: d('90'), clientId: 'dup' })).status).toBe(
      409,
    );
    expect(err(() => sim.getOrder(acc, 'nope')).status).toBe(404);
    expect(
      err(() => sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.2'), price: d('90'), clientId: 'bad-id' })).fields
        .client_id,
    ).toHaveLength(1);
    expect(
      err(() => sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.2'), price: d('90'), stopPrice: d('95') })).fields
        .stop_Price,
    ).toHaveLength(1);
    expect(err(() => sim.placeOrder(acc, { symbol: 'NOPE', side: 'BUY', type: 'LIMIT', quantity: d('1'), price: d('1') })).fields.symbol).toHaveLength(1);
    // nothing of the refused orders stayed locked
    expect(bal(sim, acc, 'USDT').locked).toBe('18');
  });

  it('cancels a market order that would move the price more than 2% or is larger than the book', () => {
    const { sim, acc } = makeSim();
    sim.replaceBookSide('BTCUSDT', 'ask', levels(['101', '1'], ['102', '1'], ['104', '5']));
    const tooFar = sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: d('3') });
    expect(tooFar.status).toBe('CANCELED');
    expect(tooFar.fills).toHaveLength(0);
    const tooBig = sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: d('7') });
    expect(tooBig.status).toBe('CANCELED');
    expect(bal(sim, acc, 'BTC').locked).toBe('0');
    const ok = sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: d('2') });
    expect(ok.status).toBe('FILLED');
    expect(ok.executedSum.toFixed()).toBe('203');
    expect(sim.lastPrice('BTCUSDT')!.toFixed()).toBe('102');
  });

  it('triggers stops in both directions from the last price', () => {
    const { sim, acc } = makeSim();
    // last 100.5: a sell stop below triggers when the price falls to it, a buy stop above when it rises
    const down = sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'SELL', type: 'STOP_MARKET', quantity: d('0.5'), stopPrice: d('99.5'), clientId: 'sd' });
    const up = sim.placeOrder(acc, {
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'STOP_LIMIT',
      quantity: d('0.5'),
      stopPrice: d('101.5'),
      price: d('102'),
      clientId: 'su',
    });
    expect(down.stopCondition).toBe('LESS_THAN_OR_EQUAL');
    expect(up.stopCondition).toBe('GREATER_THAN_OR_EQUAL');
    sim.recordTrade({ symbol: 'BTCUSDT', price: d('100'), quantity: d('0.1'), isBuyOrder: false, timestamp: 1_700_000_001_000 });
    expect(sim.getOrder(acc, 'sd').triggered).toBe(false);
    sim.recordTrade({ symbol: 'BTCUSDT', price: d('99.5'), quantity: d('0.1'), isBuyOrder: false, timestamp: 1_700_000_002_000 });
    const sd = sim.getOrder(acc, 'sd');
    expect(sd.triggered).toBe(true);
    expect(sd.status).toBe('FILLED');
    expect(sd.fills[0]!.price.toFixed()).toBe('100'); // sold into the best bid
    expect(sim.getOrder(acc, 'su').triggered).toBe(false);
    sim.recordTrade({ symbol: 'BTCUSDT', price: d('101.5'), quantity: d('0.1'), isBuyOrder: true, timestamp: 1_700_000_003_000 });
    const su = sim.getOrder(acc, 'su');
    expect(su.triggered).toBe(true);
    expect(su.status).toBe('FILLED');
    expect(su.fills[0]!.price.toFixed()).toBe('101');
  });

  it('fills resting orders that a snapshot crosses or a public trade prints through, as maker at their price', () => {
    const { sim, acc } = makeSim();
    sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('1'), price: d('100.5'), clientId: 'r1' });
    sim.replaceBookSide('BTCUSDT', 'ask', levels(['100.4', '0.3'], ['101', '1']));
    let r1 = sim.getOrder(acc, 'r1');
    expect(r1.executedQty.toFixed()).toBe('0.3');
    expect(r1.fills[0]!.price.toFixed()).toBe('100.5');
    expect(r1.fills[0]!.isMaker).toBe(true);
    expect(r1.fee.toFixed()).toBe('0.0006'); // maker 0.2% of 0.3 BTC
    expect(sim.book('BTCUSDT').asks[0]!.price.toFixed()).toBe('101');
    sim.recordTrade({ symbol: 'BTCUSDT', price: d('100.2'), quantity: d('0.4'), isBuyOrder: false, timestamp: 1_700_000_001_000 });
    r1 = sim.getOrder(acc, 'r1');
    expect(r1.executedQty.toFixed()).toBe('0.7');
    expect(sim.lastPrice('BTCUSDT')!.toFixed()).toBe('100.2');
    // a trade at the order's own price does not print through
    sim.recordTrade({ symbol: 'BTCUSDT', price: d('100.5'), quantity: d('5'), isBuyOrder: false, timestamp: 1_700_000_002_000 });
    expect(sim.getOrder(acc, 'r1').executedQty.toFixed()).toBe('0.7');
  });

  it('emits depth (merged, top levels), trades and stats after the state is written', () => {
    const { sim, acc } = makeSim();
    const seen: string[] = [];
    sim.on('depth', (e) => seen.push(`depth ${e.side} ${e.levels[0]!.price.toFixed()}/${e.levels[0]!.quantity.toFixed()}`));
    sim.on('trade', (t) => seen.push(`trade ${t.price.toFixed()} ${sim.getOrder(acc, 'e1').executedQty.toFixed()}`));
    sim.on('price', (p) => seen.push(`price ${p.price.toFixed()}`));
    sim.placeOrder(acc, { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('1.5'), price: d('101'), clientId: 'e1' });
    expect(seen).toEqual(['trade 101 1', 'depth ask 102/2', 'depth bid 101/0.5', 'price 101']);
  });
});
