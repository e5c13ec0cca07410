/**
 * Contract of the spot order history, `GET /v1/account/orders` (issue #35 item 4): mizan's REST
 * client against the simulator over HTTP, the answer checked against the documented order list
 * sample (test/fixtures/exchange-samples/rest_v1_account_openOrders__api-docs-wallex-ir-crawl.txt,
 * the same order records) and every documented query parameter
 * (doc_spot_create_order__developers-wallex-ir.txt, "spot-order-list") sent by the client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ParameterError } from '../../../src/core/errors.js';
import { loadSample, readSampleText } from '../../support/samples.js';
import { shapeDiff, startFullSim } from './contract.js';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

const LIST_SAMPLE = 'rest_v1_account_openOrders__api-docs-wallex-ir-crawl.txt';

function documentedParams(): string[] {
  const line = readSampleText('doc_spot_create_order__developers-wallex-ir.txt')
    .split('\n')
    .find((l) => l.startsWith('GET /v1/account/orders '))!;
  return line
    .replace(/^.*query:/, '')
    .replace(/\([^)]*\)/g, '')
    .split(',')
    .map((s) => s.trim());
}

describe('spot order history', () => {
  it('serves the documented shape and the client reads it with every documented filter', async () => {
    expect(documentedParams()).toEqual(['from', 'to', 'page', 'per_page', 'type', 'side', 'market']);
    const h = await startFullSim();
    stop = h.stop;
    for (const [i, q] of ['2', '3', '4'].entries()) {
      await h.call('POST', '/v1/account/orders', {
        body: { symbol: 'USDTTMN', side: 'BUY', type: 'LIMIT', price: '50000', quantity: q, client_id: `hist${i}` },
      });
    }
    await h.call('POST', '/v1/account/orders', {
      body: { symbol: 'BTCUSDT', side: 'SELL', type: 'LIMIT', price: '90000', quantity: '0.001', client_id: 'hist_btc' },
    });
    await h.client.cancelOrder('hist0');

    const raw = await h.call('GET', '/v1/account/orders?per_page=2');
    expect(shapeDiff((loadSample(LIST_SAMPLE) as { result: unknown }).result, raw.result)).toEqual([]);
    expect((raw.json as { result_info: unknown }).result_info).toEqual({ page: 1, per_page: 2, count: 2, total_count: 4 });

    const all = await h.client.getOrderHistory();
    expect(all.items.map((o) => [o.clientOrderId, o.status])).toEqual([
      ['hist_btc', 'NEW'],
      ['hist2', 'NEW'],
      ['hist1', 'NEW'],
      ['hist0', 'CANCELED'],
    ]);
    const page2 = await h.client.getOrderHistory({ market: 'USDTTMN', page: 2, perPage: 2 });
    expect(page2.items.map((o) => o.clientOrderId)).toEqual(['hist0']);
    expect(page2.pageInfo).toEqual({ page: 2, perPage: 2, count: 1, totalCount: 3 });
    expect((await h.client.getOrderHistory({ side: 'SELL' })).items.map((o) => o.clientOrderId)).toEqual(['hist_btc']);
    expect((await h.client.getOrderHistory({ type: 'MARKET' })).items).toEqual([]);
    const today = new Date(h.clock.now()).toISOString().slice(0, 10);
    expect((await h.client.getOrderHistory({ from: today, to: new Date(h.clock.now()) })).items).toHaveLength(4);
    expect((await h.client.getOrderHistory({ from: h.clock.now() + 86_400_000 })).items).toEqual([]);
    expect((await h.client.getOrderHistory({ to: '2024-01-01' })).items).toEqual([]);
  });

  it('refuses bad filters before sending, naming the field; needs a key', async () => {
    const h = await startFullSim();
    stop = h.stop;
    await expect(h.client.getOrderHistory({ from: '1 Oct' })).rejects.toThrow(ParameterError);
    await expect(h.client.getOrderHistory({ from: '1 Oct' })).rejects.toThrow(/from/);
    await expect(h.client.getOrderHistory({ side: 'buy' as 'BUY' })).rejects.toThrow(/side/);
    await expect(h.client.getOrderHistory({ perPage: 0 })).rejects.toThrow(/perPage/);
    expect((await h.call('GET', '/v1/account/orders', { key: null })).status).toBe(401);
  });
});
