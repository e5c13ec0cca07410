/**
 * Recovery at start: every order the journal holds as not final is taken over by the execution
 * engine and read back from the venue by client id; orders the venue has open under this bot's
 * client-id prefixes that the journal does not know are adopted too and reported. Nothing is
 * dropped silently: the report lists what was resolved, what is still unknown and the orphans.
 *
 * Positions: given a `portfolio`, the strategies' spot positions are rebuilt from the journal's
 * fills first; the fills the reconciliation discovers (an order that filled while the bot was down,
 * or whose create answer was lost) reach the portfolio as every fill does, through the engine's
 * `fill` event that the kernel books, so strategies start with the recovered state. Pass it only
 * when the venue outlives the process (live): a paper venue starts afresh.
 */
import { Decimal } from '../core/decimal.js';
import { isRetryable, NotFoundError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { ExecutionEngine } from '../execution/engine.js';
import type { TrackedOrder } from '../execution/tracked-order.js';
import type { Venue } from '../execution/venue.js';
import type { Journal } from '../store/journal.js';
import type { FillEvent } from '../core/views.js';
import { crossCheckHistory, type HistoryCheck, type OrderHistorySource } from './history-check.js';
import { trackedFromRow } from './journal-adapters.js';
import { MAIN_ACCOUNT } from '../core/account.js';
import { SystemClock, type Clock } from '../core/clock.js';
import { recordFreshAccount } from '../store/fresh-accounts.js';

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
  /** Journal fills replayed into the portfolio (0 without a portfolio). */
  fillsReplayed: number;
  /** Fills the reconciliation found that the journal did not hold (journaled now). */
  fillsFound: number;
  /**
   * Paper: open orders of an earlier run's paper exchange. A paper exchange lives in the process and
   * starts empty each run, so they cannot be looked up: they are closed in the journal (never placed
   * again) and reported once, not as missing.
   */
  closedFromEarlierPaperRun: string[];
  /** The journal against the exchange's order history (history-check.ts), when it was read. */
  history?: HistoryCheck;
}

/** Where recovered fills go (the Portfolio fits). */
interface PositionSink {
  applyFill(fill: FillEvent, account: string): unknown;
}

export interface RecoveryDeps {
  journal: Journal;
  engine: ExecutionEngine;
  venueFor(account: string): Venue;
  logger: Logger;
  /** Client-id prefixes of this bot's strategies (config order), to recognise its orders. */
  prefixes: string[];
  strategyOfPrefix?: (prefix: string) => string | undefined;
  /** Rebuild positions from the journal's fills (live venues only; the fills found reach it through the kernel). */
  portfolio?: PositionSink;
  /** The venue starts empty each run (default: when the main venue is a paper one). */
  freshVenue?: boolean;
  /** The run's clock: a fresh venue's start is recorded in the journal at its time (default: the system clock). */
  clock?: Clock;
  /** The main account's order history: the journal is cross-checked against it after reconciling. */
  orderHistory?: OrderHistorySource;
}

/** Why the journal's open orders of an earlier paper run are closed at start. */
const EARLIER_PAPER_RUN = 'order of an earlier paper run (the paper exchange starts empty each run)';

/** Replay the journal's fills into a portfolio, each on the account its order was placed from. */
function replayJournalFills(journal: Journal, portfolio: PositionSink): number {
  const accounts = new Map<string, string>();
  const accountOf = (clientId: string): string => {
    let a = accounts.get(clientId);
    if (a === undefined) {
      a = journal.order(clientId)?.account ?? MAIN_ACCOUNT;
      accounts.set(clientId, a);
    }
    return a;
  };
  let n = 0;
  for (const f of journal.fills({})) {
    const fill: FillEvent = {
      clientOrderId: f.clientId,
      strategy: f.strategy,
      symbol: f.symbol,
      side: f.side,
      price: f.price,
      quantity: f.quantity,
      fee: f.fee,
      feeAsset: f.feeAsset,
      timestamp: f.ts,
      ...(f.tag ? { tag: f.tag } : {}),
    };
    portfolio.applyFill(fill, accountOf(f.clientId));
    n++;
  }
  return n;
}

export async function recoverOrders(d: RecoveryDeps): Promise<RecoveryReport> {
  const rows = d.journal.openOrders();
  const report: RecoveryReport = {
    fromJournal: rows.length,
    resolved: 0,
    missing: [],
    unknown: [],
    orphans: [],
    fillsReplayed: 0,
    fillsFound: 0,
    closedFromEarlierPaperRun: [],
  };
  if (d.freshVenue ?? d.venueFor(MAIN_ACCOUNT).kind === 'paper') {
    // Nothing to look up: the exchange those orders rested on ended with its process. The journal
    // marks where this run's fresh account starts, so its readers never carry a position across.
    recordFreshAccount(d.journal, (d.clock ?? new SystemClock()).now());
    const tracked = rows.map(trackedFromRow);
    d.engine.adopt(tracked);
    for (const o of tracked) {
      d.engine.markMissing(o.clientOrderId, EARLIER_PAPER_RUN);
      report.closedFromEarlierPaperRun.push(o.clientOrderId);
    }
    if (rows.length) {
      d.logger.info(
        { closed: rows.length, strategies: [...new Set(rows.map((r) => r.strategy))] },
        `closed ${rows.length} open order(s) of an earlier paper run in the journal: the paper exchange starts empty each run`,
      );
    }
    return report;
  }
  if (d.portfolio) report.fillsReplayed = replayJournalFills(d.journal, d.portfolio);
  // The engine emits a fill only when the journal did not hold it, and the kernel books every fill
  // the engine emits (kernel/trading-core.ts): recovery only counts them. Booking them here too
  // counted each fill found twice (the position, the fees, a grid's sells).
  const onFill = () => {
    report.fillsFound++;
  };
  d.engine.on('fill', onFill);
  try {
    await reconcile(d, rows, report);
  } finally {
    d.engine.off('fill', onFill);
  }
  if (d.orderHistory) {
    try {
      report.history = await crossCheckHistory({
        journal: d.journal,
        history: d.orderHistory,
        prefixes: d.prefixes,
        logger: d.logger,
        adopted: report.orphans,
      });
    } catch (err) {
      d.logger.warn({ err }, 'recovery could not read the order history of the exchange');
    }
  }
  if (report.fromJournal || report.orphans.length) {
    d.logger.warn(
      {
        fromJournal: report.fromJournal,
        resolved: report.resolved,
        missing: report.missing,
        unknown: report.unknown,
        orphans: report.orphans,
        fillsFound: report.fillsFound,
      },
      'recovered orders from the journal and the exchange',
    );
  }
  return report;
}

async function reconcile(d: RecoveryDeps, rows: ReturnType<Journal['openOrders']>, report: RecoveryReport): Promise<void> {
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
    const open = await d.venueFor(MAIN_ACCOUNT).openOrders();
    for (const snap of open) {
      const prefix = d.prefixes.find((p) => snap.clientOrderId.startsWith(`${p}_`));
      if (!prefix || d.engine.orders.has(snap.clientOrderId)) continue;
      const strategy = d.strategyOfPrefix?.(prefix) ?? prefix;
      const o: TrackedOrder = {
        clientOrderId: snap.clientOrderId,
        strategy,
        account: MAIN_ACCOUNT,
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
}
