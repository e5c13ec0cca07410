/**
 * The spot orders of a backtest as the result's order records, in the order they were placed. An
 * order's record is made when it ends (a final order never changes again), so the execution engine
 * need not keep every final order until the end of the run: memory holds a record of plain strings per
 * order instead of the tracked order and its Decimals. Orders still live at the end are recorded then.
 */
import { avgPrice, type TrackedOrder } from '../execution/tracked-order.js';
import type { OrderRecord } from './order-record.js';
import { ChurnMap } from '../core/churn-map.js';

export interface SpotOrderLogDeps {
  /**
   * Why a market order was cancelled unfilled at placement: the venue learns it after the order has
   * ended, so it is looked up when the records are read.
   */
  reason(clientOrderId: string): string | undefined;
  /** The exchange's time of the order's last fill; `forget`: the order has ended, nothing will read it again. */
  lastFill(clientOrderId: string, forget: boolean): number | undefined;
}

export class SpotOrderLog {
  /** By placement: the record of an ended order, undefined while it is live. */
  private readonly records: (OrderRecord | undefined)[] = [];
  private readonly live = new ChurnMap<string, { index: number; order: TrackedOrder }>();

  constructor(private readonly deps: SpotOrderLogDeps) {}

  /** An order was submitted (before it reaches the venue). */
  submitted(o: TrackedOrder): void {
    this.live.set(o.clientOrderId, { index: this.records.length, order: o });
    this.records.push(undefined);
  }

  /** An order reached a final state. */
  ended(o: TrackedOrder): void {
    const e = this.live.get(o.clientOrderId);
    if (!e) return;
    this.live.delete(o.clientOrderId);
    this.records[e.index] = this.record(o, true);
  }

  /** Every order's record, in the order they were placed (live ones as they are now). */
  all(): OrderRecord[] {
    const out = this.records.slice();
    for (const { index, order } of this.live.values()) out[index] = this.record(order, false);
    return out.map((r) => {
      const rec = r!;
      if (rec.reason === null) rec.reason = this.deps.reason(rec.clientOrderId) ?? null;
      return rec;
    });
  }

  get size(): number {
    return this.records.length;
  }

  private record(o: TrackedOrder, ended: boolean): OrderRecord {
    const lastFill = this.deps.lastFill(o.clientOrderId, ended);
    return {
      kind: 'spot',
      clientOrderId: o.clientOrderId,
      strategy: o.strategy,
      symbol: o.symbol,
      side: o.side,
      type: o.type,
      price: o.price?.toFixed() ?? null,
      stopPrice: o.stopPrice?.toFixed() ?? null,
      quantity: o.quantity.toFixed(),
      filled: o.filled.toFixed(),
      avgPrice: o.filled.gt(0) ? avgPrice(o).toSignificantDigits(12).toFixed() : null,
      fee: o.fee.toFixed(),
      feeAsset: o.feeAsset ?? null,
      state: o.state,
      reason: o.reason ?? null,
      tag: o.tag ?? null,
      createdAt: o.createdAt,
      // The exchange's time of its last fill when later (an order decided before a gap fills at the next open).
      updatedAt: Math.max(o.updatedAt, lastFill ?? -Infinity),
    };
  }
}
