/**
 * Contract of the instant-order markets and the two documented create routes: mizan's REST client
 * against the simulator over HTTP, the answers checked against the exchange's documentation samples
 * (test/fixtures/exchange-samples, sources in its SOURCES.md).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { parseInstantOrder, parseOtcMarkets } from '../../../src/exchange/parse/index.js';
import { loadSample, readSampleText } from '../../support/samples.js';
import { shapeDiff, startFullSim } from './contract.js';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** The fields the current otc-markets page lists for each market (`"USDTTMN": {symbol, …}`). */
function documentedOtcFields(): string[] {
  const line = readSampleText('doc_otc_easy_trade__developers-wallex-ir.txt')
    .split('\n')
    .find((l) => l.startsWith('GET /v1/otc/markets'));
  const inner = /"USDTTMN": \{(.*)\}\)/.exec(line ?? '')?.[1];
  if (!inner) throw new Error('the otc-markets line of the documentation sample is not where it was');
  return inner
    .replace(/\{[^}]*\}/g, '')
    .split(',')
    .map((f) => f.trim());
}

describe('GET /v1/otc/markets', () => {
  it('answers result keyed by symbol with every field of the current page, and the client reads it', async () => {
    const h = await startFullSim();
    stop = h.stop;
    const raw = await h.call('GET', '/v1/otc/markets', { key: null });
    expect(raw.status).toBe(200);
    const result = raw.result as Record<string, Record<string, unknown>>;
    expect(Object.keys(result).sort()).toEqual(['BTCTMN', 'BTCUSDT', 'ETHTMN', 'ETHUSDT', 'USDTTMN']);
    const fields = documentedOtcFields();
    expect(fields).toEqual([
      'symbol',
      'baseAsset',
      'quoteAsset',
      'faName',
      'enName',
      'minQty',
      'minNotional',
      'maxNotional',
      'stats',
      'buyStatus',
      'sellStatus',
      'exchangeStatus',
    ]);
    for (const entry of Object.values(result)) {
      expect(Object.keys(entry)).toEqual(expect.arrayContaining(fields));
      expect(Object.keys(entry.stats as object)).toEqual(expect.arrayContaining(['24h_ch', 'lastPrice']));
    }
    const markets = await h.client.getOtcMarkets();
    const usdt = markets.find((m) => m.symbol === 'USDTTMN')!;
    expect(usdt).toMatchObject({ baseAsset: 'USDT', quoteAsset: 'TMN', exchangeStatus: 'ENABLE', canBuy: true, canSell: true });
    expect(usdt.lastPrice!.toFixed()).toBe('82100');
    expect(usdt.minNotional!.toFixed()).toBe('100000');
  });

  it('the client also reads the older documented shape (result.symbols)', () => {
    const sample = loadSample('rest_v1_otc_markets__api-docs-wallex-ir-crawl.txt') as { result: unknown };
    const [m] = parseOtcMarkets(sample.result);
    expect(m).toMatchObject({ symbol: 'BTCUSDT', stepSize: 6, tickSize: 2, canBuy: true, canSell: true });
    expect([m!.minQty!.toFixed(), m!.maxNotional!.toFixed(), m!.lastPrice!.toFixed()]).toEqual(['0.000001', '500', '20353.33']);
    expect(m!.exchangeStatus).toBeUndefined();
  });

  it('a market whose exchange status is not ENABLE can be neither bought nor sold', () => {
    const [m] = parseOtcMarkets({ BTCUSDT: { symbol: 'BTCUSDT', buyStatus: 'ENABLE', sellStatus: 'ENABLE', exchangeStatus: 'DISABLE' } });
    expect([m!.canBuy, m!.canSell]).toEqual([false, false]);
  });
});

describe('instant-order create routes', () => {
  it('serves the older POST /v1/account/otc/orders {symbol, side, amount} in the documented envelope', async () => {
    const h = await startFullSim();
    stop = h.stop;
    const res = await h.call('POST', '/v1/account/otc/orders', { body: { symbol: 'BTCUSDT', side: 'BUY', amount: 0.01 } });
    expect(res.status).toBe(201);
    const sample = loadSample('rest_v1_account_otc_orders_create__api-docs-wallex-ir-crawl.json');
    expect(shapeDiff(sample, res.json)).toEqual([]);
    const order = parseInstantOrder(res.result);
    expect([order.status, order.origQty.toFixed(), order.active]).toEqual(['FILLED', '0.01', false]);
    expect(h.sim.balances(h.account.accountId).BTC!.value.gt(d('2'))).toBe(true);
  });

  it('names amount (the field that route takes) when refusing it', async () => {
    const h = await startFullSim();
    stop = h.stop;
    const missing = await h.call('POST', '/v1/account/otc/orders', { body: { symbol: 'BTCUSDT', side: 'BUY' } });
    expect([missing.status, Object.keys(missing.result as object)]).toEqual([422, ['amount']]);
    const small = await h.call('POST', '/v1/account/otc/orders', { body: { symbol: 'BTCUSDT', side: 'BUY', amount: '0.00001' } });
    expect(small.status).toBe(422);
    expect(small.result).toEqual({ amount: [expect.stringMatching(/^amount|order total/)] });
  });

  it('the client sends the current route (easy-trade) and parses the simulator answer', async () => {
    const h = await startFullSim();
    stop = h.stop;
    const order = await h.client.createInstantOrder({ symbol: 'USDTTMN', side: 'SELL', quantity: d('10') });
    expect([order.status, order.executedQty.toFixed()]).toEqual(['FILLED', '10']);
  });
});
