/**
 * Drill: storms of 429 and 503 answers while the bot places and cancels. The client backs off,
 * creates with an unknown outcome are looked up before any re-send, and the bot keeps the order
 * rate budget (20 order calls per 10 s): the simulator's own limiter never has to refuse a call.
 * At the end no order is lost or duplicated and the journal agrees with the simulator.
 */
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { capturingLogger, compareJournal, finishPinger, liveConfig, startDrillSim, startLiveBot, tempDir, waitFor } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

describe('drill: 429 and 503 storms', () => {
  it('backs off, loses and duplicates nothing, keeps the rate budget', async () => {
    const running = await startDrillSim();
    const file = join(tmp.dir, 'storms.sqlite');
    const accepted: number[] = [];
    let refused = 0;
    const consume = running.sim.consumeOrderCall.bind(running.sim);
    running.sim.consumeOrderCall = (account) => {
      const r = consume(account);
      if (r.allowed) accepted.push(Date.now());
      else refused++;
      return r;
    };
    const creates: string[] = [];
    const place = running.sim.placeOrder.bind(running.sim);
    running.sim.placeOrder = (account, req) => {
      creates.push(req.clientId ?? '');
      return place(account, req);
    };
    const orders = 16;
    try {
      const logger = capturingLogger();
      const config = liveConfig({ url: running.server.url, journal: file, params: { maxOrders: orders, everyMs: 50, maxOpen: 1 } });
      const bot = await startLiveBot(config, { logger });
      // The first storm starts exactly on a create (set before the server handles that request),
      // so at least one create has an unknown outcome; the others start between orders.
      let armed = true;
      running.server.http.prependListener('request', (req: IncomingMessage) => {
        if (armed && req.method === 'POST' && req.url === '/v1/account/orders') {
          armed = false;
          running.server.faults.configure({ failNext: { status: 503, count: 6 } });
        }
      });
      await waitFor('the create storm', () => !armed && !running.server.faults.state().failNext, 20_000, 20);
      // Storms while orders flow: every REST call (order calls, lookups, polls, balances) fails.
      const storms: [429 | 503, number][] = [
        [429, 8],
        [503, 5],
        [429, 6],
      ];
      const injected: number[] = [];
      for (const [status, count] of storms) {
        const placed = Math.min(4 + injected.length * 3, orders);
        await waitFor(`${placed} orders placed before storm ${injected.length + 1}`, () => bot.engine.orders.size >= placed, 30_000, 50);
        running.server.faults.configure({ failNext: { status, count } });
        injected.push(count);
        await waitFor(`storm ${injected.length} (${count} × ${status}) spent`, () => !running.server.faults.state().failNext, 30_000, 50);
      }
      await finishPinger(bot, orders, 90_000).catch((err: unknown) => {
        throw new Error(`${(err as Error).message}\nlog: ${logger.messages.join(' | ')}`);
      });

      const a = compareJournal(file, running, 'ping');
      expect(a.problems).toEqual([]);
      expect(a.journalOrders).toHaveLength(orders);
      // Every order reached the exchange (none closed as rejected) exactly once per client id; a
      // create may be re-sent only with the same client id after a lookup found nothing.
      expect(a.journalOrders.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(a.simOrders).toHaveLength(orders);
      expect(new Set(creates)).toEqual(new Set(a.simOrders.map((o) => o.clientOrderId)));
      // The budget: the simulator never refused an order call, and no 10 s window holds more than 20.
      expect(refused).toBe(0);
      for (let i = 0; i < accepted.length; i++) {
        const inWindow = accepted.filter((t) => t >= accepted[i]! && t < accepted[i]! + 10_000).length;
        expect(inWindow).toBeLessThanOrEqual(20);
      }
      // The storms hit creates (outcome unknown, looked up) and retried calls (backoff).
      expect(logger.messages).toContain('create outcome unknown, looking the client id up');
      expect(logger.messages).toContain('exchange request failed, retrying');
      // More order calls than one window allows were made, so the limiter was actually exercised.
      expect(accepted.length).toBeGreaterThan(20);
    } finally {
      await running.stop();
    }
  }, 120_000);
});
