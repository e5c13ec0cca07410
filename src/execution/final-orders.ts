/**
 * The final orders an ExecutionEngine keeps in its `orders` map: the last `retain` of them, in the
 * order they ended; older ones leave the map (a live bot's journal has them). With `keepOwners` the
 * strategy of every order that left is remembered, so a cancel of it is still recognised as its
 * owner's: a backtest keeps few final orders and must mean the same as one that keeps them all.
 */
import type { TrackedOrder } from './tracked-order.js';
import { isFinal } from './tracked-order.js';

export class FinalOrders {
  /** Final orders in the order they ended, from `head` on (the same objects `orders` holds). */
  private readonly ended: TrackedOrder[] = [];
  private head = 0;
  private readonly owners = new Map<string, string>();

  constructor(
    private readonly orders: Map<string, TrackedOrder>,
    /** Final orders kept (Infinity: every one, and nothing is tracked here). */
    private readonly retain: number,
    private readonly keepOwners: boolean,
  ) {}

  /** An order of `orders` reached a final state. */
  end(o: TrackedOrder): void {
    if (!Number.isFinite(this.retain)) return;
    this.ended.push(o);
    while (this.ended.length - this.head > this.retain) {
      const old = this.ended[this.head++]!;
      // Still the object `orders` holds under its id: nothing replaces an order there.
      if (isFinal(old.state)) {
        this.orders.delete(old.clientOrderId);
        if (this.keepOwners) this.owners.set(old.clientOrderId, old.strategy);
      }
    }
    // Orders before `head` are let go once they are as many as the ones kept: the array stays small,
    // and none is held long enough to be promoted by the young-generation collector.
    if (this.head > 64 && this.head * 2 > this.ended.length) {
      this.ended.splice(0, this.head);
      this.head = 0;
    }
  }

  /** The strategy of a final order that left `orders` (with keepOwners). */
  ownerOf(clientOrderId: string): string | undefined {
    return this.owners.get(clientOrderId);
  }
}
