/**
 * Drill: the create's response is lost after the simulator executed the order (the client times
 * out). The engine must look the client id up before re-sending anything: exactly one order exists
 * on the simulator per intent, it is tracked to its end, and the journal agrees with the simulator.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { compareJournal, finishPinger, liveConfig, startDrillSim, startLiveBot, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

describe('drill: create response lost after execution', () => {
  it('finds the order by client id, tracks it, never creates a twin', async () => {
    // The first order call (the first create, a resting buy) executes but is never answered.
    const running = await startDrillSim({ faults: { loseOrderResponses: 1 } });
    const file = join(tmp.dir, 'lost.sqlite');
    const creates: string[] = [];
    const origPlace = running.sim.placeOrder.bind(running.sim);
    running.sim.placeOrder = (account, req) => {
      creates.push(req.clientId ?? '');
      return origPlace(account, req);
    };
    try {
      const bot = await startLiveBot(liveConfig({ url: running.server.url, journal: file, params: { maxOrders: 6, fillEvery: 3 }, timeoutMs: 800 }));
      // Once the second order is open, lose the answer of the next create too: the third order is
      // marketable, so that one fills on the simulator while the bot waits for an answer.
      let armed = false;
      bot.engine.on('order', (u) => {
        const ids = [...bot.engine.orders.keys()];
        if (!armed && ids.length === 2 && u.order.clientOrderId === ids[1] && u.order.state === 'open') {
          armed = true;
          running.server.faults.configure({ loseOrderResponses: 1 });
        }
      });
      await finishPinger(bot, 6, 40_000);
      expect(armed).toBe(true);
      expect(running.server.faults.state().loseOrderResponses).toBe(0);

      const a = compareJournal(file, running, 'ping');
      expect(a.problems).toEqual([]);
      expect(a.journalOrders).toHaveLength(6);
      expect(a.simOrders).toHaveLength(6);
      // One create per intent reached the matching engine: no re-send after a lost answer.
      expect(creates).toHaveLength(6);
      expect(new Set(creates).size).toBe(6);
      const [lostRest, , lostCross] = a.journalOrders;
      expect(lostRest!.status).toBe('cancelled');
      expect(lostCross!.status).toBe('filled');
      expect(lostCross!.executedQty.toFixed()).toBe('0.0005');
      const journal = Journal.open(file, { readonly: true });
      try {
        // The fill of the order whose answer was lost is journaled once.
        expect(journal.fills({}).filter((f) => f.clientId === lostCross!.clientId)).toHaveLength(1);
        expect(journal.fills({})).toHaveLength(2);
      } finally {
        journal.close();
      }
    } finally {
      await running.stop();
    }
  }, 60_000);
});
