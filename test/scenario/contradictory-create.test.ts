/**
 * Drill (issue 16.4): a create answered with HTTP 201 and `success: false`. The exchange contradicts
 * itself, so the order may exist: the engine looks the client id up before it accepts the refusal.
 * A REST proxy in front of the simulator (over real HTTP; the stream goes to the simulator itself)
 * rewrites the answer of the 1st create, which the simulator executed, and answers the 3rd create
 * itself, so that one never reaches the simulator. The 1st is found and tracked to its end; the
 * 3rd is closed as rejected with the exchange's message after the lookup, and never re-sent.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { startRewriteProxy } from '../support/rewrite-proxy.js';
import { compareJournal, DRILL_KEY, finishPinger, KEY_ENV, liveYaml, REPO, startDrillSim, startLiveBot, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

const REFUSAL = JSON.stringify({ success: false, message: 'order could not be placed', code: 0, result: null });

describe('drill: create answered 201 with success: false', () => {
  it('looks the client id up: an existing order is tracked, a missing one is rejected without a re-send', async () => {
    const running = await startDrillSim();
    let creates = 0;
    const forwarded: string[] = [];
    const proxy = await startRewriteProxy(running.server.url, (req) => {
      if (req.method !== 'POST' || !req.url.startsWith('/v1/account/orders')) return undefined;
      const n = ++creates;
      if (n === 1) return { rewrite: () => ({ status: 201, body: REFUSAL }) };
      if (n === 3) return { answer: { status: 201, body: REFUSAL } };
      forwarded.push(req.body);
      return undefined;
    });
    const file = join(tmp.dir, 'contradictory.sqlite');
    const yaml = liveYaml({ url: proxy.url, journal: file, params: { maxOrders: 4, fillEvery: 0, maxOpen: 1 }, timeoutMs: 1500 }).replace(
      `  baseUrl: ${proxy.url}\n`,
      `  baseUrl: ${proxy.url}\n  stream: { url: ${running.server.url} }\n`,
    );
    try {
      const bot = await startLiveBot(parseConfig(yaml, { env: { [KEY_ENV]: DRILL_KEY }, baseDir: REPO }));
      await finishPinger(bot, 4, 40_000);
      const a = compareJournal(file, running, 'ping');
      expect(a.problems).toEqual([]);
      expect(a.journalOrders).toHaveLength(4);
      const [first, , third] = a.journalOrders;
      // The 1st exists on the simulator: tracked (rested, then cancelled by the pinger), not rejected.
      expect(first!.status).toBe('cancelled');
      expect(a.simOrders.map((o) => o.clientOrderId)).toContain(first!.clientId);
      // The 3rd never reached the simulator: rejected with the exchange's words, sent once.
      expect(third!.status).toBe('rejected');
      expect(a.simOrders.map((o) => o.clientOrderId)).not.toContain(third!.clientId);
      expect(bot.engine.orders.get(third!.clientId)?.reason).toContain('order could not be placed');
      expect(creates).toBe(4);
    } finally {
      await proxy.close();
      await running.stop();
    }
  }, 60_000);
});
