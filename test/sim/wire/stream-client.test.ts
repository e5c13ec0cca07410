/** mizan's own StreamClient against the simulator, over both socket.io protocols. */
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { BookLevel, PublicTrade } from '../../../src/core/types/index.js';
import { StreamClient } from '../../../src/exchange/stream/client.js';
import { startSim } from './harness.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

describe('StreamClient against the simulator', () => {
  for (const protocol of [4, 3] as const) {
    it(`receives depth and trades with protocol ${protocol}`, async () => {
      const h = await startSim();
      cleanup.push(() => h.server.close());
      const client = new StreamClient({ url: h.server.streamUrl, protocol });
      cleanup.push(() => client.close());
      const depth: { side: string; levels: BookLevel[] }[] = [];
      const trades: PublicTrade[] = [];
      client.on('depth', (_symbol, side, levels) => depth.push({ side, levels }));
      client.on('trade', (t) => trades.push(t));
      client.subscribe('USDTTMN@buyDepth');
      client.subscribe('USDTTMN@trade');
      await client.connect();
      for (let i = 0; i < 500 && depth.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(depth[0]!.levels).toHaveLength(50);
      expect(depth[0]!.levels[0]!.price.eq(h.sim.bestBid('USDTTMN')!)).toBe(true);
      h.sim.recordTrade({ symbol: 'USDTTMN', price: d('82101'), quantity: d('12.5'), isBuyOrder: true, timestamp: h.clock.now() });
      for (let i = 0; i < 500 && trades.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect([trades[0]!.symbol, trades[0]!.price.toFixed(), trades[0]!.quantity.toFixed()]).toEqual(['USDTTMN', '82101', '12.5']);
    });
  }
});
