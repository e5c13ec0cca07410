import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ForbiddenOperationError, ParameterError } from '../../../src/core/errors.js';
import { d } from '../../../src/core/decimal.js';
import { startSampleServer, type SampleServer } from '../../support/sample-server.js';
import { cardsBody, ibansBody, walletBody, withdrawalBody } from './fixtures.js';
import { API_KEY, makeClient } from './helpers.js';

let server: SampleServer;
beforeAll(async () => {
  server = await startSampleServer();
});
afterAll(async () => server.stop());
beforeEach(() => server.reset());

describe('account', () => {
  it('getProfile parses the profile and sends the key', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/account/profile', { sample: 'rest_v1_account_profile__phinix-docs-en-2022.txt' });
    const p = await client.getProfile();
    expect(server.received('GET', '/v1/account/profile')[0]?.headers['x-api-key']).toBe(API_KEY);
    expect(p.firstName).toBe('محمد');
    expect(p.phoneNumber).toEqual({ areaCode: '021', mainNumber: '12345678' });
    expect(p.verification).toBe('VERIFIED');
    expect(p.commission).toBe(25);
    expect(p.settings?.theme).toBe('dark');
  });

  it('getFees keeps markets apart from the default and metaData keys (both sample variants)', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/account/fee', { sample: 'rest_v1_account_fee__phinix-docs-en-2022.txt' });
    const fees = await client.getFees();
    expect(Object.keys(fees.markets)).toHaveLength(19);
    expect(fees.markets.default).toBeUndefined();
    expect(fees.markets.metaData).toBeUndefined();
    expect(fees.markets.BTCTMN?.makerFeeRate.toFixed()).toBe('0.003');
    expect(fees.markets.BTCTMN?.takerFeeRate.toFixed()).toBe('0.004');
    expect(fees.markets.BTCTMN?.recentDaysSum?.toFixed()).toBe('240448');
    expect(fees.metaData?.latestTradesSum).toBe(240448);

    server.route('GET', '/v1/account/fee', { sample: 'rest_v1_account_fee__api-docs-wallex-ir-crawl.txt' });
    const crawl = await client.getFees();
    expect(Object.keys(crawl.markets)).toEqual(['BTCTMN', 'BTCUSDT']);
    expect(crawl.markets.BTCTMN?.recentDaysSum?.toFixed()).toBe('250000000');
  });

  it('getBankCards parses cards (is_default 0/1 as a boolean)', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/account/card-numbers', { body: cardsBody });
    const [card] = await client.getBankCards();
    expect(card).toEqual({ id: 3, cardNumber: '6104-33**-****-1234', owners: ['محمد محمدی'], status: 'ACCEPTED', isDefault: false });
  });

  it('getIbans parses IBANs with page info and a null available amount', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/account/ibans', { body: ibansBody });
    const page = await client.getIbans();
    expect(page.pageInfo).toEqual({ page: 1, perPage: 20, count: 1, totalCount: 1 });
    const iban = page.items[0];
    expect(iban?.id).toBe(7);
    expect(iban?.isDefault).toBe(true);
    expect(iban?.withdrawDailyAmount?.toFixed()).toBe('1000000000');
    expect(iban?.withdrawAvailableAmount).toBeNull();
    expect(iban?.bankDetails).toEqual({ code: 'BKMTIR', label: 'Mellat', isAvailable: true });
  });

  it('getBalances parses value and locked as exact Decimals (both samples)', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/account/balances', { sample: 'rest_v1_account_balances__phinix-docs-en-2022.txt' });
    const b = await client.getBalances();
    expect(b.TMN?.value.toFixed()).toBe('21051348');
    expect(b.TMN?.locked.toFixed()).toBe('21000000');
    expect(b.TMN?.fiat).toBe(true);
    expect(b.USDT?.value.eq(d('562.479462'))).toBe(true);
    expect(b.BTC?.value.toFixed()).toBe('0.00000045');
    server.route('GET', '/v1/account/balances', { sample: 'rest_v1_account_balances__api-docs-wallex-ir-crawl.txt' });
    const c = await client.getBalances();
    expect(Object.keys(c)).toEqual(['TMN', 'USDT']);
    expect(c.USDT?.value.toFixed()).toBe('10');
  });

  it('getWalletAddress sends coin and network and reads provider', async () => {
    const { client } = makeClient(server);
    server.route('GET', '/v1/account/wallets/USDT', { body: walletBody });
    const w = await client.getWalletAddress('USDT', 'TRC20');
    expect(server.received('GET', '/v1/account/wallets/USDT')[0]?.query).toEqual({ network: 'TRC20' });
    expect(w.provider).toBe('wallex');
    expect(w.coinType.nameEn).toBe('Tether');
    expect(w.wallets.TRC20?.address).toBe('TXYZabc123def456ghi789jkl012mno345');
    expect(w.wallets.TRC20?.transactionFee?.toFixed()).toBe('1');
    expect(w.wallets.TRC20?.minDepositValue?.toFixed()).toBe('0.5');
    expect(w.wallets.TRC20?.network.name).toBe('TRC20');
    await expect(client.getWalletAddress('usdt', 'TRC20')).rejects.toThrow(/invalid coin: "usdt"/);
    await expect(client.getWalletAddress('USDT', 'TRC 20')).rejects.toThrow(/invalid network/);
  });

  it('requestWithdrawal refuses to run unless withdrawals were allowed', async () => {
    server.route('POST', '/v1/account/money-withdrawal', { body: withdrawalBody });
    const { client } = makeClient(server);
    await expect(client.requestWithdrawal({ iban: 7, value: 5000000 })).rejects.toThrow(ForbiddenOperationError);
    await expect(client.requestWithdrawal({ iban: 7, value: 5000000 })).rejects.toThrow(/allowWithdrawals: true/);
    expect(server.requests).toHaveLength(0);
  });

  it('requestWithdrawal sends iban id and amount once and parses the result when allowed', async () => {
    server.route('POST', '/v1/account/money-withdrawal', { body: withdrawalBody });
    const { client } = makeClient(server, { allowWithdrawals: true });
    await expect(client.requestWithdrawal({ iban: 0, value: 1 })).rejects.toThrow(/invalid iban: 0/);
    await expect(client.requestWithdrawal({ iban: 7, value: '100.5' })).rejects.toThrow(ParameterError);
    await expect(client.requestWithdrawal({ iban: 7, value: -5 })).rejects.toThrow(/invalid value: -5/);
    const w = await client.requestWithdrawal({ iban: 7, value: d('5000000') });
    const [req] = server.received('POST', '/v1/account/money-withdrawal');
    expect(req?.body).toEqual({ iban: 7, value: 5000000 });
    expect(req?.headers['x-api-key']).toBe(API_KEY);
    expect(w.amount.toFixed()).toBe('5000000');
    expect(w.fee.toFixed()).toBe('5000');
    expect(w.trackingCode).toBe('W-2024-000123');
    expect(w.status).toBe('pending');
    expect(w.iban?.id).toBe(7);
    expect(w.details[0]?.value.toFixed()).toBe('5000000');
    expect(server.requests).toHaveLength(1);
  });

  it('private calls refuse to run without a key', async () => {
    const { client } = makeClient(server, { apiKey: undefined });
    await expect(client.getBalances()).rejects.toThrow(/invalid apiKey: nothing \(GET \/v1\/account\/balances is a private call/);
    expect(server.requests).toHaveLength(0);
  });
});
