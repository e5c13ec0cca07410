import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ParameterError, ResponseParseError } from '../../../src/core/errors.js';
import { startSampleServer, type SampleServer } from '../../support/sample-server.js';
import { makeClient } from './helpers.js';
import { activeMarketsBody } from './fixtures.js';

let server: SampleServer;
beforeAll(async () => {
  server = await startSampleServer();
});
afterAll(async () => server.stop());
beforeEach(() => server.reset());

describe('public market data', () => {
  it('getMarkets parses both sample variants (quotePrecision, numeric and string stats)', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/markets', { sample: 'rest_v1_markets__api-docs-wallex-ir-crawl.txt' });
    const [btcusdt] = await client.getMarkets();
    expect(btcusdt?.symbol).toBe('BTCUSDT');
    expect(btcusdt?.quoteAssetPrecision).toBe(8);
    expect(btcusdt?.stepSize).toBe(6);
    expect(btcusdt?.tickSize).toBe(2);
    expect(btcusdt?.minQty.toFixed()).toBe('0.000001');
    expect(btcusdt?.maxQty).toBeUndefined();
    expect(btcusdt?.stats?.lastPrice?.toFixed()).toBe('20991.43');
    expect(btcusdt?.stats?.change24h?.toFixed()).toBe('-0.04');
    expect(btcusdt?.stats?.directionBuy).toBe(49);
    expect(btcusdt?.stats?.lastTradeSide).toBe('BUY');
    expect(btcusdt?.createdAt).toBe('2020-04-01T00:00:00.000000Z');
    // public: no key sent
    expect(server.received('GET', '/v1/markets')[0]?.headers['x-api-key']).toBeUndefined();

    server.route('GET', '/v1/markets', { sample: 'rest_v1_markets__phinix-docs-en-2022.txt' });
    const [btctmn] = await client.getMarkets();
    expect(btctmn?.quoteAssetPrecision).toBe(0);
    expect(btctmn?.tickSize).toBe(0);
    expect(btctmn?.maxQty?.toFixed()).toBe('100000');
    expect(btctmn?.minNotional.toFixed()).toBe('100000');
    expect(btctmn?.stats?.change24h?.toFixed()).toBe('-3.04');
    expect(btctmn?.stats?.bidPrice?.toFixed()).toBe('1323000001');
  });

  it('getCurrencyStats parses plain-number analytics', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/currencies/stats', { sample: 'rest_v1_currencies_stats__api-docs-wallex-ir-crawl.txt' });
    const [btc] = await client.getCurrencyStats();
    expect(btc?.key).toBe('BTC');
    expect(btc?.nameEn).toBe('BITCOIN');
    expect(btc?.rank).toBe(1);
    expect(btc?.percentChange['24h']).toBe(-1.92522);
    expect(btc?.priceChange['1y']).toBe(3076.480189637);
    expect(btc?.maxSupply).toBe(21000000);
  });

  it('getDepth turns a price string and a numeric price into exact Decimals', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/depth', { sample: 'rest_v1_depth__api-docs-wallex-ir-crawl.txt' });
    const book = await client.getDepth('BTCUSDT');
    expect(server.received('GET', '/v1/depth')[0]?.query).toEqual({ symbol: 'BTCUSDT' });
    expect(book.symbol).toBe('BTCUSDT');
    expect(book.asks[0]?.price.toFixed()).toBe('21300');
    expect(book.asks[0]?.price.eq('21300.0000000000000000')).toBe(true);
    expect(book.bids[1]?.quantity.toFixed()).toBe('0.001472');
    expect(book.bids[0]?.quantity.toFixed()).toBe('0.000001'); // 1e-06 in the payload
    expect(book.bids[0]?.sum?.toFixed()).toBe('0.0211');

    server.route('GET', '/v1/depth', { sample: 'rest_v1_depth_XRPUSDT_numeric_price__persian-doc-scrape.txt' });
    const xrp = await client.getDepth('XRPUSDT');
    expect(xrp.asks[0]?.price.toFixed()).toBe('3.51436');
    expect(xrp.bids.map((l) => l.price.toFixed())).toEqual(['3.5003', '3.50011', '3.5001']);
    expect(xrp.asks[0]?.quantity.toFixed()).toBe('262.3');

    server.route('GET', '/v1/depth', { sample: 'rest_v1_depth__phinix-docs-en-2022.json' });
    const tmn = await client.getDepth('BTCTMN');
    expect(tmn.asks[1]?.quantity.toFixed()).toBe('0.694331');
    expect(tmn.asks[0]?.sum).toBeUndefined();
  });

  it('getDepth accepts levels as an object keyed "0","1",… and sorts each side', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/depth', {
      body: {
        success: true,
        result: {
          ask: { '1': { price: '31700', quantity: 2 }, '0': { price: '31695.0000000000000000', quantity: 214.86, sum: 6809987.7 } },
          bid: { '0': { price: 31600, quantity: '1' }, '1': { price: '31650', quantity: '3' } },
        },
      },
    });
    const book = await client.getDepth('USDTTMN');
    expect(book.asks.map((l) => l.price.toFixed())).toEqual(['31695', '31700']);
    expect(book.bids.map((l) => l.price.toFixed())).toEqual(['31650', '31600']);
    expect(book.asks[0]?.sum?.toFixed()).toBe('6809987.7');
  });

  it('getAllDepth maps every symbol, `{ ... }` placeholders giving empty books', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v2/depth/all', { sample: 'rest_v2_depth_all__api-docs-wallex-ir-crawl.txt' });
    const all = await client.getAllDepth();
    expect(Object.keys(all)).toEqual(['BTCUSDT', 'SHIBUSDT', 'USDTTMN']);
    expect(all.BTCUSDT?.asks[1]?.price.toFixed()).toBe('21400');
    expect(all.SHIBUSDT?.asks).toEqual([]);
  });

  it('getTrades parses the tape with millisecond timestamps', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/trades', { sample: 'rest_v1_trades__api-docs-wallex-ir-crawl.txt' });
    const trades = await client.getTrades('BTCUSDT');
    expect(trades).toHaveLength(2);
    expect(trades[0]?.quantity.toFixed()).toBe('0.000001');
    expect(trades[1]?.sum?.toFixed()).toBe('2533.3082');
    expect(trades[0]?.isBuyOrder).toBe(true);
    expect(trades[0]?.timestamp).toBe(Date.UTC(2022, 5, 17, 11, 53, 2));
  });

  it('getCandles sends the query and parses all three sample variants and no_data', async () => {
    const { client } = makeClient(server);
    const q = { symbol: 'BTCTMN', resolution: '60' as const, from: 1654351200, to: 1654358400 };
    server.route('GET', '/v1/udf/history', { sample: 'rest_v1_udf_history__api-docs-wallex-ir-crawl.txt' });
    const candles = await client.getCandles(q);
    expect(server.received('GET', '/v1/udf/history')[0]?.query).toEqual({ symbol: 'BTCTMN', resolution: '60', from: '1654351200', to: '1654358400' });
    expect(candles).toHaveLength(2);
    expect(candles[0]).toMatchObject({ time: 1654351200 });
    expect(candles[0]?.open.toFixed()).toBe('950625912');
    expect(candles[1]?.close.toFixed()).toBe('960015360');
    expect(candles[0]?.volume.toFixed()).toBe('0.23144');

    server.route('GET', '/v1/udf/history', { sample: 'rest_v1_udf_history__phinix-docs-en-2022.json' });
    expect((await client.getCandles(q))[0]?.volume.toFixed()).toBe('8.3238723141');
    server.route('GET', '/v1/udf/history', { sample: 'rest_v1_udf_history_comment__navid-fn-radar.txt' });
    expect((await client.getCandles(q))[1]?.low.toFixed()).toBe('7150000001');
    server.route('GET', '/v1/udf/history', { body: { s: 'no_data' } });
    expect(await client.getCandles(q)).toEqual([]);
    server.route('GET', '/v1/udf/history', { body: { s: 'ok', t: [1, 2], o: ['1'], h: ['1'], l: ['1'], c: ['1'], v: ['1'] } });
    await expect(client.getCandles(q)).rejects.toThrow(ResponseParseError);
  });

  it('getCandles validates before sending', async () => {
    const { client } = makeClient(server);
    const base = { symbol: 'BTCTMN', resolution: '60' as const, from: 100, to: 200 };
    await expect(client.getCandles({ ...base, from: 200, to: 100 })).rejects.toThrow(/invalid from: 200 \(earlier than to/);
    await expect(client.getCandles({ ...base, resolution: '5' as never })).rejects.toThrow(/invalid resolution: "5"/);
    await expect(client.getCandles({ ...base, symbol: 'btc-tmn' })).rejects.toThrow(ParameterError);
    await expect(client.getCandles({ ...base, to: 1_700_000_000_000 })).rejects.toThrow(/not milliseconds/);
    expect(server.requests).toHaveLength(0);
  });

  it('getActiveMarkets parses the hector list (payload under result, flags)', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/hector/web/v1/markets', { body: activeMarketsBody });
    const [m] = await client.getActiveMarkets();
    expect(m?.symbol).toBe('BTCTMN');
    expect(m?.isSpot).toBe(true);
    expect(m?.isMargin).toBe(false);
    expect(m?.categories).toEqual([1, 4]);
    expect(m?.price?.toFixed()).toBe('6543210000');
    expect(m?.leverageStep).toBeUndefined();
    expect(m?.amountPrecision).toBe(6);
  });
});
