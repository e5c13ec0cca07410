import { describe, it, expect } from 'vitest';
import { cleanChannel, marketChannels, parseChannel, stripChannel } from '../../../src/exchange/stream/channels.js';
import { ParameterError } from '../../../src/core/errors.js';

describe('channel names', () => {
  it('strips the invisible U+064E mark copied from the Persian documentation', () => {
    const raw = 'USDTTMN@buy\u064EDepth';
    expect(raw.length).toBe('USDTTMN@buyDepth'.length + 1);
    expect(cleanChannel(raw)).toBe('USDTTMN@buyDepth');
    expect(stripChannel('\u200f BTCUSDT @trade\n')).toBe('BTCUSDT@trade');
  });

  it('parses kind, symbol and side, and normalises case', () => {
    expect(parseChannel('btcusdt@selldepth')).toEqual({ channel: 'BTCUSDT@sellDepth', kind: 'depth', symbol: 'BTCUSDT', side: 'ask' });
    expect(parseChannel('BTCTMN@buyDepth')).toMatchObject({ kind: 'depth', side: 'bid' });
    expect(parseChannel('BTCTMN@trade')).toEqual({ channel: 'BTCTMN@trade', kind: 'trade', symbol: 'BTCTMN' });
    expect(parseChannel('USDTTMN@marketCap')).toMatchObject({ kind: 'marketCap', symbol: 'USDTTMN' });
    expect(parseChannel('all@price')).toEqual({ channel: 'all@price', kind: 'price', symbol: 'all' });
    expect(parseChannel('ALL@PRICE').channel).toBe('all@price');
  });

  it('rejects unknown channels with a final ParameterError naming the value', () => {
    for (const bad of ['USDTTMN@sellbuyDepth', 'BTCUSDT', '@trade', 'BTC-USDT@trade', 'a@b@trade', 'all@trade', 'X@trade', '']) {
      let err: unknown;
      try {
        parseChannel(bad);
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(ParameterError);
      expect((err as ParameterError).retryable).toBe(false);
      expect((err as Error).message).toContain('channel');
      expect((err as Error).message).toContain(JSON.stringify(bad));
    }
    expect(() => parseChannel(42)).toThrow(ParameterError);
  });

  it('builds the channels of a market', () => {
    expect(marketChannels('btcusdt')).toEqual(['BTCUSDT@buyDepth', 'BTCUSDT@sellDepth']);
    expect(marketChannels('BTCTMN', { depth: false, trade: true, marketCap: true })).toEqual(['BTCTMN@trade', 'BTCTMN@marketCap']);
  });
});
