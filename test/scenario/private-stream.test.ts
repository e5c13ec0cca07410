/**
 * Drill: a live bot with `exchange.stream.privateKey` against the simulator. Orders are placed,
 * filled and cancelled by the pinger; the private stream reports them (orderSaved, tradeDetails,
 * balanceUpdated) while the REST poller runs beside it. Every order ends in the journal as on the
 * simulator, each fill is booked once (quantities and fees add up to the simulator's), no update is
 * an orphan, and the stream key appears in no log line.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import { parseConfig } from '../../src/config/index.js';
import { Journal } from '../../src/store/journal.js';
import { captureLogger } from '../exchange/rest/helpers.js';
import { DRILL_KEY, KEY_ENV, REPO, compareJournal, finishPinger, liveYaml, startDrillSim, startLiveBot, tempDir, waitFor } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

describe('drill: live bot with the private stream', () => {
  it('tracks every order with the stream beside polling, books each fill once, never logs the key', async () => {
    const running = await startDrillSim();
    const file = join(tmp.dir, 'private.sqlite');
    const orders = 9;
    try {
      const yaml = liveYaml({ url: running.server.url, journal: file, params: { maxOrders: orders, everyMs: 250, maxOpen: 2 } }).replace(
        `  timeoutMs:`,
        '  stream:\n    privateKey: ${MIZAN_STREAM_KEY}\n  timeoutMs:',
      );
      const config = parseConfig(yaml, { env: { [KEY_ENV]: DRILL_KEY, MIZAN_STREAM_KEY: running.streamKey }, baseDir: REPO });
      expect(config.exchange.stream.privateKey).toBe(running.streamKey);
      const { logger, lines } = captureLogger();
      const bot = await startLiveBot(config, { logger });
      expect(bot.privateStream).toBeDefined();
      await waitFor('the private stream to be up', () => bot.privateStream!.client.isUp, 10_000, 20);
      await finishPinger(bot, orders, 60_000);

      const stats = bot.privateStream!.tracker.stats();
      expect(stats.orphans).toBe(0);
      expect(stats.orderSaved).toBeGreaterThanOrEqual(orders);
      expect(stats.tradeDetails).toBeGreaterThanOrEqual(orders / 3);
      expect(bot.privateStream!.client.stats().balanceUpdated).toBeGreaterThan(0);

      const a = compareJournal(file, running, 'ping');
      expect(a.problems).toEqual([]);
      expect(a.journalOrders).toHaveLength(orders);
      expect(a.journalOrders.filter((r) => r.status === 'filled')).toHaveLength(orders / 3);
      const journal = Journal.open(file, { readonly: true });
      try {
        for (const o of a.simOrders) {
          const fills = journal.fills().filter((f) => f.clientId === o.clientOrderId);
          const qty = fills.reduce((s, f) => s.plus(f.quantity), new Decimal(0));
          const fee = fills.reduce((s, f) => s.plus(f.fee), new Decimal(0));
          expect([o.clientOrderId, qty.toFixed(), fee.toFixed()]).toEqual([o.clientOrderId, o.executedQty.toFixed(), o.fee.toFixed()]);
        }
        // Some state changes came from the stream (the journal names the source).
        const fromStream = a.journalOrders
          .flatMap((r) => journal.orderEvents(r.clientId))
          .filter((e) => (e.detail as { source?: string } | undefined)?.source === 'private-stream');
        expect(fromStream.length).toBeGreaterThan(0);
      } finally {
        journal.close();
      }
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).not.toContain(running.streamKey.slice(0, 12));
    } finally {
      await running.stop();
    }
  }, 120_000);
});
