/**
 * Drill (issue 16.5): order answers that cannot be true are refused, logged with their payload, and
 * never booked. A REST proxy in front of the simulator (real HTTP) rewrites the first lookup of two
 * resting orders: the 1st shows `executedQty: "5"` for a 0.0005 BTC order at a price of 0, the 2nd
 * shows it filled with an executed sum of 0. The bot (the real pino logger) logs both as refused,
 * books no fill, and tracks both orders to their real end; the journal agrees with the simulator.
 */
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Journal } from '../../src/store/journal.js';
import { startRewriteProxy } from '../support/rewrite-proxy.js';
import { compareJournal, DRILL_KEY, finishPinger, KEY_ENV, liveYaml, REPO, startDrillSim, startLiveBot, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

describe('drill: impossible order snapshots', () => {
  it('refuses and logs them with their payload, books nothing, and follows the orders to their real end', async () => {
    const running = await startDrillSim();
    const ids: string[] = [];
    const rewritten = new Map<string, number>();
    const proxy = await startRewriteProxy(running.server.url, (req) => {
      if (req.method === 'POST' && req.url.startsWith('/v1/account/orders')) {
        ids.push(String((JSON.parse(req.body) as { client_id?: string }).client_id));
        return undefined;
      }
      const m = /^\/v1\/account\/orders\/([^/?]+)/.exec(req.url);
      if (req.method !== 'GET' || !m) return undefined;
      const which = ids.indexOf(decodeURIComponent(m[1]!));
      if (which > 1 || (rewritten.get(m[1]!) ?? 0) >= 1) return undefined;
      rewritten.set(m[1]!, (rewritten.get(m[1]!) ?? 0) + 1);
      return {
        rewrite: (up) => {
          const body = JSON.parse(up.body) as { result: Record<string, unknown> };
          if (which === 0) Object.assign(body.result, { executedQty: '5', executedSum: '0', executedPrice: '0' });
          else Object.assign(body.result, { executedQty: body.result.origQty, executedSum: '0', executedPrice: '0', active: false, status: 'FILLED' });
          return { status: up.status, body: JSON.stringify(body) };
        },
      };
    });
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _e, cb) {
        for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
        cb();
      },
    });
    const file = join(tmp.dir, 'impossible.sqlite');
    const yaml = liveYaml({ url: proxy.url, journal: file, params: { maxOrders: 3, fillEvery: 0, maxOpen: 2 }, timeoutMs: 1500 }).replace(
      `  baseUrl: ${proxy.url}\n`,
      `  baseUrl: ${proxy.url}\n  stream: { url: ${running.server.url} }\n`,
    );
    try {
      const bot = await startLiveBot(parseConfig(yaml, { env: { [KEY_ENV]: DRILL_KEY }, baseDir: REPO }), {
        logger: createLogger({ destination, pretty: false, level: 'warn' }),
      });
      await finishPinger(bot, 3, 40_000);
      expect([...rewritten.values()]).toEqual([1, 1]);
      const refused = lines.filter((l) => String(l.msg).startsWith('order update refused'));
      const reasons = (id: string | undefined) => refused.filter((l) => l.clientOrderId === id).map((l) => l.reason);
      expect(reasons(ids[0])).toEqual(Array(1).fill("executedQty 5 is above the order's quantity 0.0005"));
      expect(reasons(ids[1])).toEqual(Array(1).fill('the new fill of 0.0005 would be booked at a price of 0'));
      expect(refused).toHaveLength(2);
      const payload = refused.find((l) => l.clientOrderId === ids[0])!.payload as Record<string, unknown>;
      expect(payload).toMatchObject({ executedQty: '5', executedSum: '0', clientOrderId: ids[0] });
      const a = compareJournal(file, running, 'ping');
      expect(a.problems).toEqual([]);
      const j = Journal.open(file, { readonly: true });
      expect(j.fills({})).toEqual([]);
      j.close();
      expect(bot.portfolio.positions.get('ping', 'BTCUSDT')?.quantity.toFixed() ?? '0').toBe('0');
    } finally {
      await proxy.close();
      await running.stop();
    }
  }, 60_000);
});
