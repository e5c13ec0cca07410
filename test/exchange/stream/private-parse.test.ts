import { describe, expect, it } from 'vitest';
import { PrivatePayloadError, parsePrivateMessage } from '../../../src/exchange/stream/private-parse.js';
import { loadSample } from './samples.js';

const NOW = 1_700_000_000_000;

describe('private stream payloads (the exchange documentation samples)', () => {
  it('orderSaved: the framed sample, and its socket.io payload', () => {
    const framed = loadSample('ws_raw_private_orderSaved__developers-wallex-ir.json') as [string, { data: unknown }];
    for (const input of [framed, framed[1]]) {
      const m = parsePrivateMessage(input, false, NOW);
      if (m.kind !== 'orderSaved') throw new Error(`expected orderSaved, got ${m.kind}`);
      const o = m.order;
      expect([o.clientOrderId, o.symbol, o.side, o.status, o.active]).toEqual(['LIMIT-xxxx', 'USDTTMN', 'BUY', 'NEW', true]);
      expect([o.price.toFixed(), o.origQty.toFixed(), o.executedQty.toFixed()]).toEqual(['82102', '10', '0']);
      expect(o.timestamp).toBe(1748773416414);
    }
  });

  it('tradeDetails: clientOrderID spelling, fee in its currency, exact decimals', () => {
    const framed = loadSample('ws_raw_private_tradeDetails__developers-wallex-ir.json') as [string, unknown];
    expect(framed[0]).toBe('STREAMKEY@tradeDetails');
    const m = parsePrivateMessage(framed[1], true, NOW);
    if (m.kind !== 'tradeDetails') throw new Error(`expected tradeDetails, got ${m.kind}`);
    const t = m.trade;
    expect(t.clientOrderId).toBe('LIMIT-e441b494-730d-11f1-8a2a-9afca993d5d3');
    expect([t.price.toFixed(), t.quantity.toFixed(), t.sum.toFixed(), t.fee.toFixed(), t.feeAsset, t.isMaker, t.side]).toEqual([
      '172000',
      '2',
      '344000',
      '0.003',
      'USDT',
      false,
      'BUY',
    ]);
    expect(t.timestamp).toBe(1782663892725);
  });

  it('balanceUpdated: asset -> {value, locked}', () => {
    const framed = loadSample('ws_raw_private_balanceUpdated__developers-wallex-ir.json') as [string, unknown];
    const m = parsePrivateMessage(framed[1], false, NOW);
    if (m.kind !== 'balanceUpdated') throw new Error(`expected balanceUpdated, got ${m.kind}`);
    expect(m.balances.map((b) => [b.asset, b.value.toFixed(), b.locked.toFixed(), b.fiat])).toEqual([['TMN', '16033085', '2507491', true]]);
  });

  it('accepts numbers, exponents and clientOrderId on tradeDetails; infers the kind of a bare payload', () => {
    const bare = {
      clientOrderId: 'a_1',
      feeAmount: 3e-7,
      feeCurrency: 'btc',
      isMaker: 'true',
      price: '6.25e4',
      quantity: 1e-6,
      side: 'sell',
      sum: '0.0625',
      symbol: 'btcusdt',
    };
    const m = parsePrivateMessage(bare, true, NOW);
    if (m.kind !== 'tradeDetails') throw new Error(m.kind);
    expect([
      m.trade.fee.toFixed(),
      m.trade.price.toFixed(),
      m.trade.quantity.toFixed(),
      m.trade.feeAsset,
      m.trade.symbol,
      m.trade.side,
      m.trade.isMaker,
    ]).toEqual(['0.0000003', '62500', '0.000001', 'BTC', 'BTCUSDT', 'SELL', true]);
    expect(m.trade.timestamp).toBe(NOW);
    const order = parsePrivateMessage(
      { clientOrderID: 'b_2', symbol: 'USDTTMN', side: 'SELL', price: 82000, origQty: '1E+1', executedQty: '0E-8', status: 'canceled', active: false },
      false,
      NOW,
    );
    expect(order.kind).toBe('orderSaved');
    if (order.kind === 'orderSaved')
      expect([order.order.clientOrderId, order.order.origQty.toFixed(), order.order.executedQty.toFixed(), order.order.status]).toEqual([
        'b_2',
        '10',
        '0',
        'CANCELED',
      ]);
  });

  it('rejects malformed payloads naming the field and value, with the kind for counting', () => {
    const cases: [unknown, boolean, string, string][] = [
      [
        { event: 'orderSaved', data: { symbol: 'USDTTMN', side: 'BUY', price: '1', origQty: '1', executedQty: '0', status: 'NEW', active: true } },
        false,
        'orderSaved',
        'orderSaved.clientOrderId',
      ],
      [
        {
          event: 'orderSaved',
          data: { clientOrderId: 'x', symbol: 'USDTTMN', side: 'BUY', price: '1', origQty: '1', executedQty: '2', status: 'NEW', active: true },
        },
        false,
        'orderSaved',
        'orderSaved.executedQty',
      ],
      [
        {
          event: 'tradeDetails',
          data: { clientOrderID: 'x', feeAmount: 'lots', feeCurrency: 'USDT', price: '1', quantity: '1', side: 'BUY', symbol: 'USDTTMN' },
        },
        true,
        'tradeDetails',
        'tradeDetails.feeAmount',
      ],
      [
        { event: 'tradeDetails', data: { clientOrderID: 'x', feeAmount: '0', feeCurrency: 'USDT', price: '1', quantity: '0', side: 'BUY', symbol: 'USDTTMN' } },
        true,
        'tradeDetails',
        'tradeDetails.quantity',
      ],
      // eslint-disable-next-line no-loss-of-precision -- an overflowing number (Infinity) on purpose
      [{ event: 'balanceUpdated', data: { TMN: { asset: 'TMN', value: 12.5e400, locked: '0' } } }, false, 'balanceUpdated', 'balanceUpdated.TMN.value'],
      [{ event: 'somethingElse', data: {} }, false, 'privateEnvelope', 'private.event'],
      ['not an object', false, 'privateEnvelope', 'private'],
    ];
    for (const [payload, trade, kind, field] of cases) {
      let err: unknown;
      try {
        parsePrivateMessage(payload, trade, NOW);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(payload)).toBeInstanceOf(PrivatePayloadError);
      const e = err as PrivatePayloadError;
      expect([e.kind, e.field]).toEqual([kind, field]);
      expect(e.message).toContain(field);
    }
  });
});
