import { describe, expect, it } from 'vitest';
import { parseHftLine } from '../../../src/sim/replay/hft-parse.js';

const TICKER =
  '{"stream":"btcusdt@bookTicker","data":{"u":50093239212,"s":"BTCUSDT","b":"61837.63000000","B":"3.78826000","a":"61837.64000000","A":"1.54698000"}}';

describe('parseHftLine: book tickers (recognised without JSON.parse)', () => {
  it('a book ticker line is `other`, with its receive time', () => {
    expect(parseHftLine('f', 1, `1723161254087891268 ${TICKER}`)).toEqual({ type: 'other', localNs: '1723161254087891268' });
  });

  it('a book ticker that is not valid JSON still throws, naming the line', () => {
    for (const bad of [TICKER.slice(0, -1), TICKER.replace('"u":5', '"u":05'), TICKER.replace('}}', '},}'), TICKER.replace('"BTCUSDT"', '"BTC\u0001USDT"')]) {
      expect(() => parseHftLine('cap.gz', 7, `1 ${bad}`)).toThrow('cap.gz, line 7: invalid JSON');
    }
  });

  it('a line of another shape is parsed as JSON, as before', () => {
    // An escaped quote, another key order, a depth stream named like a ticker: JSON decides.
    expect(parseHftLine('f', 1, `1 ${TICKER.replace('"BTCUSDT"', '"BTC\\"USDT"')}`)).toEqual({ type: 'other', localNs: '1' });
    expect(parseHftLine('f', 1, '1 {"data":{"u":1},"stream":"btcusdt@bookTicker"}')).toEqual({ type: 'other', localNs: '1' });
    expect(() => parseHftLine('f', 1, `1 ${TICKER.replace('btcusdt@', 'btcusdt@depth@')}`)).toThrow('depth diff without U/u');
  });
});
