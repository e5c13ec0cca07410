/**
 * Contract of the crypto wallet history (read only): mizan's REST client against the simulator over
 * HTTP, the simulator's answers checked against the exchange's documented samples
 * (test/fixtures/exchange-samples, sources in its SOURCES.md).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ParameterError } from '../../../src/core/errors.js';
import { parseCryptoDeposits, parseCryptoWithdrawals, readEnvelope } from '../../../src/exchange/parse/index.js';
import { loadSample } from '../../support/samples.js';
import { shapeDiff, startFullSim } from './contract.js';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

const DEPOSIT_SAMPLE = 'rest_v1_account_crypto_deposit__api-docs-wallex-ir-crawl.txt';
const WITHDRAWAL_SAMPLE = 'rest_v1_account_crypto_withdrawal__api-docs-wallex-ir-crawl.txt';

describe('crypto deposit and withdrawal history', () => {
  it('the client parses the documented samples', () => {
    const dep = readEnvelope(loadSample(DEPOSIT_SAMPLE));
    const deposits = parseCryptoDeposits(dep.result, dep.resultInfo);
    expect(deposits.items[0]).toMatchObject({ asset: 'SHIB', status: 'confirmed', network: 'ERC20', confirmations: 1, depositType: 'GIFT' });
    expect(deposits.items[0]!.amount.toFixed()).toBe('70000');
    expect(deposits.pageInfo).toEqual({ page: 1, perPage: 10, count: 2, totalCount: 19 });
    const wd = readEnvelope(loadSample(WITHDRAWAL_SAMPLE));
    const withdrawals = parseCryptoWithdrawals(wd.result, wd.resultInfo);
    expect(withdrawals.items[0]).toMatchObject({ id: 2000123456, asset: 'USDT', status: 'Accomplished', network: 'TRC20', time: Date.UTC(2022, 2, 9, 20, 44) });
    expect(withdrawals.items[0]!.fee!.toFixed()).toBe('1');
  });

  it('serves both lists in the documented shape, paged, newest first, and the client reads them', async () => {
    const h = await startFullSim();
    stop = h.stop;
    const accountId = h.account.accountId;
    // Nothing yet: empty lists with their result_info.
    const empty = await h.client.getCryptoDeposits();
    expect(empty).toEqual({ items: [], pageInfo: { page: 1, perPage: 10, count: 0, totalCount: 0 } });
    for (const amount of ['1.5', '2', '3']) {
      const r = await h.call('POST', '/__sim/crypto-deposits', { key: null, body: { accountId, asset: 'USDT', amount, network: 'TRC20', address: 'Taddr1' } });
      expect(r.status).toBe(201);
    }
    const w = await h.call('POST', '/__sim/crypto-withdrawals', {
      key: null,
      body: { accountId, asset: 'USDT', amount: '62', fee: '1', network: 'TRC20', address: 'Tdest' },
    });
    expect(w.status).toBe(201);
    expect(h.sim.balances(accountId).USDT!.value.toFixed()).toBe(String(100_000 + 6.5 - 63));

    const rawDep = await h.call('GET', '/v1/account/crypto-deposit?page=1&per_page=2');
    expect(shapeDiff(loadSample(DEPOSIT_SAMPLE), rawDep.json)).toEqual([]);
    const rawWd = await h.call('GET', '/v1/account/crypto-withdrawal');
    expect(shapeDiff(loadSample(WITHDRAWAL_SAMPLE), rawWd.json)).toEqual([]);

    const page = await h.client.getCryptoDeposits({ page: 1, perPage: 2 });
    expect(page.items.map((x) => x.amount.toFixed())).toEqual(['3', '2']);
    expect(page.pageInfo).toEqual({ page: 1, perPage: 2, count: 2, totalCount: 3 });
    expect((await h.client.getCryptoDeposits({ page: 2, perPage: 2 })).items.map((x) => x.amount.toFixed())).toEqual(['1.5']);
    const withdrawals = await h.client.getCryptoWithdrawals();
    expect(withdrawals.items).toHaveLength(1);
    expect(withdrawals.items[0]).toMatchObject({ asset: 'USDT', network: 'TRC20', walletAddress: 'Tdest', status: 'Accomplished' });
    expect(withdrawals.items[0]!.fee!.toFixed()).toBe('1');
  });

  it('needs a key, and refuses bad paging before sending (client) and on the wire (simulator)', async () => {
    const h = await startFullSim();
    stop = h.stop;
    expect((await h.call('GET', '/v1/account/crypto-withdrawal', { key: null })).status).toBe(401);
    const bad = await h.call('GET', '/v1/account/crypto-deposit?per_page=0');
    expect([bad.status, Object.keys(bad.result as object)]).toEqual([422, ['per_page']]);
    await expect(h.client.getCryptoDeposits({ perPage: 0 })).rejects.toThrow(ParameterError);
    await expect(h.client.getCryptoWithdrawals({ page: 1.5 })).rejects.toThrow(/page/);
    const unknown = await h.call('POST', '/__sim/crypto-deposits', {
      key: null,
      body: { accountId: 'nobody', asset: 'USDT', amount: '1', network: 'TRC20', address: 'x' },
    });
    expect([unknown.status, Object.keys(unknown.result as object)]).toEqual([422, ['accountId']]);
  });
});
