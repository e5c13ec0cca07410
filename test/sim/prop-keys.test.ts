/**
 * Issue #35 item 1: every trading-credit (prop) account has its own API key, and its orders need that
 * key AND the `sub-account-client-id` header. The simulator issues a key per sub-account and refuses
 * the main key for the sub-account's orders (403, the exchange's error envelope, the key never in
 * the answer); mizan's client sends the sub-account's key through `withSubAccount(id, key)`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { WallexRestClient } from '../../src/exchange/rest/client.js';
import { runSim, type RunningSim } from '../../src/sim/run-sim.js';

let s: RunningSim;
let subId: string;
let subKey: string;
const FIXED = 'propkey_fixed_0123456789abcdef';
beforeAll(async () => {
  s = await runSim({ port: 0, replay: false, seed: 5 });
  const res = await fetch(`${s.server.url}/__sim/prop/open`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ account: s.account.accountId, package_id: 2 }),
  });
  expect(res.status).toBe(201);
  const r = ((await res.json()) as { result: { client_id: string; api_key: string } }).result;
  subId = r.client_id;
  subKey = r.api_key;
});
afterAll(async () => {
  await s.stop();
});

const order = (clientId: string) => ({
  symbol: 'BTCUSDT',
  side: 'BUY' as const,
  type: 'LIMIT' as const,
  quantity: d('0.01'),
  price: s.sim.bestBid('BTCUSDT')!.mul('0.9').toDecimalPlaces(2),
  clientId,
});
const raw = async (key: string, sub?: string) => {
  const headers: Record<string, string> = { 'x-api-key': key };
  if (sub) headers['sub-account-client-id'] = sub;
  const res = await fetch(`${s.server.url}/v1/account/balances`, { headers });
  return { status: res.status, text: await res.text() };
};

describe('trading-credit accounts have their own API key', () => {
  it('opening one issues a key that is not the main key', () => {
    expect(subKey).toMatch(/^sim_/);
    expect(subKey).not.toBe(s.account.apiKey);
  });

  it("the main key with the header is refused for the sub-account's orders, in the exchange's envelope, without the key", async () => {
    const main = new WallexRestClient({ baseUrl: s.server.url, apiKey: s.account.apiKey, retries: 0 });
    const err = await main
      .withSubAccount(subId)
      .createOrder(order('prop_main_1'))
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(err?.message).toMatch(/403/);
    expect(err?.message).toMatch(/main account's API key cannot act for trading-credit account/);
    const r = await raw(s.account.apiKey, subId);
    expect(r.status).toBe(403);
    expect(JSON.parse(r.text)).toMatchObject({ success: false, code: 403, result: { 'x-api-key': [expect.stringContaining(subId)] } });
    expect(r.text).not.toContain(s.account.apiKey);
    // Nothing reached the sub-account's book.
    expect(s.sim.orders(`${s.account.accountId}/prop/${subId}`)).toHaveLength(0);
  });

  it("the sub-account's key with the header places, reads and cancels its orders", async () => {
    const main = new WallexRestClient({ baseUrl: s.server.url, apiKey: s.account.apiKey, retries: 0 });
    const sub = main.withSubAccount(subId, subKey);
    const o = await sub.createOrder(order('prop_own_1'));
    expect(o.active).toBe(true);
    expect(s.sim.orders(`${s.account.accountId}/prop/${subId}`).map((x) => x.clientOrderId)).toEqual(['prop_own_1']);
    expect((await sub.getOrder('prop_own_1')).clientOrderId).toBe('prop_own_1');
    expect((await sub.cancelOrder('prop_own_1')).active).toBe(false);
    // The main client is unchanged: its own calls still send the main key, without the header.
    await expect(main.getOrder('prop_own_1')).rejects.toThrow();
    expect((await main.getBalances()).USDT).toBeDefined();
  });

  it("the sub-account's key acts only with its header and only for its account", async () => {
    const alone = await raw(subKey);
    expect(alone.status).toBe(403);
    expect(JSON.parse(alone.text).result).toHaveProperty('sub-account-client-id');
    const other = await raw(subKey, 'someone-else-123');
    expect(other.status).toBe(403);
    expect(other.text).not.toContain(subKey);
    expect((await raw(subKey, subId)).status).toBe(200);
  });

  it('another key can be issued for an open account (fixed value), and the main key still manages it', async () => {
    const res = await fetch(`${s.server.url}/__sim/prop/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ account: s.account.accountId, client_id: subId, api_key: FIXED }),
    });
    expect(res.status).toBe(201);
    expect((await raw(FIXED, subId)).status).toBe(200);
    // Closing is a management call: the docs send it with the main key and the header.
    const main = new WallexRestClient({ baseUrl: s.server.url, apiKey: s.account.apiKey, retries: 0 });
    const closed = await main.closePropAccount(subId);
    expect(closed.clientId).toBe(subId);
  });
});
