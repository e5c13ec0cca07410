/**
 * `mizan orders` on the user's path (issue #35 item 4): the CLI in a child process reads the order
 * history of the simulator over HTTP on 127.0.0.1 (key from WALLEX_API_KEY) and a journal file in a
 * temp dir, and lists each exchange order beside the journal's view of it.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { Journal } from '../../src/store/journal.js';
import { startFullSim } from '../sim/wire/contract.js';
import { mizan, tempDir } from './cli.js';

const tmp = tempDir('mizan-e2e-orders-');
afterAll(() => tmp.remove());

describe('mizan orders', () => {
  it("lists the exchange's orders beside the journal's, flagging differences", async () => {
    const h = await startFullSim();
    try {
      const place = (id: string, q = '2') =>
        h.call('POST', '/v1/account/orders', { body: { symbol: 'USDTTMN', side: 'BUY', type: 'LIMIT', price: '50000', quantity: q, client_id: id } });
      for (const id of ['bot_same', 'bot_diff', 'bot_new']) expect((await place(id)).status).toBe(201);
      await h.client.cancelOrder('bot_diff');
      const file = join(tmp.dir, 'journal.sqlite');
      const j = Journal.open(file, { clock: h.clock });
      const base = {
        strategy: 'grid',
        symbol: 'USDTTMN',
        side: 'BUY' as const,
        type: 'LIMIT',
        venue: 'live',
        account: 'main',
        price: d('50000'),
        quantity: d('2'),
        ts: h.clock.now(),
      };
      j.recordOrder({ ...base, clientId: 'bot_same', executedQty: d(0), status: 'open', final: false });
      j.recordOrder({ ...base, clientId: 'bot_diff', executedQty: d(0), status: 'open', final: false });
      j.close();

      const env = { WALLEX_API_KEY: h.account.apiKey };
      const r = await mizan(['orders', '--journal', file, '--url', h.server.url], { env });
      expect(r.code, r.all).toBe(0);
      const row = (id: string) => r.stdout.split('\n').find((l) => l.includes(id)) ?? '';
      expect(row('bot_same')).toMatch(/NEW\s+0\s+open\s+0\s+grid\s+same$/);
      expect(row('bot_diff')).toMatch(/CANCELED\s+0\s+open\s+0\s+grid\s+differs$/);
      expect(row('bot_new')).toMatch(/NEW\s+0\s+-\s+-\s+-\s+not in journal$/);
      expect(r.stdout).toContain('3 orders on the exchange: 1 as the journal has them, 1 differ, 1 not in the journal');
      expect(r.all).not.toContain(h.account.apiKey);

      const filtered = await mizan(['orders', '--journal', file, '--url', h.server.url, '--side', 'sell'], { env });
      expect(filtered.code, filtered.all).toBe(0);
      expect(filtered.stdout).toBe('no orders on the exchange\n');

      const noKey = await mizan(['orders', '--journal', file, '--url', h.server.url], { env: { WALLEX_API_KEY: undefined } });
      expect(noKey.code).not.toBe(0);
      expect(noKey.stderr).toContain('WALLEX_API_KEY');
      const badSide = await mizan(['orders', '--journal', file, '--url', h.server.url, '--side', 'up'], { env });
      expect(badSide.code).not.toBe(0);
      expect(badSide.stderr).toMatch(/--side.*up/);
    } finally {
      await h.stop();
    }
  }, 120_000);
});
