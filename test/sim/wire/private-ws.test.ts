/**
 * The private channel over the plain WebSocket and across connection lifetimes: the ExecutionEngine
 * on the REST venue with the PrivateStreamClient and the SQLite journal, against the simulator. The
 * simulator cuts stream connections after 1.5 s (plus 0.1 s per ping answered, at most 2); the
 * private client replaces its connection make-before-break before each cut, so order updates and
 * fills keep arriving, each fill is booked exactly once, and the stream never goes down.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SystemClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/logger.js';
import { d, Decimal } from '../../../src/core/decimal.js';
import { WallexRestClient } from '../../../src/exchange/rest/client.js';
import { PrivateStreamClient } from '../../../src/exchange/stream/private-client.js';
import type { StreamTransport } from '../../../src/exchange/stream/transport.js';
import { ClientIdGenerator } from '../../../src/execution/client-id.js';
import { ExecutionEngine } from '../../../src/execution/engine.js';
import { PrivateStreamTracker } from '../../../src/venues/private-stream.js';
import { RestVenue } from '../../../src/venues/rest-venue.js';
import { JournalExecutionAdapter } from '../../../src/runtime/journal-adapters.js';
import { Journal } from '../../../src/store/journal.js';
import type { FillEvent } from '../../../src/strategy/views.js';
import { startSim } from './harness.js';
import { waitFor as waitForCondition } from '../../support/wait-for.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});
async function until(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  await waitForCondition(cond, { what, timeout: ms, interval: 10 });
}

const RULE = { cutAfterMs: 1500, extendMs: 100, maxExtensions: 2 };

describe('private channel over the plain WebSocket, across connection lifetimes', () => {
  for (const transport of ['ws', 'socketio'] as const satisfies readonly StreamTransport[]) {
    it(`over ${transport}: order updates and fills arrive through several replacements and are booked once`, async () => {
      const h = await startSim({ stream: { pingIntervalMs: 100, lifetime: RULE } });
      cleanup.push(() => h.server.close());
      const key = h.server.streamKeys.issue(h.account.accountId);
      const clock = new SystemClock();
      const dir = mkdtempSync(join(tmpdir(), 'mizan-private-ws-'));
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      const journal = Journal.open(join(dir, 'journal.db'), { clock });
      cleanup.push(() => journal.close());
      const rest = new WallexRestClient({ baseUrl: h.server.url, apiKey: h.account.apiKey });
      const engine = new ExecutionEngine({
        venueFor: () => new RestVenue(rest),
        clock,
        logger: silentLogger,
        ids: new ClientIdGenerator(clock),
        journal: new JournalExecutionAdapter(journal, 'live'),
        // Covered orders are left to the stream (a poll a minute): the fills below come over it.
        options: { fastPollMs: 40, slowPollMs: 40, youngMs: 60_000, lookupDelayMs: 20, coveredPollMs: 60_000 },
      });
      const stream = new PrivateStreamClient({
        url: h.server.streamUrl,
        transport,
        streamKey: key,
        lifetime: RULE,
        lifetimeLeadMs: 700,
        handoverTimeoutMs: 300,
      });
      cleanup.push(() => stream.close());
      const downs: string[] = [];
      stream.on('down', (why) => downs.push(why));
      const tracker = new PrivateStreamTracker({ engine, stream, clock, logger: silentLogger, graceMs: 200 });
      tracker.start();
      cleanup.push(() => tracker.stop());
      await stream.connect();
      expect(stream.transport).toBe(transport);
      const poller = setInterval(() => void engine.pollOnce().catch(() => undefined), 20);
      cleanup.push(() => clearInterval(poller));
      const fills: FillEvent[] = [];
      engine.on('fill', (f) => fills.push(f));

      const price = h.sim.bestBid('USDTTMN')!.minus(100);
      const id = (
        await engine.submitOrder({
          kind: 'order',
          strategy: 'pw',
          symbol: 'USDTTMN',
          side: 'BUY',
          type: 'LIMIT',
          size: { kind: 'base', quantity: d(12) },
          price,
        })
      ).clientOrderId;
      const o = engine.orders.get(id)!;
      await until('the stream to report the new order', () => tracker.stats().orderSaved >= 1);
      // Twelve fills of 1 in three batches of four, each batch on a later connection (after one
      // more replacement), each fill received before the next trade.
      for (let i = 0; i < 12; i++) {
        if (i > 0 && i % 4 === 0) await until(`replacement ${i / 4} before fill ${i + 1}`, () => stream.stats().rotations >= i / 4);
        h.sim.recordTrade({ symbol: 'USDTTMN', price: price.minus(1), quantity: d(1), isBuyOrder: false, timestamp: h.clock.now() });
        await until(`fill ${i + 1} received`, () => fills.length >= i + 1);
      }
      await until('the order to be filled', () => o.state === 'filled');
      // A duplicate would come late over a connection being replaced: once one more replacement is
      // done, whatever either connection carried for the order has arrived.
      const rotations = stream.stats().rotations;
      await until('a replacement after the last fill', () => stream.stats().rotations > rotations);

      expect(stream.stats().rotations).toBeGreaterThanOrEqual(2);
      expect(downs).toEqual([]);
      expect(tracker.stats().tradeDetails).toBe(12);
      const simOrder = h.sim.getOrder('test', id);
      expect(fills).toHaveLength(12);
      expect(fills.reduce((s, f) => s.plus(f.quantity), new Decimal(0)).toFixed()).toBe('12');
      expect(fills.reduce((s, f) => s.plus(f.fee), new Decimal(0)).toFixed()).toBe(simOrder.fee.toFixed());
      expect(journal.fills()).toHaveLength(12);
      const filled = journal
        .orderEvents(id)
        .filter((e) => e.state === 'filled')
        .map((e) => e.detail);
      expect(filled).toContainEqual({ source: 'private-stream', filled: '12' });
    }, 30_000);
  }
});
