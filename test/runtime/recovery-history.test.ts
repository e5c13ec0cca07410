/**
 * Issue #35 item 4: at start-up, recovery cross-checks the journal against the exchange's order
 * history (`GET /v1/account/orders`): the REST client against the simulator over HTTP on 127.0.0.1,
 * a journal file in a temp dir. An order the journal does not know is adopted (open) or reported
 * (finished); one both know with a different executed quantity or finality is reported; each is
 * logged with the journal's view and the exchange's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { Logger } from '../../src/core/logger.js';
import { ClientIdGenerator } from '../../src/execution/client-id.js';
import { ExecutionEngine } from '../../src/execution/engine.js';
import { JournalExecutionAdapter } from '../../src/runtime/journal-adapters.js';
import { recoverOrders } from '../../src/runtime/recovery.js';
import { Journal } from '../../src/store/journal.js';
import { RestVenue } from '../../src/venues/rest-venue.js';
import { startFullSim } from '../sim/wire/contract.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

function capture(): { logger: Logger; warnings: { obj: Record<string, unknown>; msg: string }[] } {
  const warnings: { obj: Record<string, unknown>; msg: string }[] = [];
  const noop = () => {};
  const logger: Logger = {
    trace: noop,
    debug: noop,
    info: noop,
    error: noop,
    fatal: noop,
    warn: ((obj: unknown, msg?: string) =>
      void warnings.push({ obj: (typeof obj === 'object' ? obj : {}) as Record<string, unknown>, msg: msg ?? String(obj) })) as Logger['warn'],
    child: () => logger,
  };
  return { logger, warnings };
}

describe('recovery: the journal against the exchange order history', () => {
  it('adopts or reports what the journal does not know, and reports differences with both views', async () => {
    const h = await startFullSim();
    const dir = mkdtempSync(join(tmpdir(), 'mizan-recovery-history-'));
    const journal = Journal.open(join(dir, 'journal.sqlite'), { clock: h.clock });
    cleanup = async () => {
      journal.close();
      await h.stop();
      rmSync(dir, { recursive: true, force: true });
    };
    const place = (id: string) =>
      h.call('POST', '/v1/account/orders', { body: { symbol: 'USDTTMN', side: 'BUY', type: 'LIMIT', price: '50000', quantity: '2', client_id: id } });
    for (const id of ['bot_a', 'bot_b', 'bot_c', 'bot_d', 'other_x']) expect((await place(id)).status).toBe(201);
    await h.client.cancelOrder('bot_b');
    await h.client.cancelOrder('bot_c');
    const base = {
      strategy: 'bot',
      symbol: 'USDTTMN',
      side: 'BUY' as const,
      type: 'LIMIT',
      venue: 'live',
      account: 'main',
      price: d('50000'),
      quantity: d('2'),
    };
    // bot_a: open in both. bot_b: the journal holds it filled; the exchange cancelled it unfilled.
    journal.recordOrder({ ...base, clientId: 'bot_a', executedQty: d(0), status: 'open', final: false, ts: h.clock.now() });
    journal.recordOrder({ ...base, clientId: 'bot_b', executedQty: d(2), status: 'filled', final: true, ts: h.clock.now() });

    const { logger, warnings } = capture();
    const venue = new RestVenue(h.client);
    const engine = new ExecutionEngine({
      venueFor: () => venue,
      clock: h.clock,
      logger,
      ids: new ClientIdGenerator(h.clock, 't'),
      journal: new JournalExecutionAdapter(journal, 'live'),
    });
    const report = await recoverOrders({
      journal,
      engine,
      venueFor: () => venue,
      logger,
      prefixes: ['bot'],
      freshVenue: false,
      orderHistory: (q) => h.client.getOrderHistory(q),
    });
    engine.stop();
    expect(report.orphans).toEqual(['bot_d']);
    expect(report.history).toEqual({
      checked: 4,
      adopted: ['bot_d'],
      notInJournal: [{ clientOrderId: 'bot_c', journal: null, exchange: { status: 'CANCELED', executedQty: '0', final: true } }],
      differ: [
        {
          clientOrderId: 'bot_b',
          journal: { status: 'filled', executedQty: '2', final: true },
          exchange: { status: 'CANCELED', executedQty: '0', final: true },
        },
      ],
    });
    const logged = warnings.filter((w) => w.msg.startsWith('order history:'));
    expect(logged.map((w) => [w.obj.clientOrderId, w.msg])).toEqual([
      ['bot_c', 'order history: an order of this bot the journal does not know'],
      ['bot_b', 'order history: the exchange and the journal differ'],
    ]);
    expect(logged[1]!.obj).toMatchObject({ journal: { executedQty: '2' }, exchange: { executedQty: '0', status: 'CANCELED' } });
  });

  it('a failed history read is logged and recovery goes on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mizan-recovery-history-'));
    const h = await startFullSim();
    const journal = Journal.open(join(dir, 'journal.sqlite'), { clock: h.clock });
    cleanup = async () => {
      journal.close();
      await h.stop();
      rmSync(dir, { recursive: true, force: true });
    };
    const { logger, warnings } = capture();
    const venue = new RestVenue(h.client);
    const engine = new ExecutionEngine({
      venueFor: () => venue,
      clock: h.clock,
      logger,
      ids: new ClientIdGenerator(h.clock, 't'),
      journal: new JournalExecutionAdapter(journal, 'live'),
    });
    const report = await recoverOrders({
      journal,
      engine,
      venueFor: () => venue,
      logger,
      prefixes: ['bot'],
      freshVenue: false,
      orderHistory: () => Promise.reject(new Error('HTTP 500')),
    });
    engine.stop();
    expect(report.history).toBeUndefined();
    expect(warnings.map((w) => w.msg)).toContain('recovery could not read the order history of the exchange');
  });
});
