/**
 * Recovery at start: every order the journal holds as not final is taken over by the execution
 * engine and read back from the venue by client id; orders the venue has open under this bot's
 * client-id prefixes that the journal does not know are adopted too and reported. Nothing is
 * dropped silently: the report lists what was resolved, what is still unknown and the orphans.
 */
import { Decimal } from '../core/decimal.js';
import { isRetryable, NotFoundError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { ExecutionEngine } from '../execution/engine.js';
import type { TrackedOrder } from '../execution/tracked-order.js';
import type { Venue } from '../execution/venue.js';
import type { Journal } from '../store/journal.js';
import { trackedFromRow } from './journal-adapters.js';

export interface RecoveryReport {
  /** Orders the journal held as not final. */
  fromJournal: number;
  /** Of those, now known to the venue (still open or final). */
  resolved: number;
  /** Not on the venue: closed as rejected (never reached it) or cancelled. */
  missing: string[];
  /** Could not be read (venue unreachable): still tracked, looked up by the poller. */
  unknown: string[];
  /** Open on the venue under this bot's prefixes, absent from the journal: adopted and tracked. */
  orphans: string[];
}

export interface RecoveryDeps {
  journal: Journal;
  engine: ExecutionEngine;
  venueFor(account: string): Venue;
  logger: Logger;
  /** Client-id prefixes of this bot's strategies (config order), to recognise its orders. */
  prefixes: string[];
  strategyOfPrefix?: (prefix: string) => string | undefined;
}

export async function recoverOrders(d: RecoveryDeps): Promise<RecoveryReport> {
  const rows = d.journal.openOrders();
  const report: RecoveryReport = { fromJournal: rows.length, resolved: 0, missing: [], unknown: [], orphans: [] };
  const tracked = rows.map(trackedFromRow);
  d.engine.adopt(tracked);
  for (const o of tracked) {
    try {
      d.engine.onSnapshot(await d.venueFor(o.account).getOrder(o.clientOrderId));
      report.resolved++;
    } catch (err) {
      if (err instanceof NotFoundError) {
        d.engine.markMissing(o.clientOrderId, 'not on the exchange at recovery');
        report.missing.push(o.clientOrderId);
      } else {
        report.unknown.push(o.clientOrderId);
        if (!isRetryable(err)) d.logger.error({ clientOrderId: o.clientOrderId, err }, 'recovery could not read an order');
      }
    }
  }
  try {
    const open = await d.venueFor('main').openOrders();
    for (const snap of open) {
      const prefix = d.prefixes.find((p) => snap.clientOrderId.startsWith(`${p}_`));
      if (!prefix || d.engine.orders.has(snap.clientOrderId)) continue;
      const strategy = d.strategyOfPrefix?.(prefix) ?? prefix;
      const o: TrackedOrder = {
        clientOrderId: snap.clientOrderId,
        strategy,
        account: 'main',
        symbol: snap.symbol,
        side: snap.side,
        type: snap.type,
        price: snap.price,
        quantity: snap.origQty,
        filled: new Decimal(0),
        filledQuote: new Decimal(0),
        fee: new Decimal(0),
        state: 'pending',
        createdAt: 0,
        updatedAt: 0,
        quietPolls: 0,
      };
      d.engine.adopt([o]);
      d.engine.onSnapshot(snap);
      report.orphans.push(snap.clientOrderId);
    }
  } catch (err) {
    d.logger.warn({ err }, 'recovery could not list the open orders of the exchange');
  }
  if (report.fromJournal || report.orphans.length) {
    d.logger.warn(
      { fromJournal: report.fromJournal, resolved: report.resolved, missing: report.missing, unknown: report.unknown, orphans: report.orphans },
      'recovered orders from the journal and the exchange',
    );
  }
  return report;
}
