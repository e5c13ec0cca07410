/**
 * Fields other clients read that the simulator used to leave out: `is_market_type_enable` in
 * `/hector/web/v1/markets`, the icons and flags of `/v1/account/balances`, `bank_details` of
 * `/v1/account/card-numbers`. mizan's REST client against the simulator over HTTP; the answers
 * checked against the documentation samples (test/fixtures/exchange-samples, see SOURCES.md).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { loadSample, readSampleText } from '../../support/samples.js';
import { shapeDiff, startFullSim } from './contract.js';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

const DOC = 'doc_hector_markets_and_balances_schema__developers-wallex-ir.txt';

/** The balance fields the main-wallet page lists (`"1BBABYDOGE": { "asset", … }`). */
function documentedBalanceFields(): string[] {
  const inner = /"1BBABYDOGE": \{([^}]*)\}/.exec(readSampleText(DOC))?.[1];
  if (!inner) throw new Error('the balances line of the documentation sample is not where it was');
  return [...inner.matchAll(/"([a-z_A-Z]+)"/g)].map((m) => m[1]!);
}

describe('fields the documentation shows and other clients read', () => {
  it('/hector/web/v1/markets: every documented field and is_market_type_enable; the client parses it', async () => {
    const h = await startFullSim();
    stop = h.stop;
    const raw = await h.call('GET', '/hector/web/v1/markets', { key: null });
    const doc = readSampleText(DOC);
    const sample = loadSample(DOC) as { result: { markets: unknown[] } };
    expect(shapeDiff({ markets: sample.result.markets }, raw.result, '$.result', { types: false })).toEqual([]);
    expect(doc).toContain('"is_market_type_enable" (bool)');
    const markets = (raw.result as { markets: Record<string, unknown>[] }).markets;
    for (const m of markets) expect(m.is_market_type_enable).toBe(true);
    const parsed = await h.client.getActiveMarkets();
    expect(parsed.map((m) => m.symbol)).toContain('BTCUSDT');
  });

  it('/v1/account/balances: asset_png_icon, asset_svg_icon, is_dust, is_digital_gold; the client parses it', async () => {
    const h = await startFullSim();
    stop = h.stop;
    // A BTC amount under the smallest BTC order quantity is dust.
    const dust = await h.call('POST', '/__sim/accounts', { key: null, body: { id: 'dusty', balances: { BTC: '0.0000001', USDT: '10' } } });
    const apiKey = (dust.result as { apiKey: string }).apiKey;
    const raw = await h.call('GET', '/v1/account/balances', { key: apiKey });
    const fields = documentedBalanceFields();
    expect(fields).toEqual(['asset', 'asset_png_icon', 'asset_svg_icon', 'faName', 'fiat', 'value', 'locked', 'is_dust', 'is_digital_gold']);
    const balances = (raw.result as { balances: Record<string, Record<string, unknown>> }).balances;
    for (const b of Object.values(balances)) expect(Object.keys(b)).toEqual(expect.arrayContaining(fields));
    expect([balances.BTC!.is_dust, balances.USDT!.is_dust, balances.BTC!.is_digital_gold]).toEqual([true, false, false]);
    expect(shapeDiff(loadSample('rest_v1_account_balances__api-docs-wallex-ir-crawl.txt'), raw.json)).toEqual([]);
    const { WallexRestClient } = await import('../../../src/exchange/rest/client.js');
    const client = new WallexRestClient({ baseUrl: h.server.url, apiKey, retries: 0 });
    expect((await client.getBalances()).BTC!.value.eq(d('0.0000001'))).toBe(true);
    client.close();
  });

  it('/v1/account/card-numbers: bank_details like the IBAN entries; the client parses it', async () => {
    const h = await startFullSim();
    stop = h.stop;
    const raw = await h.call('GET', '/v1/account/card-numbers');
    const cards = raw.result as Record<string, unknown>[];
    expect(cards[0]!.bank_details).toEqual({ code: 'BMI', label: 'بانک ملی', is_available: true });
    const ibans = (await h.call('GET', '/v1/account/ibans')).result as Record<string, unknown>[];
    expect(Object.keys(cards[0]!.bank_details as object)).toEqual(Object.keys(ibans[0]!.bank_details as object));
    const parsed = await h.client.getBankCards();
    expect(parsed[0]).toMatchObject({ status: 'ACCEPTED', isDefault: true });
  });
});
