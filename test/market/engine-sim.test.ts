/**
 * The market-data engine against the real simulator (its wire server replaying the bundled data
 * over HTTP, and the stream over the plain WebSocket `/ws` and over socket.io): local books equal
 * the simulator's, a dropped connection makes books stale and then resynced and healthy, a
 * malformed message does not stop the stream, and live candles equal candles computed from the same
 * trades. The same suite runs once per transport.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SystemClock } from '../../src/core/clock.js';
import type { PublicTrade } from '../../src/core/types/market.js';
import { WallexRestClient } from '../../src/exchange/rest/client.js';
import { StreamClient } from '../../src/exchange/stream/client.js';
import type { StreamTransport } from '../../src/exchange/stream/transport.js';
import { MarketDataEngine } from '../../src/market/engine.js';
import type { LiveCandle } from '../../src/market/candle-aggregator.js';
import { runSim, type RunningSim } from '../../src/sim/run-sim.js';
import { defaultReplaySources, startReplay, type ReplayHandle } from '../../src/sim/replay/index.js';
import { waitFor as waitForCondition } from '../support/wait-for.js';

const SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'BTCTMN'];
for (const transport of ['ws', 'socketio'] as const satisfies readonly StreamTransport[]) describe(`over ${transport}`, () => suite(transport));

function suite(transport: StreamTransport): void {
  let s: RunningSim;
  let replay: ReplayHandle | undefined;
  const feed = () => {
    replay = startReplay({ sim: s.sim, sources: defaultReplaySources(undefined, { seed: 2 }), speed: 3, loop: true, timeBase: 'clock', prime: true });
    replay.done.catch(() => undefined);
  };
  let stream: StreamClient;
  let engine: MarketDataEngine;
  const trades: (PublicTrade & { late: boolean })[] = [];
  const closedPeriods = new Set<number>();
  const closed: LiveCandle[] = [];
  let stamps: { healthy: boolean; t: number }[] = [];

  const until = async (cond: () => boolean, ms: number) => {
    await waitForCondition(cond, { what: String(cond), timeout: ms, interval: 20 });
    return true;
  };

  beforeAll(async () => {
    s = await runSim({ port: 0, seed: 2, replay: false });
    feed();
    const rest = new WallexRestClient({ baseUrl: s.server.url });
    stream = new StreamClient({ url: s.server.url, transport, protocol: 4 });
    engine = new MarketDataEngine({
      stream,
      depth: { getDepth: (x) => rest.getDepth(x), getAllDepths: () => rest.getAllDepth() },
      clock: new SystemClock(),
      options: { candleResolutions: [2], closeDelayMs: 300 },
    });
    engine.on('trade', (t) => {
      // A trade whose 2-second period was already closed when it arrived is late: never in a candle.
      if (t.symbol === 'BTCUSDT') trades.push({ ...t, late: closedPeriods.has(Math.floor(t.timestamp / 2000) * 2) });
    });
    engine.on('candleClosed', (sym, _res, c) => {
      if (sym !== 'BTCUSDT') return;
      closed.push(c);
      closedPeriods.add(c.time);
    });
    engine.on('health', (sym, h) => {
      if (sym === 'BTCUSDT') stamps.push({ healthy: h.healthy, t: Date.now() });
    });
    await engine.start(SYMBOLS);
    await stream.connect();
    expect(stream.transport).toBe(transport);
  }, 30_000);

  afterAll(async () => {
    replay?.stop();
    engine?.stop();
    stream?.close();
    await s?.stop();
  });

  function sameAsSim(symbol: string): boolean {
    const local = engine.book(symbol);
    const remote = s.sim.book(symbol, 50);
    const eq = (a: { price: { toFixed(): string }; quantity: { toFixed(): string } }[], b: typeof a) =>
      a.length === b.length && a.every((l, i) => l.price.toFixed() === b[i]!.price.toFixed() && l.quantity.toFixed() === b[i]!.quantity.toFixed());
    return eq(local.levels('bid', 50), remote.bids) && eq(local.levels('ask', 50), remote.asks);
  }

  describe('MarketDataEngine on the simulator', () => {
    it("keeps local books equal to the simulator's through thousands of side updates", async () => {
      let updates = 0;
      const count = () => updates++;
      engine.on('book', count);
      expect(await until(() => updates >= 2000, 25_000)).toBe(true);
      // Stop the feed and let the stream go quiet, then the books must be equal level by level.
      replay!.stop();
      await replay!.done.catch(() => undefined);
      let last = updates;
      let quietSince = Date.now();
      await until(() => {
        if (updates !== last) {
          last = updates;
          quietSince = Date.now();
        }
        return Date.now() - quietSince > 400;
      }, 5000);
      engine.off('book', count);
      for (const sym of SYMBOLS) expect(sameAsSim(sym), sym).toBe(true);
      expect(engine.health('BTCUSDT').healthy).toBe(true);
      feed();
    }, 40_000);

    it('marks books stale when every connection drops, then resyncs them to healthy within 2 s', async () => {
      stamps = [];
      const dropAt = Date.now();
      s.server.faults.dropConnections();
      expect(await until(() => stamps.some((x) => !x.healthy), 2000)).toBe(true);
      expect(await until(() => stamps.some((x) => x.healthy && x.t > dropAt) && engine.health('BTCUSDT').healthy, 5000)).toBe(true);
      const healthyAgain = stamps.find((x) => x.healthy && x.t > dropAt)!.t;
      expect(healthyAgain - dropAt).toBeLessThan(2000);
      expect(await until(() => sameAsSim('BTCUSDT'), 3000)).toBe(true);
    }, 20_000);

    it('skips a malformed message and keeps streaming', async () => {
      const before = stream.stats().malformedTotal;
      s.server.faults.configure({ malformed: { count: 1, channel: 'BTCUSDT@buyDepth' } });
      expect(await until(() => stream.stats().malformedTotal > before, 5000)).toBe(true);
      let after = 0;
      const count = () => after++;
      engine.on('book', count);
      expect(await until(() => after > 20, 5000)).toBe(true);
      engine.off('book', count);
      expect(engine.health('BTCUSDT').healthy).toBe(true);
    }, 20_000);

    it('builds live candles equal to candles computed from the same trades', () => {
      expect(closed.length).toBeGreaterThan(3);
      const late = trades.filter((t) => t.late).length;
      expect(engine.lateTrades('BTCUSDT', 2)).toBe(late);
      for (const c of closed) {
        const inPeriod = trades.filter((t) => !t.late && Math.floor(t.timestamp / 2000) * 2 === c.time);
        if (c.empty) {
          expect(inPeriod).toEqual([]);
          continue;
        }
        expect(inPeriod.length, `candle ${c.time}`).toBe(c.tradeCount);
        const prices = inPeriod.map((t) => t.price);
        expect(c.open.toFixed()).toBe(prices[0]!.toFixed());
        expect(c.close.toFixed()).toBe(prices.at(-1)!.toFixed());
        expect(c.high.toFixed()).toBe(prices.reduce((a, b) => (b.gt(a) ? b : a)).toFixed());
        expect(c.low.toFixed()).toBe(prices.reduce((a, b) => (b.lt(a) ? b : a)).toFixed());
        expect(c.volume.toFixed()).toBe(inPeriod.reduce((a, t) => a.plus(t.quantity), inPeriod[0]!.quantity.minus(inPeriod[0]!.quantity)).toFixed());
      }
    });
  });
}
