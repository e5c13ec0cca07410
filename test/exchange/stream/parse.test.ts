import { describe, it, expect } from 'vitest';
import {
  StreamPayloadError,
  parseDepth,
  parseMarketStats,
  parsePriceTicks,
  parseTimestamp,
  parseTrade,
  createParseCaches,
} from '../../../src/exchange/stream/parse.js';
import { DecimalCache } from '../../../src/exchange/stream/decimal-cache.js';
import { ResponseParseError } from '../../../src/core/errors.js';
import { loadSample } from './samples.js';

const str = (levels: { price: { toString(): string }; quantity: { toString(): string }; sum?: { toString(): string } }[]) =>
  levels.map((l) => [l.price.toString(), l.quantity.toString(), l.sum?.toString()]);

describe('parseDepth', () => {
  it('reads the socket.io object keyed "0", "1", … with string prices and cleans float sums', () => {
    const data = loadSample('ws_socketio_sellDepth_Broadcaster_data__api-docs-wallex-ir-crawl.txt');
    expect(str(parseDepth(data, true))).toEqual([
      ['31695', '214.86', '6809987.7'],
      ['31669', '331.55', '10499856.95'],
    ]);
    expect(parseDepth(data)[0]).not.toHaveProperty('sum');
  });

  it('reads the plain WebSocket array with numeric prices', () => {
    const [channel, data] = loadSample('ws_raw_buyDepth__developers-wallex-ir.json') as [string, unknown];
    expect(channel).toBe('USDTTMN@buyDepth');
    expect(str(parseDepth(data, true))).toEqual([
      ['82131', '255.75', '21005003.25'],
      ['82083', '103.07', '8460294.81'],
      ['82066', '139.05', '11411277.3'],
    ]);
    const [, btc] = loadSample('ws_raw_buyDepth_capture_50levels_trimmed__pipeline-notes.json') as [string, unknown];
    expect(parseDepth(btc).map((l) => l.quantity.toString())).toEqual(['0.000451', '0.02624', '0.068493']);
  });

  it('keeps quantities exact (shortest round-trip form of the JSON number)', () => {
    const item = loadSample('ws_socketio_buyDepth_item__phinix-docs-en-2022.json');
    const [level] = parseDepth({ 0: item }, true);
    expect(level!.price.toString()).toBe('1018259534');
    expect(level!.quantity.toString()).toBe('0.0058');
    expect(level!.sum!.toString()).toBe('5905905.2972');
    expect(parseDepth([{ price: '1e-06', quantity: 1e-7 }])[0]!.quantity.toFixed()).toBe('0.0000001');
  });

  it('accepts empty sides', () => {
    expect(parseDepth({})).toEqual([]);
    expect(parseDepth([])).toEqual([]);
  });

  it('rejects malformed payloads naming the field and value', () => {
    const cases: [unknown, RegExp][] = [
      [null, /depth: expected an object or array/],
      ['x', /depth: expected/],
      [{ 0: { price: 'abc', quantity: 1 } }, /depth\[0\]\.price.*"abc"/],
      [{ 0: { price: '1', quantity: 1 }, 1: { price: '2' } }, /depth\[1\]\.quantity.*missing/],
      [[{ price: 0, quantity: 1 }], /depth\[0\]\.price: expected a positive price/],
      [[{ price: 5, quantity: -1 }], /depth\[0\]\.quantity: expected a quantity >= 0/],
      [[5], /depth\[0\]: expected a level object/],
      [{ bids: [] }, /keyed "0"/],
    ];
    for (const [data, message] of cases) {
      let err: unknown;
      try {
        parseDepth(data);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(data)).toBeInstanceOf(StreamPayloadError);
      expect(err).toBeInstanceOf(ResponseParseError);
      expect((err as Error).message).toMatch(message);
    }
    expect(() => parseDepth([{ price: 1, quantity: 1, sum: 'x' }], true)).toThrow(/depth\[0\]\.sum/);
  });
});

describe('DecimalCache', () => {
  it('returns the same instance for a repeated value and validates new ones', () => {
    const cache = new DecimalCache(2);
    const a = cache.get('31695.0000000000000000', 'p');
    expect(cache.get('31695.0000000000000000', 'p')).toBe(a);
    expect(cache.get(1.5, 'q').toString()).toBe('1.5');
    expect(() => cache.get('NaN', 'p')).toThrow(/p: expected a number/);
    expect(() => cache.get(Infinity, 'q')).toThrow(/q/);
    cache.get('1', 'p');
    cache.get('2', 'p');
    expect(cache.size).toBeLessThanOrEqual(4);
  });

  // Issue #33: the stream client's caches held up to 4 × 50,000 parsed values (cleared when full),
  // ~8 MB a minute of a paper bot's heap growth until they were cleared.
  it('by default holds at most 8,192 strings, and a level price in use stays the same instance', () => {
    const caches = createParseCaches();
    const hot = caches.values.get('31695.0000000000000000', 'price');
    let max = 0;
    for (let i = 0; i < 100_000; i++) {
      caches.values.get(`${i}.12345678`, 'quantity');
      caches.sums.get(i + 0.5, 'sum');
      if (i % 1_000 === 0) expect(caches.values.get('31695.0000000000000000', 'price')).toBe(hot);
      max = Math.max(max, caches.values.size, caches.sums.size);
    }
    expect(max).toBeLessThanOrEqual(8_192);
  });
});

describe('parseTrade', () => {
  it('parses the sample trade: string amounts, ISO timestamp to ms', () => {
    const t = parseTrade('USDTTMN', loadSample('ws_socketio_trade_Broadcaster_data__api-docs-wallex-ir-crawl.json'));
    expect(t.symbol).toBe('USDTTMN');
    expect(t.price.toString()).toBe('31704');
    expect(t.quantity.toString()).toBe('705');
    expect(t.isBuyOrder).toBe(false);
    expect(t.timestamp).toBe(Date.UTC(2022, 5, 26, 11, 14, 9));
  });

  it('treats a trade without timestamp as malformed', () => {
    expect(() => parseTrade('BTCTMN', loadSample('ws_socketio_trade__phinix-docs-en-2022.txt'))).toThrow(/trade\.timestamp.*missing/);
    expect(() => parseTrade('X', { isBuyOrder: 'yes', price: '1', quantity: '1', timestamp: 0 })).toThrow(/isBuyOrder/);
    expect(() => parseTrade('X', [])).toThrow(/trade: expected an object/);
  });

  it('reads epoch seconds and milliseconds', () => {
    expect(parseTimestamp(1_700_000_000, 't')).toBe(1_700_000_000_000);
    expect(parseTimestamp(1_700_000_000_123, 't')).toBe(1_700_000_000_123);
    expect(() => parseTimestamp('yesterday', 't')).toThrow(/t: expected an ISO timestamp/);
  });
});

describe('parseMarketStats', () => {
  it('maps the marketCap sample to MarketStats', () => {
    const s = parseMarketStats(loadSample('ws_socketio_marketCap_Broadcaster_data__api-docs-wallex-ir-crawl.json'));
    expect(s.lastPrice!.toString()).toBe('31653');
    expect(s.bidPrice!.toString()).toBe('31653');
    expect(s.askPrice!.toString()).toBe('31704');
    expect(s.change24h!.toString()).toBe('-1.24');
    expect(s.change7d!.toString()).toBe('-2.05');
    expect(s.quoteVolume24h!.toString()).toBe('27493903077.36');
    expect(s.lastQty!.toString()).toBe('94.09');
    expect(s.bidCount).toBe(345);
    expect(s.askCount).toBe(378);
    expect(s.directionBuy).toBe(42);
    expect(s.directionSell).toBe(58);
    expect(s.lastTradeSide).toBe('BUY');
    expect(s.createdAt).toBe('2020-10-01T00:00:00.000000Z');
  });

  it('accepts socket: null and rejects a bad field', () => {
    expect(parseMarketStats({ socket: null, lastPrice: 1 }).lastPrice!.toString()).toBe('1');
    expect(() => parseMarketStats({ lastPrice: 'n/a' })).toThrow(/marketCap\.lastPrice.*"n\/a"/);
    expect(() => parseMarketStats({ lastTradeSide: 'UP' })).toThrow(/lastTradeSide/);
    expect(() => parseMarketStats('x')).toThrow(/marketCap: expected an object/);
  });
});

describe('parsePriceTicks', () => {
  it('parses all@price objects and arrays', () => {
    const [, data] = loadSample('ws_raw_all_price__developers-wallex-ir.json') as [string, unknown];
    const [tick] = parsePriceTicks(data);
    expect(tick!.symbol).toBe('PEPEUSDT');
    expect(tick!.price.toFixed()).toBe('0.00001136');
    expect(tick!.change24h!.toString()).toBe('1.15');
    expect(parsePriceTicks([data, { symbol: 'btcusdt', price: 1 }]).map((t) => t.symbol)).toEqual(['PEPEUSDT', 'BTCUSDT']);
    expect(() => parsePriceTicks({ price: 1 })).toThrow(/price\.symbol/);
    expect(() => parsePriceTicks([{ symbol: 'A', price: null }])).toThrow(/price\[0\]\.price/);
  });
});
