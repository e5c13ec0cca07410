import { describe, expect, it } from 'vitest';
import { ResponseParseError } from '../../../src/core/errors.js';
import { parseBookLevels, parseCandles, parseFeeRates, parseMarketStats, parseSpotOrder, timeMs, unwrapResult } from '../../../src/exchange/parse/index.js';
import { loadSample, normalizeSample } from '../../support/samples.js';

describe('parsers', () => {
  it('read datetimes with and without microseconds, zones, and Unix seconds', () => {
    expect(timeMs('2022-06-18T13:45:08.000000Z', 't')).toBe(Date.UTC(2022, 5, 18, 13, 45, 8));
    expect(timeMs('2022-06-18T13:45:08.123456Z', 't')).toBe(Date.UTC(2022, 5, 18, 13, 45, 8, 123));
    expect(timeMs('2022-06-18T13:45:08Z', 't')).toBe(Date.UTC(2022, 5, 18, 13, 45, 8));
    expect(timeMs('2022-06-18T17:15:08+0330', 't')).toBe(Date.UTC(2022, 5, 18, 13, 45, 8));
    expect(timeMs(1624846226, 't')).toBe(1624846226000);
    expect(timeMs(1748773416376, 't')).toBe(1748773416376);
    expect(() => timeMs('yesterday', 'order.created_at')).toThrow(/order.created_at: expected an ISO-8601 datetime/);
  });

  it('parse socket.io-style depth keyed "0","1" with float-artifact sums exactly', () => {
    const levels = parseBookLevels(loadSample('ws_socketio_sellDepth_Broadcaster_data__api-docs-wallex-ir-crawl.txt'), 'sell');
    expect(levels[0]?.price.toFixed()).toBe('31695');
    expect(levels[0]?.quantity.toFixed()).toBe('214.86');
    expect(() => parseBookLevels({ a: { price: 1, quantity: 1 } }, 'ask')).toThrow(/ask: expected an array or an object keyed/);
  });

  it('parse the marketCap stream statistics', () => {
    const s = parseMarketStats(loadSample('ws_socketio_marketCap_Broadcaster_data__api-docs-wallex-ir-crawl.json'));
    expect(s.lastPrice).toBeDefined();
    expect(s.change24h?.toFixed()).toBe('-1.24');
  });

  it('are strict about dangerous fields of an order', () => {
    const base = { symbol: 'BTCTMN', type: 'LIMIT', side: 'BUY', clientOrderId: 'a', price: '1', origQty: '1', executedQty: '0', status: 'NEW', active: true };
    expect(parseSpotOrder(base).price.toFixed()).toBe('1');
    for (const k of ['price', 'origQty', 'executedQty', 'status', 'active', 'side', 'clientOrderId'] as const) {
      const { [k]: _drop, ...rest } = base;
      expect(() => parseSpotOrder(rest, 'result')).toThrow(ResponseParseError);
      expect(() => parseSpotOrder(rest, 'result')).toThrow(new RegExp(`result\\.${k}`));
    }
    expect(() => parseSpotOrder({ ...base, price: 'abc' })).toThrow(/order.price: expected a number or numeric string, got "abc"/);
    expect(() => parseSpotOrder({ ...base, side: 'HOLD' })).toThrow(/order.side: expected BUY or SELL/);
  });

  it('merge a fee map written as an array and skip default/metaData', () => {
    const fees = parseFeeRates([{ BTCTMN: { makerFeeRate: '0.002', takerFeeRate: 0.0025 } }, { default: [], metaData: { levels: [0] } }]);
    expect(Object.keys(fees.markets)).toEqual(['BTCTMN']);
    expect(fees.markets.BTCTMN?.takerFeeRate.toFixed()).toBe('0.0025');
    expect(fees.metaData).toEqual({ levels: [0] });
  });

  it('parseCandles rejects an unknown status', () => {
    expect(() => parseCandles({ s: 'error', errmsg: 'x' })).toThrow(/candles.s: expected "ok" or "no_data"/);
    expect(parseCandles({ s: 'ok', t: [], o: [], h: [], l: [], c: [], v: [] })).toEqual([]);
  });

  it('unwrapResult unwraps {result: X} only when nothing else is beside it', () => {
    expect(unwrapResult({ result: { id: 1 } })).toEqual({ id: 1 });
    expect(unwrapResult({ result: { id: 1 }, success: true })).toEqual({ id: 1 });
    expect(unwrapResult({ result: 'x', id: 2 })).toEqual({ result: 'x', id: 2 });
  });

  it('the sample loader keeps number literals as written and turns `[ "k": v ]` into a map', () => {
    expect(normalizeSample('{"q": 1e-06, "s": 250000000.00, // note\n "a": [1, 2, ...], "m": [ "X": {"v": 1}, ], ...}')).toBe(
      '{"q":1e-06,"s":250000000.00,"a":[1,2],"m":{"X":{"v":1}}}',
    );
  });
});
