/**
 * Drill: the simulator drops every stream connection in the middle of a run (twice). The books go
 * unhealthy (stream down), the stream client reconnects, the books are resynced by REST and turn
 * healthy again, and every order placed before, during and after the drops is tracked to its end
 * by polling: the journal agrees with the simulator.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BookHealth } from '../../src/market/book-health.js';
import { compareJournal, finishPinger, liveConfig, startDrillSim, startLiveBot, tempDir, waitFor } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

describe('drill: every socket dropped mid-run', () => {
  it('resyncs the books and tracks every order to its end', async () => {
    const running = await startDrillSim();
    const file = join(tmp.dir, 'drop.sqlite');
    const orders = 12;
    try {
      const bot = await startLiveBot(liveConfig({ url: running.server.url, journal: file, params: { maxOrders: orders, everyMs: 250, maxOpen: 2 } }));
      const downs: BookHealth[] = [];
      bot.market.on('health', (symbol, h) => {
        if (symbol === 'BTCUSDT' && !h.healthy) downs.push(h);
      });
      for (const after of [3, 7]) {
        await waitFor(`${after} orders`, () => bot.engine.orders.size >= after, 20_000);
        const resyncs = bot.market.health('BTCUSDT').resyncs;
        const before = downs.length;
        const connections = () => running.server.streamStats().socketio + running.server.streamStats().ws;
        const connectedBefore = connections();
        const droppedAt = Date.now();
        running.server.faults.dropConnections();
        // The drop is seen (book unhealthy: stream down), then the book is resynced and healthy.
        await waitFor('the book to go unhealthy', () => downs.length > before, 10_000, 20);
        expect(downs.at(-1)!.reasons).toContain('stream_down');
        // Resynced: by the REST snapshot requested on reconnect, or (when both stream sides, which
        // are full snapshots, arrived first and made that snapshot stale) by the stream itself.
        const resynced = () => {
          const h = bot.market.health('BTCUSDT');
          return h.healthy && (h.resyncs > resyncs || (h.lastUpdateAt ?? 0) > droppedAt);
        };
        await waitFor('the book to be resynced and healthy', resynced, 30_000).catch((err: unknown) => {
          throw new Error(`${(err as Error).message}: ${JSON.stringify(bot.market.health('BTCUSDT'))}`);
        });
        // Every stream the bot had is back, so the next drop cuts live connections (not ones still
        // reconnecting from this drop) and the unhealthy event awaited next is that drop's.
        await waitFor(`the bot's ${connectedBefore} stream connection(s) back`, () => connections() >= connectedBefore, 20_000, 20);
      }
      expect(running.server.faults.state().droppedConnections).toBe(2);
      await finishPinger(bot, orders, 60_000);

      const a = compareJournal(file, running, 'ping');
      expect(a.problems).toEqual([]);
      expect(a.journalOrders).toHaveLength(orders);
      expect(a.simOrders).toHaveLength(orders);
      expect(a.journalOrders.filter((r) => r.status === 'filled')).toHaveLength(orders / 3);
    } finally {
      await running.stop();
    }
  }, 120_000);
});
