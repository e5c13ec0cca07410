import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { parseDepth, parseMarketStats, parsePriceTicks, parseTrade } from '../../../src/exchange/stream/parse.js';
import { startSim } from './harness.js';
import { openStream, type TestStream } from './stream-clients.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup() {
  const h = await startSim();
  cleanup.push(() => h.server.close());
  const open = async (protocol: 3 | 4): Promise<TestStream> => {
    const s = openStream(h.server.streamUrl, protocol);
    cleanup.push(() => s.close());
    await s.connected;
    return s;
  };
  return { ...h, open };
}

describe('wire server: socket.io stream', () => {
  for (const protocol of [4, 3] as const) {
    it(`sends 50-level depth snapshots in keyed-object form to a protocol ${protocol} client`, async () => {
      const { open, sim, call } = await setup();
      const s = await open(protocol);
      const first = s.next('BTCUSDT@buyDepth');
      s.subscribe('BTCUSDT@buyDepth');
      const data = (await first) as Record<string, { price: unknown; quantity: unknown; sum: unknown }>;
      expect(Object.keys(data)).toHaveLength(50);
      expect(typeof data['0']!.price).toBe('string');
      expect(typeof data['0']!.quantity).toBe('number');
      expect(typeof data['0']!.sum).toBe('number');
      const levels = parseDepth(data);
      expect(levels[0]!.price.eq(sim.bestBid('BTCUSDT')!)).toBe(true);
      // an account order joining the book changes the snapshot
      const update = s.next('BTCUSDT@buyDepth');
      const placed = await call('POST', '/v1/account/orders', { body: { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', price: '62549', quantity: '0.5' } });
      expect(placed.status).toBe(201);
      const top = parseDepth(await update)[0]!;
      expect(top.price.toFixed()).toBe('62549');
      expect(top.quantity.toFixed()).toBe('0.5');
    });
  }

  it('sends trades, market statistics and all@price on trades, and sell depth after a replayed snapshot', async () => {
    const { open, sim, clock } = await setup();
    const s = await open(4);
    for (const c of ['ETHUSDT@trade', 'ETHUSDT@marketCap', 'all@price', 'ETHUSDT@sellDepth']) s.subscribe(c);
    await s.next('ETHUSDT@marketCap'); // initial snapshot on subscribe
    await s.next('ETHUSDT@sellDepth');
    const trade = s.next('ETHUSDT@trade');
    const cap = s.next('ETHUSDT@marketCap');
    const price = s.next('all@price');
    sim.recordTrade({ symbol: 'ETHUSDT', price: d('2651.5'), quantity: d('0.2'), isBuyOrder: true, timestamp: clock.now() });
    const t = parseTrade('ETHUSDT', await trade);
    expect([t.price.toFixed(), t.quantity.toFixed(), t.isBuyOrder]).toEqual(['2651.5', '0.2', true]);
    const raw = (await cap) as Record<string, unknown>;
    expect(raw).toMatchObject({ symbol: 'ETHUSDT', socket: null });
    expect(parseMarketStats(raw).lastPrice!.toFixed()).toBe('2651.5');
    const ticks = parsePriceTicks(await price);
    expect(ticks[0]!.symbol).toBe('ETHUSDT');
    const depth = s.next('ETHUSDT@sellDepth');
    sim.replaceBookSide('ETHUSDT', 'ask', [{ price: d('2652'), quantity: d('3') }]);
    const asks = parseDepth(await depth);
    expect(asks.map((l) => [l.price.toFixed(), l.quantity.toFixed()])).toEqual([['2652', '3']]);
  });

  it('strips invisible characters from channel names', async () => {
    const { open } = await setup();
    const s = await open(4);
    const first = s.next('USDTTMN@sellDepth');
    s.subscribe('USDTTMN@sellDepth\u064e');
    expect(Object.keys((await first) as object)).toHaveLength(50);
  });
});
