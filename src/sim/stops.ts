/** Pending stop orders per market, in arrival order, with the exchange's direction rule. */
import type { Decimal } from '../core/decimal.js';
import type { SimOrder } from './order-types.js';

export class StopBook {
  private readonly pending = new Map<string, SimOrder[]>();

  add(o: SimOrder): void {
    const list = this.pending.get(o.symbol) ?? [];
    list.push(o);
    this.pending.set(o.symbol, list);
  }

  remove(o: SimOrder): void {
    const list = this.pending.get(o.symbol);
    const i = list ? list.indexOf(o) : -1;
    if (list && i >= 0) list.splice(i, 1);
  }

  /** The earliest stop whose condition `last` meets: at or below a stop set below, at or above one set above. */
  nextTriggered(symbol: string, last: Decimal): SimOrder | undefined {
    return this.pending.get(symbol)?.find((o) => (o.stopCondition === 'LESS_THAN_OR_EQUAL' ? last.lte(o.stopPrice!) : last.gte(o.stopPrice!)));
  }

  count(symbol: string): number {
    return this.pending.get(symbol)?.length ?? 0;
  }
}
