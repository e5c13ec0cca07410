/**
 * The journal port of the execution engine: a new order is inserted without a lookup first (it is
 * on the way to the exchange); an order the journal already holds (recovered after a restart) is
 * updated, never inserted twice; a final order is never changed again.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import type { TrackedOrder } from '../../src/execution/tracked-order.js';
import { JournalExecutionAdapter, trackedFromRow } from '../../src/runtime/journal-adapters.js';
import { Journal } from '../../src/store/journal.js';

function order(id: string, over: Partial<TrackedOrder> = {}): TrackedOrder {
  return {
    clientOrderId: id,
    strategy: 's',
    account: 'main',
    symbol: 'BTCUSDT',
    side: 'BUY',
    type: 'LIMIT',
    price: d('60000'),
    quantity: d('0.01'),
    filled: d(0),
    filledQuote: d(0),
    fee: d(0),
    state: 'pending',
    createdAt: 1,
    updatedAt: 1,
    quietPolls: 0,
    ...over,
  };
}

describe('JournalExecutionAdapter', () => {
  it('inserts new orders and updates them, with events', () => {
    const journal = Journal.open(':memory:', { clock: new ManualClock(1) });
    const a = new JournalExecutionAdapter(journal, 'live');
    const o = order('s_1');
    a.upsertOrder(o);
    a.orderEvent('s_1', 'pending', { intent: 'order' });
    a.upsertOrder({ ...o, state: 'open', updatedAt: 2 });
    expect(journal.order('s_1')!.status).toBe('open');
    expect(journal.orderEvents('s_1').map((e) => e.state)).toEqual(['pending', 'pending', 'open']);
    journal.close();
  });

  it('records a new order and its first event in one write (one commit before the request is sent)', () => {
    const journal = Journal.open(':memory:', { clock: new ManualClock(1) });
    const a = new JournalExecutionAdapter(journal, 'live');
    let commits = 0;
    const run = journal.transaction.bind(journal);
    journal.transaction = <T>(fn: () => T): T => {
      commits++;
      return run(fn);
    };
    a.recordNewOrder(order('s_9'), { intent: 'order', type: 'LIMIT' });
    expect(commits).toBe(1);
    expect(journal.order('s_9')!.status).toBe('pending');
    expect(journal.orderEvents('s_9').map((e) => [e.state, e.detail])).toEqual([['pending', { intent: 'order', type: 'LIMIT' }]]);
    // Known already (a recovered id): updated, with the event, never inserted twice.
    a.recordNewOrder(order('s_9', { updatedAt: 2 }), { intent: 'order', resend: 1 });
    expect(journal.orderEvents('s_9').at(-1)!.detail).toEqual({ intent: 'order', resend: 1 });
    expect(journal.order('s_9')!.updatedTs).toBe(2);
    journal.close();
  });

  it('updates an order the journal already holds (a restarted process) instead of inserting it again', () => {
    const journal = Journal.open(':memory:', { clock: new ManualClock(1) });
    new JournalExecutionAdapter(journal, 'live').upsertOrder(order('s_2'));
    // A new process: its adapter has not seen the order.
    const after = new JournalExecutionAdapter(journal, 'live');
    const recovered = trackedFromRow(journal.order('s_2')!);
    after.upsertOrder({ ...recovered, state: 'filled', filled: d('0.01'), filledQuote: d('600'), updatedAt: 5 });
    const row = journal.order('s_2')!;
    expect([row.status, row.final, row.executedQty.toFixed()]).toEqual(['filled', true, '0.01']);
    expect(journal.orders({})).toHaveLength(1);
    // Final orders never change again.
    new JournalExecutionAdapter(journal, 'live').upsertOrder({ ...recovered, state: 'cancelled', updatedAt: 9 });
    expect(journal.order('s_2')!.status).toBe('filled');
    journal.close();
  });
});
