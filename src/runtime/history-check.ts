/**
 * Start-up cross-check of the journal against the exchange's order history (`GET /v1/account/orders`;
 * docs/live-trading.md, Recovery). Recovery reads back the orders the journal holds as open and adopts the open
 * orders it does not know; the history also shows this bot's orders that finished while the
 * journal did not see it (an order the journal never recorded, or one it holds with another
 * executed quantity or as still open). Each difference is logged with both views and listed in the
 * recovery report; nothing is changed on either side.
 */
import type { Logger } from '../core/logger.js';
import type { Paged, SpotOrder } from '../core/types/index.js';
import type { Journal } from '../store/journal.js';

export type OrderHistorySource = (q: { page: number; perPage: number }) => Promise<Paged<SpotOrder>>;

interface OrderView {
  status: string;
  executedQty: string;
  final: boolean;
}

interface HistoryDifference {
  clientOrderId: string;
  /** null: the journal does not know the order. */
  journal: OrderView | null;
  exchange: OrderView;
}

export interface HistoryCheck {
  /** Orders of this bot's prefixes the history listed. */
  checked: number;
  /** Finished orders the journal never recorded (open ones are adopted by recovery, see `adopted`). */
  notInJournal: HistoryDifference[];
  /** Orders both know whose executed quantity or finality differ. */
  differ: HistoryDifference[];
  /** Open orders the journal did not know: recovery adopted them (its `orphans`). */
  adopted: string[];
}

export interface HistoryCheckDeps {
  journal: Journal;
  history: OrderHistorySource;
  prefixes: string[];
  logger: Logger;
  /** Open orders recovery adopted (its `orphans`): the journal records them as it adopts them. */
  adopted: readonly string[];
  /** Pages of `perPage` read at most, newest first (default 5 × 100). */
  maxPages?: number;
  perPage?: number;
}

const exchangeView = (o: SpotOrder): OrderView => ({ status: o.status, executedQty: o.executedQty.toFixed(), final: !o.active });

export async function crossCheckHistory(d: HistoryCheckDeps): Promise<HistoryCheck> {
  const perPage = d.perPage ?? 100;
  const maxPages = d.maxPages ?? 5;
  const out: HistoryCheck = { checked: 0, notInJournal: [], differ: [], adopted: [] };
  for (let page = 1; page <= maxPages; page++) {
    const { items } = await d.history({ page, perPage });
    for (const o of items) {
      if (!d.prefixes.some((p) => o.clientOrderId.startsWith(`${p}_`))) continue;
      out.checked++;
      if (d.adopted.includes(o.clientOrderId)) {
        out.adopted.push(o.clientOrderId);
        continue;
      }
      const row = d.journal.order(o.clientOrderId);
      const exchange = exchangeView(o);
      if (!row) {
        out.notInJournal.push({ clientOrderId: o.clientOrderId, journal: null, exchange });
        d.logger.warn({ clientOrderId: o.clientOrderId, journal: null, exchange }, 'order history: an order of this bot the journal does not know');
        continue;
      }
      const journal: OrderView = { status: row.status, executedQty: row.executedQty.toFixed(), final: row.final };
      if (!row.executedQty.eq(o.executedQty) || row.final !== exchange.final) {
        out.differ.push({ clientOrderId: o.clientOrderId, journal, exchange });
        d.logger.warn({ clientOrderId: o.clientOrderId, journal, exchange }, 'order history: the exchange and the journal differ');
      }
    }
    if (items.length < perPage) break;
  }
  return out;
}
