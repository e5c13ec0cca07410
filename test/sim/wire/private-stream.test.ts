/** The wire server's private channel: stream keys per account, and the three event kinds over socket.io. */
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { parsePrivateMessage, type PrivateMessage } from '../../../src/exchange/stream/private-parse.js';
import { startSim } from './harness.js';
import { openStream, type TestStream } from './stream-clients.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

type Envelope = { event: string; timestamp: number; data: Record<string, unknown> };

async function setup(protocol: 3 | 4) {
  const h = await startSim();
  cleanup.push(() => h.server.close());
  const issued = await h.call('POST', '/__sim/stream-key');
  expect(issued.status).toBe(201);
  const key = (issued.result as { streamKey: string }).streamKey;
  const open = async (): Promise<TestStream> => {
    const s = openStream(h.server.streamUrl, protocol);
    cleanup.push(() => s.close());
    await s.connected;
    return s;
  };
  const s = await open();
  s.subscribe(key);
  s.subscribe(`${key}@tradeDetails`);
  // The subscriptions are in once a public channel subscribed after them answers (same socket, in order).
  s.subscribe('USDTTMN@marketCap');
  await s.next('USDTTMN@marketCap');
  /** Next message of the account channel with this event name (others of the channel are skipped). */
  const nextEvent = async (event: string): Promise<Envelope> => {
    for (;;) {
      const m = (await s.next(key)) as Envelope;
      if (m.event === event) return m;
    }
  };
  const nextTrade = async () => (await s.next(`${key}@tradeDetails`)) as Envelope;
  return { ...h, key, s, open, nextEvent, nextTrade };
}

function parsed(m: Envelope, trade = false): PrivateMessage {
  return parsePrivateMessage(m, trade, 0);
}

describe('wire server: private channel', () => {
  for (const protocol of [4, 3] as const) {
    it(`pushes orderSaved, tradeDetails and balanceUpdated for a placed, partly filled, filled order (protocol ${protocol})`, async () => {
      const { call, sim, clock, nextEvent, nextTrade } = await setup(protocol);
      const price = sim.bestBid('USDTTMN')!.minus(100);
      const placed = await call('POST', '/v1/account/orders', {
        body: { symbol: 'USDTTMN', side: 'BUY', type: 'LIMIT', price: price.toFixed(), quantity: '10', client_id: 'ps_1' },
      });
      expect(placed.status).toBe(201);
      // A public trade printing through the order's price fills it (as maker, at its price).
      const saved = parsed(await nextEvent('orderSaved'));
      if (saved.kind !== 'orderSaved') throw new Error(saved.kind);
      expect([saved.order.clientOrderId, saved.order.status, saved.order.active, saved.order.executedQty.toFixed(), saved.order.origQty.toFixed()]).toEqual([
        'ps_1',
        'NEW',
        true,
        '0',
        '10',
      ]);
      const bal = parsed(await nextEvent('balanceUpdated'));
      if (bal.kind !== 'balanceUpdated') throw new Error(bal.kind);
      const tmn = bal.balances.find((b) => b.asset === 'TMN')!;
      expect(tmn.locked.toFixed()).toBe(sim.balances('test').TMN!.locked.toFixed());
      expect(tmn.locked.gte(price.mul(10))).toBe(true);

      sim.recordTrade({ symbol: 'USDTTMN', price: price.minus(1), quantity: d('4'), isBuyOrder: false, timestamp: clock.now() });
      const t1 = parsed(await nextTrade(), true);
      if (t1.kind !== 'tradeDetails') throw new Error(t1.kind);
      const fill = sim.getOrder('test', 'ps_1').fills[0]!;
      expect([t1.trade.clientOrderId, t1.trade.quantity.toFixed(), t1.trade.price.toFixed(), t1.trade.side, t1.trade.isMaker]).toEqual([
        'ps_1',
        '4',
        price.toFixed(),
        'BUY',
        true,
      ]);
      expect([t1.trade.fee.toFixed(), t1.trade.feeAsset]).toEqual([fill.fee.toFixed(), 'USDT']);
      expect(t1.trade.sum.eq(price.mul(4))).toBe(true);
      const partly = parsed(await nextEvent('orderSaved'));
      if (partly.kind !== 'orderSaved') throw new Error(partly.kind);
      expect([partly.order.executedQty.toFixed(), partly.order.active]).toEqual(['4', true]);

      sim.recordTrade({ symbol: 'USDTTMN', price: price.minus(1), quantity: d('6'), isBuyOrder: false, timestamp: clock.now() });
      const t2 = parsed(await nextTrade(), true);
      expect(t2.kind === 'tradeDetails' && t2.trade.quantity.toFixed()).toBe('6');
      const done = parsed(await nextEvent('orderSaved'));
      if (done.kind !== 'orderSaved') throw new Error(done.kind);
      expect([done.order.executedQty.toFixed(), done.order.status, done.order.active]).toEqual(['10', 'FILLED', false]);
      const after = parsed(await nextEvent('balanceUpdated'));
      if (after.kind !== 'balanceUpdated') throw new Error(after.kind);
      expect(after.balances.find((b) => b.asset === 'USDT')!.value.toFixed()).toBe(sim.balances('test').USDT!.value.toFixed());
    });
  }

  it('pushes a cancelled order, and nothing to an unknown key or another account', async () => {
    const { call, sim, key, open, nextEvent, server } = await setup(4);
    const other = sim.createAccount({ id: 'other', balances: { TMN: '1000000000' } });
    const otherKey = server.streamKeys.issue(other.id);
    expect(otherKey).not.toBe(key);
    const spy = await open();
    spy.subscribe('0123456789abcdef-not-a-key');
    spy.subscribe(otherKey);
    const price = sim.bestBid('USDTTMN')!.minus(200);
    await call('POST', '/v1/account/orders', {
      body: { symbol: 'USDTTMN', side: 'BUY', type: 'LIMIT', price: price.toFixed(), quantity: '3', client_id: 'ps_2' },
    });
    expect((await nextEvent('orderSaved')).data.status).toBe('NEW');
    const cancelled = await call('DELETE', '/v1/account/orders/ps_2');
    expect(cancelled.status).toBe(200);
    const m = parsed(await nextEvent('orderSaved'));
    if (m.kind !== 'orderSaved') throw new Error(m.kind);
    expect([m.order.clientOrderId, m.order.status, m.order.active, m.order.executedQty.toFixed()]).toEqual(['ps_2', 'CANCELED', false, '0']);
    expect(spy.messages).toEqual([]);
  });

  it('issues keys by API key or account id, and refuses an unknown account', async () => {
    const { call, key, server } = await setup(4);
    const again = await call('POST', '/__sim/stream-key');
    expect((again.result as { streamKey: string }).streamKey).toBe(key);
    const byId = await call('POST', '/__sim/stream-key', { key: null, body: { accountId: 'test' } });
    expect((byId.result as { streamKey: string }).streamKey).toBe(key);
    expect(server.streamKeys.accountOf(key)).toBe('test');
    expect((await call('POST', '/__sim/stream-key', { key: null, body: { accountId: 'nobody' } })).status).toBe(404);
    expect((await call('POST', '/__sim/stream-key', { key: 'wrong-key-123456' })).status).toBe(401);
  });
});
