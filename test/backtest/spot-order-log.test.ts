/** The spot orders' records of a backtest, made as each order ends (src/backtest/spot-order-log.ts). */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import type { TrackedOrder } from '../../src/execution/tracked-order.js';
import { SpotOrderLog } from '../../src/backtest/spot-order-log.js';

const d = (x: string) => new Decimal(x);

function order(id: string, createdAt: number): TrackedOrder {
  return {
    clientOrderId: id,
    strategy: 's',
    account: 'main',
    symbol: 'BTCUSDT',
    side: 'BUY',
    type: 'MARKET',
    quantity: d('1'),
    filled: d('0'),
    filledQuote: d('0'),
    fee: d('0'),
    state: 'pending',
    createdAt,
    updatedAt: createdAt,
    quietPolls: 0,
  };
}

describe('SpotOrderLog', () => {
  it('lists every order in the order placed: ended ones as they ended, live ones as they are at the end', () => {
    const reasons = new Map<string, string>();
    const fills = new Map<string, number>();
    const taken: string[] = [];
    const log = new SpotOrderLog({
      reason: (id) => reasons.get(id),
      lastFill: (id, forget) => {
        const t = fills.get(id);
        if (forget) {
          taken.push(id);
          fills.delete(id);
        }
        return t;
      },
    });
    const a = order('a', 1);
    const b = order('b', 2);
    const c = order('c', 3);
    for (const o of [a, b, c]) log.submitted(o);
    // b fills and ends; its last fill was stamped after its own update time (a gap)
    Object.assign(b, { filled: d('1'), filledQuote: d('100'), state: 'filled', updatedAt: 5 });
    fills.set('b', 9);
    log.ended(b);
    expect(taken).toEqual(['b']);
    // a record never changes after its order ended
    b.state = 'cancelled';
    log.ended(b);
    // c ends cancelled, and the venue learns why only afterwards
    c.state = 'cancelled';
    log.ended(c);
    reasons.set('c', 'no next candle to fill the market order against');
    // a is still live at the end
    a.state = 'open';
    const all = log.all();
    expect(all.map((r) => `${r.clientOrderId} ${r.state} ${r.filled} ${r.avgPrice} ${r.updatedAt} ${r.reason}`)).toEqual([
      'a open 0 null 1 null',
      'b filled 1 100 9 null',
      'c cancelled 0 null 3 no next candle to fill the market order against',
    ]);
    expect(log.size).toBe(3);
  });

  it('ignores an order it was not told of', () => {
    const log = new SpotOrderLog({ reason: () => undefined, lastFill: () => undefined });
    log.ended(order('x', 1));
    expect(log.all()).toEqual([]);
  });
});
