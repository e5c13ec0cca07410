/**
 * Contract of the public candles and trades, and of the cancel by query, as the documentation
 * writes them: mizan's REST client against the simulator over HTTP; the simulator's answers checked
 * against the documented samples (test/fixtures/exchange-samples, sources in its SOURCES.md).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { parseCandles, parseSpotOrder } from '../../../src/exchange/parse/index.js';
import { CANDLE_DEFAULTS } from '../../../src/sim/wire/routes/public.js';
import { loadSample, readSampleText } from '../../support/samples.js';
import { shapeDiff } from './contract.js';
import { startSim } from './harness.js';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

const candle = (time: number, close: string) => ({ time, open: d(close), high: d(close), low: d(close), close: d(close), volume: d('1') });

describe('GET /v1/udf/history: every parameter optional', () => {
  it('the documentation marks symbol, resolution, from and to optional', () => {
    const rows = readSampleText('doc_udf_history_resolutions__developers-wallex-ir.txt')
      .split('\n')
      .filter((l) => /^\| (symbol|resolution|from|to) \|/.test(l));
    expect(rows).toHaveLength(4);
    for (const r of rows) expect(r).toContain('| Optional |');
    expect(CANDLE_DEFAULTS).toEqual({ symbol: 'BTCUSDT', resolution: '15', spanSeconds: 3600 });
  });

  it('answers with the defaults (BTCUSDT, 15, the last hour) when none is sent, in the documented body', async () => {
    const h = await startSim();
    stop = () => h.server.close();
    const now = Math.floor(h.clock.now() / 1000);
    const start = now - (now % 900) - 7200;
    h.sim.setCandles(
      'BTCUSDT',
      Array.from({ length: 12 }, (_, i) => candle(start + i * 900, String(62000 + i))),
    );
    h.sim.setCandles('USDTTMN', [candle(start, '82000')]);
    const res = await fetch(`${h.server.url}/v1/udf/history`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as unknown;
    expect(shapeDiff(loadSample('rest_v1_udf_history__api-docs-wallex-ir-crawl.txt'), body)).toEqual([]);
    const got = parseCandles(body);
    expect(got.length).toBeGreaterThan(0);
    expect(got.every((c) => c.time >= now - 3600 && c.time <= now)).toBe(true);
    expect(got.at(-1)!.close.toFixed()).toBe(String(62000 + 8));
    // `from` alone runs to now; `symbol` alone keeps the other defaults.
    const fromOnly = parseCandles(await (await fetch(`${h.server.url}/v1/udf/history?resolution=60&from=${start}`)).json());
    expect(fromOnly.map((c) => c.time)).toEqual([start, start + 3600, start + 7200].filter((t) => t <= now));
    const other = parseCandles(await (await fetch(`${h.server.url}/v1/udf/history?symbol=USDTTMN&from=${start}`)).json());
    expect(other.map((c) => c.close.toFixed())).toEqual(['82000']);
    // The client still sends all four, and gets the same candles.
    const viaClient = await new (await import('../../../src/exchange/rest/client.js')).WallexRestClient({ baseUrl: h.server.url }).getCandles({
      symbol: 'BTCUSDT',
      resolution: '15',
      from: now - 3600,
      to: now,
    });
    expect(viaClient.map((c) => c.time)).toEqual(got.map((c) => c.time));
  });

  it('still refuses a bad value, naming the parameter', async () => {
    const h = await startSim();
    stop = () => h.server.close();
    for (const [query, field] of [
      ['resolution=7', 'resolution'],
      ['from=abc', 'from'],
      ['from=100&to=50', 'to'],
      ['symbol=NOPE', 'symbol'],
    ] as const) {
      const r = await h.call('GET', `/v1/udf/history?${query}`, { key: null });
      expect([r.status, Object.keys(r.result as object)]).toEqual([422, [field]]);
    }
  });
});

describe('GET /v1/trades: symbol optional', () => {
  it('without a symbol lists the latest trades of every market, newest first; the client reads both forms', async () => {
    const h = await startSim();
    stop = () => h.server.close();
    await h.call('POST', '/v1/account/orders', { body: { symbol: 'ETHUSDT', side: 'SELL', type: 'MARKET', quantity: '0.5', client_id: 't1' } });
    h.clock.advance(1000);
    await h.call('POST', '/v1/account/orders', { body: { symbol: 'USDTTMN', side: 'BUY', type: 'MARKET', quantity: '10', client_id: 't2' } });
    const raw = await h.call('GET', '/v1/trades', { key: null });
    expect(raw.status).toBe(200);
    expect(shapeDiff(loadSample('rest_v1_trades__api-docs-wallex-ir-crawl.txt'), raw.json)).toEqual([]);
    const { WallexRestClient } = await import('../../../src/exchange/rest/client.js');
    const client = new WallexRestClient({ baseUrl: h.server.url });
    const all = await client.getTrades();
    expect(new Set(all.map((t) => t.symbol))).toEqual(new Set(['ETHUSDT', 'USDTTMN']));
    expect(all[0]!.symbol).toBe('USDTTMN');
    expect(all.map((t) => t.timestamp)).toEqual([...all.map((t) => t.timestamp)].sort((a, b) => b - a));
    expect((await client.getTrades('ETHUSDT')).every((t) => t.symbol === 'ETHUSDT')).toBe(true);
    client.close();
  });
});

describe('DELETE /v1/account/orders?clientOrderId= (and clientOrderID)', () => {
  it('cancels by the documented spelling and by the one the exchange JS client sends', async () => {
    const h = await startSim();
    stop = () => h.server.close();
    expect(readSampleText('rest_v1_account_orders_cancel_REQUEST__api-docs-wallex-ir-crawl.txt')).toContain('/v1/account/orders?clientOrderId=');
    for (const id of ['q_doc', 'q_js']) {
      await h.call('POST', '/v1/account/orders', { body: { symbol: 'USDTTMN', side: 'BUY', type: 'LIMIT', price: '80000', quantity: '2', client_id: id } });
    }
    const documented = await h.call('DELETE', '/v1/account/orders?clientOrderId=q_doc');
    const jsClient = await h.call('DELETE', '/v1/account/orders?clientOrderID=q_js');
    for (const r of [documented, jsClient]) {
      expect(r.status).toBe(200);
      expect(parseSpotOrder(r.result, 'result')).toMatchObject({ status: 'CANCELED', active: false });
    }
    const none = await h.call('DELETE', '/v1/account/orders');
    expect([none.status, Object.keys(none.result as object)]).toEqual([422, ['clientOrderId']]);
  });
});
