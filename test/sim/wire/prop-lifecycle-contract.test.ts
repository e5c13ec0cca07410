/**
 * Contract of the trading-credit lifecycle and the sub-accounts (issue #35 item 2): mizan's REST
 * client against the simulator over HTTP on 127.0.0.1, each answer parsed by the client's types and
 * the simulator's raw answer checked against the docs' sample (test/fixtures/exchange-samples, sources
 * in its SOURCES.md). Buying a package is stateful: it takes the assurance and opens a sub-account
 * with its own key and balance; transfers move the main account's money to it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ParameterError, ValidationError } from '../../../src/core/errors.js';
import { WallexRestClient } from '../../../src/exchange/rest/client.js';
import { loadSample } from '../../support/samples.js';
import { shapeDiff, startFullSim } from './contract.js';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function sim() {
  const h = await startFullSim();
  stop = h.stop;
  const raw = async (method: string, path: string, o: { body?: unknown; sub?: string } = {}) => {
    const headers: Record<string, string> = { 'x-api-key': h.account.apiKey };
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    if (o.sub) headers['sub-account-client-id'] = o.sub;
    const res = await fetch(h.server.url + path, { method, headers, ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}) });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  return { ...h, raw };
}

describe('trading-credit lifecycle against the simulator', () => {
  it('packages and availability: the client reads them; the answers have the documented shape', async () => {
    const h = await sim();
    const list = await h.client.getPropPackages();
    expect(list.map((p) => p.id)).toEqual([1, 2]);
    expect(list[1]).toMatchObject({ currency: 'USDT', status: 'ACTIVE', expireDays: 14 });
    expect(list[1]!.loan.toFixed()).toBe('9000');
    expect(shapeDiff(loadSample('rest_v1_prop_packages__developers-wallex-ir.json'), (await h.raw('GET', '/v1/prop/packages')).json)).toEqual([]);

    const checks = await h.client.checkPropAvailability(2);
    expect(checks).toContainEqual({ key: 'kyc', isValid: true });
    expect(checks).toContainEqual({ key: 'balance', isValid: true });
    const raw = await h.raw('GET', '/v1/prop/user/packages/2/check-availability');
    expect(shapeDiff(loadSample('rest_v1_prop_user_packages_check_availability__developers-wallex-ir.json'), raw.json)).toEqual([]);
    await expect(h.client.checkPropAvailability(99)).rejects.toThrow(/404/);
    await expect(h.client.checkPropAvailability(0)).rejects.toThrow(ParameterError);
  });

  it('buying a package takes the assurance, opens a sub-account with its own key and balance (201)', async () => {
    const h = await sim();
    const before = h.sim.ledger.free(h.account.accountId, 'USDT');
    const raw = await h.raw('POST', '/v1/prop/user/packages', { body: { prop_package_id: '2' } });
    expect(raw.status).toBe(201);
    expect(shapeDiff(loadSample('rest_v1_prop_user_packages_create__developers-wallex-ir.json'), raw.json)).toEqual([]);
    const bought = await h.client.buyPropPackage(2);
    expect(bought).toMatchObject({ isActive: true, type: 'prop', isSuspend: false });
    expect(before.minus(h.sim.ledger.free(h.account.accountId, 'USDT')).toFixed()).toBe('2000');
    // Its own key, from the simulator's stand-in for the exchange's panel, trades it; the main key does not.
    const keyRes = await fetch(`${h.server.url}/__sim/prop/api-key?account=${h.account.accountId}&client_id=${bought.clientId}`);
    const key = ((await keyRes.json()) as { result: { api_key: string } }).result.api_key;
    const own = h.client.withSubAccount(bought.clientId, key);
    expect((await own.getBalances()).USDT!.value.toFixed()).toBe('10000');
    await expect(h.client.withSubAccount(bought.clientId).getBalances()).rejects.toThrow(/403/);
    // The list of sub-accounts, and one account's history entry.
    const subs = await h.client.getSubAccounts();
    expect(subs.map((s) => s.clientId)).toContain(bought.clientId);
    const rawSubs = await h.raw('GET', '/sub-accounts');
    expect(
      shapeDiff((loadSample('doc_sub_accounts__developers-wallex-ir.json') as { result: unknown }).result, (rawSubs.json.result as unknown[])[0], '$', {
        types: false,
      }),
    ).toEqual([]);
    const hist = await h.client.getPropAccountHistory(bought.clientId);
    expect(hist).toMatchObject({ clientId: bought.clientId, status: 'active', currency: 'USDT' });
    // Short of the assurance: refused, nothing moved.
    const poor = new WallexRestClient({ baseUrl: h.server.url, apiKey: h.account.apiKey, retries: 0 });
    h.sim.ledger.debitFree(h.account.accountId, 'USDT', h.sim.ledger.free(h.account.accountId, 'USDT'));
    expect(await poor.checkPropAvailability(2)).toContainEqual({ key: 'balance', isValid: false });
    await expect(poor.buyPropPackage(2)).rejects.toThrow(/402/);
    poor.close();
  });

  it('connect-to-wallet, disconnect, enable-renew and the active detail, by the sub-account-client-id header', async () => {
    const h = await sim();
    const { clientId } = await h.client.buyPropPackage(2);
    const conn = await h.client.connectPropWallet(clientId, { credit: '100', currency: 'USDT', usageCount: 3 });
    expect(conn).toMatchObject({ currency: 'USDT', usageCount: 3, usedCount: 0, status: 'active' });
    expect(conn.credit.toFixed()).toBe('100');
    const rawConn = await h.raw('POST', '/v1/prop/user/packages/connect-to-wallet', {
      sub: clientId,
      body: { credit: '10000', currency: 'USDT', usageCount: 3 },
    });
    expect(shapeDiff(loadSample('rest_v1_prop_user_packages_connect_to_wallet__developers-wallex-ir.json'), rawConn.json)).toEqual([]);
    const wrong = await h.raw('POST', '/v1/prop/user/packages/connect-to-wallet', { sub: clientId, body: { credit: '1', currency: 'TMN', usageCount: 1 } });
    expect([wrong.status, Object.keys(wrong.json.result as object)]).toEqual([422, ['currency']]);

    const active = await h.client.getActivePropAccount(clientId);
    expect(active.packageDetail).toMatchObject({ id: 2, currency: 'USDT' });
    expect(active.userPackageDetail.status).toBe('active');
    expect(active.userPackageDetail.connectToWallet).toContain('"usageCount":3');

    const rawDisc = await h.raw('DELETE', '/v1/prop/user/packages/connect-to-wallet', { sub: clientId });
    expect(shapeDiff(loadSample('rest_v1_prop_user_packages_connect_to_wallet_DELETE__developers-wallex-ir.json'), rawDisc.json)).toEqual([]);
    await expect(h.client.disconnectPropWallet(clientId)).rejects.toThrow(/422/);
    const rawRenew = await h.raw('POST', '/v1/prop/user/packages/enable-renew', { sub: clientId });
    expect(shapeDiff(loadSample('rest_v1_prop_user_packages_enable_renew__developers-wallex-ir.json'), rawRenew.json)).toEqual([]);
    await h.client.enablePropRenew(clientId);
    // Without the header: refused naming it.
    const noHeader = await h.raw('POST', '/v1/prop/user/packages/enable-renew');
    expect([noHeader.status, Object.keys(noHeader.json.result as object)]).toEqual([422, ['sub-account-client-id']]);
  });

  it("transfers: main -> sub-account in the package currency, listed; another currency is the docs' 422", async () => {
    const h = await sim();
    const { clientId } = await h.client.buyPropPackage(2);
    const ledger = `${h.account.accountId}/prop/${clientId}`;
    const rawT = await h.raw('POST', '/sub-accounts/transfers', { body: { currency: 'USDT', value: 5, subAccount_client_id: clientId } });
    expect(rawT.status).toBe(200);
    expect(shapeDiff(loadSample('rest_sub_accounts_transfers_create__developers-wallex-ir.json'), rawT.json)).toEqual([]);
    const t = await h.client.transferToSubAccount({ subAccountId: clientId, currency: 'USDT', value: '12.5' });
    expect(t.clientId).toBe(clientId);
    expect(h.sim.ledger.free(ledger, 'USDT').toFixed()).toBe('10017.5');

    const btc = await h.raw('POST', '/sub-accounts/transfers', { body: { currency: 'BTC', value: 1, subAccount_client_id: clientId } });
    expect(btc.status).toBe(422);
    expect(shapeDiff(loadSample('rest_error_422__developers-wallex-ir-sub-account-transfer.json'), btc.json)).toEqual([]);
    expect(btc.json).toMatchObject({ success: false, code: 422, result: { currency: ['انتقال ارز BTC به این اکانت مجاز نمی باشد.'] } });
    await expect(h.client.transferToSubAccount({ subAccountId: clientId, currency: 'BTC', value: 1 })).rejects.toThrow(ValidationError);
    await expect(h.client.transferToSubAccount({ subAccountId: clientId, currency: 'USDT', value: 0 })).rejects.toThrow(ParameterError);

    const list = await h.client.getSubAccountTransfers({ perPage: 1 });
    expect(list.items.map((x) => x.value?.toFixed())).toEqual(['12.5']);
    expect(list.pageInfo).toEqual({ page: 1, perPage: 1, count: 1, totalCount: 2 });
    expect(shapeDiff(loadSample('rest_sub_accounts_transfers__developers-wallex-ir.json'), (await h.raw('GET', '/sub-accounts/transfers')).json)).toEqual([]);
  });
});
