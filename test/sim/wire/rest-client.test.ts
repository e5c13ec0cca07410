/** mizan's own REST client against the simulator: the whole HTTP path, typed errors included. */
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { DuplicateOrderError, ExchangeUnavailableError, InsufficientBalanceError, NotFoundError, ValidationError } from '../../../src/core/errors.js';
import { WallexRestClient } from '../../../src/exchange/rest/client.js';
import { OrderOutcomeUnknownError } from '../../../src/exchange/rest/errors.js';
import { startSim } from './harness.js';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function setup() {
  const h = await startSim();
  stop = () => h.server.close();
  const client = new WallexRestClient({ baseUrl: h.server.url, apiKey: h.account.apiKey, timeoutMs: 1500, retries: 1, sleep: async () => {} });
  return { ...h, client };
}

describe('WallexRestClient against the simulator', () => {
  it('reads market data and the account, places, looks up and cancels orders', async () => {
    const { client, sim } = await setup();
    expect((await client.getMarkets()).map((m) => m.symbol)).toContain('USDTTMN');
    const depth = await client.getDepth('BTCUSDT');
    expect(depth.asks[0]!.price.eq(sim.bestAsk('BTCUSDT')!)).toBe(true);
    expect(Object.keys(await client.getAllDepth())).toHaveLength(5);
    expect((await client.getFees()).markets.USDTTMN!.makerFeeRate.toFixed()).toBe('0.003');
    expect((await client.getBalances()).BTC!.value.toFixed()).toBe('2');
    const o = await client.createOrder({ symbol: 'BTCTMN', side: 'BUY', type: 'LIMIT', quantity: d('0.001'), price: d('5000000000'), clientId: 'rc_1' });
    expect([o.status, o.active]).toEqual(['NEW', true]);
    expect((await client.getOpenOrders()).items.map((x) => x.clientOrderId)).toEqual(['rc_1']);
    expect((await client.getOrder('rc_1')).origQty.toFixed()).toBe('0.001');
    expect((await client.cancelOrder('rc_1')).status).toBe('CANCELED');
    const m = await client.createOrder({ symbol: 'ETHUSDT', side: 'SELL', type: 'MARKET', quantity: d('0.5'), clientId: 'rc_2' });
    expect(m.status).toBe('FILLED');
    const trades = await client.getAccountTrades();
    expect(trades.items[0]!.feeAsset).toBe('USDT');
  });

  it('gets the typed errors the simulator answers with', async () => {
    const { client } = await setup();
    await expect(
      client.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.0001'), price: d('100'), clientId: 'e1' }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      client.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('50'), price: d('60000'), clientId: 'e2' }),
    ).rejects.toBeInstanceOf(InsufficientBalanceError);
    await client.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.001'), price: d('60000'), clientId: 'e3' });
    await expect(
      client.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.001'), price: d('60000'), clientId: 'e3' }),
    ).rejects.toBeInstanceOf(DuplicateOrderError);
    await expect(client.getOrder('nothing_here')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('reports an unknown outcome when the response is lost, and the order is found by its client id', async () => {
    const { client, server } = await setup();
    server.faults.configure({ loseOrderResponses: 1 });
    const err = await client
      .createOrder({ symbol: 'USDTTMN', side: 'BUY', type: 'LIMIT', quantity: d('5'), price: d('80000'), clientId: 'lost_rc' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OrderOutcomeUnknownError);
    expect((await client.getOrder('lost_rc')).active).toBe(true);
    server.faults.configure({ failNext: { status: 503, count: 5 } });
    await expect(client.getBalances()).rejects.toBeInstanceOf(ExchangeUnavailableError);
  });
});
