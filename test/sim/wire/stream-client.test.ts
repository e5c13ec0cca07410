/** mizan's own StreamClient against the simulator: the plain WebSocket, socket.io (both protocols), and `auto`. */
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import type { BookLevel, PublicTrade } from '../../../src/core/types/index.js';
import { StreamClient, type StreamClientOptions } from '../../../src/exchange/stream/index.js';
import type { StreamServeOptions } from '../../../src/sim/wire/stream.js';
import { captureLogger } from '../../exchange/stream/capture-logger.js';
import { startSim } from './harness.js';
import { waitFor as waitForCondition } from '../../support/wait-for.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

const until = async (cond: () => boolean, ms = 10_000) => {
  await waitForCondition(cond, { what: String(cond), timeout: ms, interval: 20 });
  return true;
};

async function setup(client: Omit<StreamClientOptions, 'url'>, stream: StreamServeOptions = {}) {
  const h = await startSim({ stream });
  cleanup.push(() => h.server.close());
  const logger = captureLogger();
  const c = new StreamClient({ url: h.server.streamUrl, logger, ...client });
  cleanup.push(() => c.close());
  const depth: { side: string; levels: BookLevel[] }[] = [];
  const trades: PublicTrade[] = [];
  c.on('depth', (_symbol, side, levels) => depth.push({ side, levels }));
  c.on('trade', (t) => trades.push(t));
  return { ...h, client: c, depth, trades, logger };
}

const ROUTES = [
  { name: 'ws', options: { transport: 'ws' }, route: 'ws' },
  { name: 'socket.io protocol 4', options: { transport: 'socketio', protocol: 4 }, route: 'socketio' },
  { name: 'socket.io protocol 3', options: { transport: 'socketio', protocol: 3 }, route: 'socketio' },
] as const;

describe('StreamClient against the simulator', () => {
  for (const r of ROUTES) {
    it(`receives depth and trades over ${r.name}`, async () => {
      const h = await setup(r.options);
      h.client.subscribe('USDTTMN@buyDepth');
      h.client.subscribe('USDTTMN@trade');
      await h.client.connect();
      expect(h.client.transport).toBe(r.route);
      expect(h.server.streamStats()[r.route]).toBe(1);
      expect(await until(() => h.depth.length > 0)).toBe(true);
      expect(h.depth[0]!.levels).toHaveLength(50);
      expect(h.depth[0]!.levels[0]!.price.eq(h.sim.bestBid('USDTTMN')!)).toBe(true);
      h.sim.recordTrade({ symbol: 'USDTTMN', price: d('82101'), quantity: d('12.5'), isBuyOrder: true, timestamp: h.clock.now() });
      expect(await until(() => h.trades.length > 0)).toBe(true);
      expect([h.trades[0]!.symbol, h.trades[0]!.price.toFixed(), h.trades[0]!.quantity.toFixed()]).toEqual(['USDTTMN', '82101', '12.5']);
    });

    it(`counts and skips a malformed message over ${r.name}, and keeps streaming`, async () => {
      const h = await setup(r.options);
      const malformed: string[] = [];
      h.client.on('malformed', (kind) => malformed.push(kind));
      h.client.subscribe('USDTTMN@trade');
      h.client.subscribe('USDTTMN@buyDepth');
      await h.client.connect();
      // The trade subscription is in once the depth one, sent after it, has answered.
      expect(await until(() => h.depth.length > 0)).toBe(true);
      h.server.faults.configure({ malformed: { count: 1, channel: 'USDTTMN@trade' } });
      h.sim.recordTrade({ symbol: 'USDTTMN', price: d('82101'), quantity: d('1'), isBuyOrder: true, timestamp: h.clock.now() });
      h.sim.recordTrade({ symbol: 'USDTTMN', price: d('82102'), quantity: d('2'), isBuyOrder: false, timestamp: h.clock.now() });
      expect(await until(() => h.trades.length > 0 && malformed.length > 0)).toBe(true);
      // socket.io: the payload is broken (counted for its channel's kind); ws: the frame is (envelope).
      expect(malformed).toEqual([r.route === 'ws' ? 'envelope' : 'trade']);
      expect(h.client.stats().malformedTotal).toBe(1);
      expect(h.trades.map((t) => t.quantity.toFixed())).toEqual(['2']);
      expect(h.logger.entries.filter((e) => e.level === 'warn' && /malformed/.test(e.msg ?? ''))).toHaveLength(1);
    });
  }

  it('auto: uses /ws when the server has it, and logs it', async () => {
    const h = await setup({});
    h.client.subscribe('USDTTMN@buyDepth');
    await h.client.connect();
    expect(h.client.transport).toBe('ws');
    expect(h.server.streamStats()).toMatchObject({ ws: 1, socketio: 0 });
    const line = h.logger.entries.find((e) => /stream transport in use/.test(e.msg ?? ''));
    expect(line?.obj).toMatchObject({ transport: 'ws', setting: 'auto' });
    expect(await until(() => h.depth.length > 0)).toBe(true);
  });

  it('auto: falls back to socket.io when the server does not serve /ws, and logs why', async () => {
    const h = await setup({ maxChannelsPerConnection: 2 }, { ws: false });
    for (const c of ['USDTTMN@buyDepth', 'USDTTMN@sellDepth', 'BTCUSDT@buyDepth']) h.client.subscribe(c);
    await h.client.connect();
    expect(h.client.transport).toBe('socketio');
    expect(h.server.streamStats()).toMatchObject({ ws: 0, socketio: 2 });
    const fallback = h.logger.entries.find((e) => /falling back to socket.io/.test(e.msg ?? ''));
    expect(fallback?.level).toBe('warn');
    expect(JSON.stringify(fallback?.obj)).toMatch(/404/);
    expect(h.logger.entries.find((e) => /stream transport in use/.test(e.msg ?? ''))?.obj).toMatchObject({ transport: 'socketio' });
    expect(await until(() => h.depth.length >= 3)).toBe(true);
  });

  it('ws: a server without /ws is an error to retry, never a silent switch', async () => {
    const h = await setup({ transport: 'ws', reconnect: { initialMs: 20, maxMs: 50 } }, { ws: false });
    h.client.subscribe('USDTTMN@buyDepth');
    void h.client.connect().catch(() => undefined);
    expect(await until(() => h.client.stats().reconnects >= 2)).toBe(true);
    expect(h.client.transport).toBeUndefined();
    expect(h.server.streamStats().socketio).toBe(0);
  });

  it("spreads channels over connections within the server's per-connection limit", async () => {
    const h = await setup({ transport: 'ws', maxChannelsPerConnection: 3 }, { maxChannelsPerConnection: 3 });
    const symbols = ['USDTTMN', 'BTCUSDT', 'ETHUSDT', 'BTCTMN'];
    const seen = new Set<string>();
    h.client.on('depth', (symbol, side) => seen.add(`${symbol}:${side}`));
    for (const s of symbols) {
      h.client.subscribe(`${s}@buyDepth`);
      h.client.subscribe(`${s}@sellDepth`);
    }
    await h.client.connect();
    expect(h.client.connectionChannels().map((c) => c.length)).toEqual([3, 3, 2]);
    expect(await until(() => seen.size === 8)).toBe(true);
    expect(h.server.streamStats()).toMatchObject({ ws: 3, refusedSubscriptions: 0 });
  });
});
