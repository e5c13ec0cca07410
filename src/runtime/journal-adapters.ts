/**
 * The journal seen through the ports of the execution engine, the strategies' key-value state and
 * the risk verdicts. Orders are inserted once and then updated; an order is final in the journal
 * exactly when the tracker says so; a fill is stored once per (client id, executed quantity).
 */
import type { Brackets } from '../core/intents.js';
import type { ExecutionJournal } from '../execution/engine.js';
import { isFinal, type TrackedOrder } from '../execution/tracked-order.js';
import type { Journal } from '../store/journal.js';
import type { OrderRow } from '../store/types.js';
import type { FillEvent, JsonValue, KeyValueStore, OrderState } from '../core/views.js';
import { Decimal } from '../core/decimal.js';
import type { MarginJournal } from '../kernel/margin-book.js';

const orderDetail = (o: TrackedOrder): Record<string, unknown> => ({
  filledQuote: o.filledQuote.toFixed(),
  fee: o.fee.toFixed(),
  ...(o.reason ? { reason: o.reason } : {}),
  // Kept so a restarted bot still knows a stop's trigger and an entry's brackets (execution/brackets.ts).
  ...(o.stopPrice ? { stopPrice: o.stopPrice.toFixed() } : {}),
  ...(o.brackets ? { brackets: bracketsText(o.brackets) } : {}),
});

function bracketsText(b: Brackets): { stopLoss?: string; takeProfit?: string } {
  return { ...(b.stopLoss ? { stopLoss: b.stopLoss.toFixed() } : {}), ...(b.takeProfit ? { takeProfit: b.takeProfit.toFixed() } : {}) };
}

export class JournalExecutionAdapter implements ExecutionJournal {
  private readonly known = new Set<string>();
  constructor(
    private readonly journal: Journal,
    private readonly venue: string,
  ) {}

  upsertOrder(o: TrackedOrder): void {
    const final = isFinal(o.state);
    const detail = orderDetail(o);
    // An order not seen by this process is inserted first (new orders: no lookup on the way to the
    // exchange); one the journal already holds (recovered after a restart) is updated instead.
    if (!this.known.has(o.clientOrderId) && this.tryInsert(o, final, detail)) {
      this.known.add(o.clientOrderId);
      return;
    }
    this.journal.updateOrder(o.clientOrderId, { status: o.state, final, executedQty: o.filled, ts: o.updatedAt, detail });
    this.known.add(o.clientOrderId);
  }

  recordNewOrder(o: TrackedOrder, event: Record<string, unknown>): void {
    const final = isFinal(o.state);
    if (!this.known.has(o.clientOrderId) && this.tryInsert(o, final, orderDetail(o), event)) {
      this.known.add(o.clientOrderId);
      return;
    }
    this.upsertOrder(o);
    this.orderEvent(o.clientOrderId, o.state, event);
  }

  /** Insert the order and its first event (detail `event`, default the order's); false when the journal already holds its client id. */
  private tryInsert(o: TrackedOrder, final: boolean, detail: Record<string, unknown>, event?: Record<string, unknown>): boolean {
    try {
      this.journal.recordOrder({
        clientId: o.clientOrderId,
        strategy: o.strategy,
        symbol: o.symbol,
        side: o.side,
        type: o.type,
        venue: this.venue,
        account: o.account,
        ...(o.price ? { price: o.price } : {}),
        quantity: o.quantity,
        executedQty: o.filled,
        status: o.state,
        final,
        ts: o.updatedAt,
        ...(o.tag ? { tag: o.tag } : {}),
        detail,
        ...(event ? { eventDetail: event } : {}),
      });
      return true;
    } catch (err) {
      if (isPrimaryKeyClash(err)) return false;
      throw err;
    }
  }

  orderEvent(clientOrderId: string, state: OrderState, detail: Record<string, unknown>): void {
    if (!this.known.has(clientOrderId) && !this.journal.order(clientOrderId)) return;
    this.journal.recordOrderEvent(clientOrderId, state, detail);
  }

  recordFill(f: FillEvent, key: string): boolean {
    return this.journal.recordFill({
      clientId: f.clientOrderId,
      fillKey: key,
      strategy: f.strategy,
      symbol: f.symbol,
      side: f.side,
      price: f.price,
      quantity: f.quantity,
      fee: f.fee,
      feeAsset: f.feeAsset,
      ts: f.timestamp,
      ...(f.tag ? { tag: f.tag } : {}),
    });
  }
}

function isPrimaryKeyClash(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** A journal order row back into a tracked order (recovery). */
export function trackedFromRow(r: OrderRow): TrackedOrder {
  const detail = (r.detail ?? {}) as { filledQuote?: string; fee?: string; stopPrice?: string; brackets?: { stopLoss?: string; takeProfit?: string } };
  const o: TrackedOrder = {
    clientOrderId: r.clientId,
    strategy: r.strategy,
    account: r.account,
    symbol: r.symbol,
    side: r.side,
    type: r.type,
    quantity: r.quantity,
    filled: r.executedQty,
    filledQuote: new Decimal(detail.filledQuote ?? '0'),
    fee: new Decimal(detail.fee ?? '0'),
    state: r.status as OrderState,
    createdAt: r.createdTs,
    updatedAt: r.updatedTs,
    quietPolls: 0,
  };
  if (r.price) o.price = r.price;
  if (r.tag) o.tag = r.tag;
  if (detail.stopPrice) o.stopPrice = new Decimal(detail.stopPrice);
  if (detail.brackets && (detail.brackets.stopLoss || detail.brackets.takeProfit)) {
    o.brackets = {
      ...(detail.brackets.stopLoss ? { stopLoss: new Decimal(detail.brackets.stopLoss) } : {}),
      ...(detail.brackets.takeProfit ? { takeProfit: new Decimal(detail.brackets.takeProfit) } : {}),
    };
  }
  return o;
}

export function journalKv(journal: Journal, strategy: string): KeyValueStore {
  return {
    get: <T extends JsonValue>(key: string) => journal.kvGet(strategy, key) as T | undefined,
    set: (key, value) => journal.kvSet(strategy, key, value),
    delete: (key) => void journal.kvDelete(strategy, key),
  };
}

/** The journal's `positions` table as the kernel's margin book keeps it (kernel/margin-book.ts). */
export function journalMargin(journal: Journal): MarginJournal {
  return {
    upsert: (p, strategy, account) => journal.upsertPosition(p, strategy, undefined, account),
    rows: () =>
      journal.positions().map((r) => {
        const account = r.position.account;
        return {
          id: r.id,
          state: r.state,
          market: r.market,
          ...(r.strategy !== undefined ? { strategy: r.strategy } : {}),
          ...(typeof account === 'string' ? { account } : {}),
        };
      }),
  };
}
