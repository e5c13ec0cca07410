/**
 * Trading credit: a sub-account opened on a package trades spot through the `sub-account-client-id`
 * header, on its own balances; the main account's money does not move.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { WallexRestClient } from '../../src/exchange/rest/client.js';
import { runSim, type RunningSim } from '../../src/sim/run-sim.js';

let s: RunningSim;
beforeAll(async () => {
  s = await runSim({ port: 0, replay: false, seed: 5 });
});
afterAll(async () => {
  await s.stop();
});

describe('spot trading on a trading-credit sub-account', () => {
  it('places, reads and cancels orders on the sub-account ledger through the header', async () => {
    const res = await fetch(`${s.server.url}/__sim/prop/open`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ account: s.account.accountId, package_id: 2 }),
    });
    expect(res.status).toBe(201);
    const opened = ((await res.json()) as { result: { client_id: string; api_key: string } }).result;
    const subId = opened.client_id;

    const main = new WallexRestClient({ baseUrl: s.server.url, apiKey: s.account.apiKey });
    const sub = main.withSubAccount(subId, opened.api_key);
    const mainBefore = await main.getBalances();
    const subBefore = await sub.getBalances();
    // Package 2: 1,000 USDT assurance + 9,000 USDT loan.
    expect(subBefore.USDT!.value.toFixed()).toBe('10000');

    const bid = s.sim.bestBid('BTCUSDT')!;
    const price = bid.mul('0.9').toDecimalPlaces(2);
    const o = await sub.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.01'), price, clientId: 'prop_1' });
    expect(o.active).toBe(true);
    const subAfter = await sub.getBalances();
    expect(subAfter.USDT!.locked.toFixed()).toBe(price.mul('0.01').toFixed());
    // The order is the sub-account's: the main account does not see it, and its money did not move.
    await expect(main.getOrder('prop_1')).rejects.toThrow();
    expect((await main.getBalances()).USDT!.toString()).toBe(mainBefore.USDT!.toString());
    expect((await sub.getOrder('prop_1')).clientOrderId).toBe('prop_1');
    const cancelled = await sub.cancelOrder('prop_1');
    expect(cancelled.active).toBe(false);
    expect((await sub.getBalances()).USDT!.locked.isZero()).toBe(true);
  });

  it("refuses a sub-account id that is not the key owner's", async () => {
    const main = new WallexRestClient({ baseUrl: s.server.url, apiKey: s.account.apiKey });
    // The main key never acts for a trading-credit account (403), known or not.
    await expect(main.withSubAccount('nope_123').getBalances()).rejects.toThrow(/HTTP 403/);
  });
});
