/**
 * Recovery restores the strategies' positions (found by the SIGKILL drill: after a restart a
 * strategy saw no position, and a fill discovered while reconciling — an order whose create answer
 * was cut off by the kill — reached the journal but not the portfolio). With a portfolio,
 * `recoverOrders` replays the journal's fills; the fills it discovers are emitted by the engine, which
 * the kernel books (here: the portfolio listens to the engine as kernel/trading-core.ts does), once:
 * recovery booking them too counted them twice (e2e/recovery-fills-once).
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import { NotFoundError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import type { SpotOrder } from '../../src/core/types/order.js';
import { ClientIdGenerator } from '../../src/execution/client-id.js';
import { ExecutionEngine } from '../../src/execution/engine.js';
import type { Venue } from '../../src/execution/venue.js';
import { Portfolio } from '../../src/portfolio/portfolio.js';
import { JournalExecutionAdapter } from '../../src/runtime/journal-adapters.js';
import { recoverOrders } from '../../src/runtime/recovery.js';
import { Journal } from '../../src/store/journal.js';
import { testInstrument, testSplit } from '../support/instruments.js';

function snap(id: string, executed: string, sum: string, active: boolean): SpotOrder {
  return {
    symbol: 'BTCUSDT',
    type: 'LIMIT',
    side: 'BUY',
    clientOrderId: id,
    price: d('60000'),
    origQty: d('0.002'),
    executedQty: d(executed),
    executedSum: d(sum),
    fee: d('0'),
    status: active ? 'NEW' : 'FILLED',
    active,
    fills: [],
  };
}

function setup() {
  const clock = new ManualClock(1_700_000_000_000);
  const journal = Journal.open(':memory:', { clock });
  const orders = new Map<string, SpotOrder>();
  const venue = {
    kind: 'live',
    getOrder: async (id: string) => {
      const o = orders.get(id);
      if (!o) throw new NotFoundError(`no order ${id}`);
      return o;
    },
    openOrders: async () => [...orders.values()].filter((o) => o.active),
  } as unknown as Venue;
  const engine = new ExecutionEngine({
    venueFor: () => venue,
    instrument: testInstrument,
    clock,
    logger: silentLogger,
    ids: new ClientIdGenerator(clock, 't'),
    journal: new JournalExecutionAdapter(journal, 'live'),
  });
  const portfolio = new Portfolio({ split: testSplit, price: () => undefined, reference: 'USDT' });
  // The kernel's booking of the engine's fills.
  engine.on('fill', (f) => void portfolio.applyFill(f, 'main'));
  const base = {
    strategy: 'ping',
    symbol: 'BTCUSDT',
    side: 'BUY' as const,
    type: 'LIMIT',
    venue: 'live',
    account: 'main',
    price: d('60000'),
    quantity: d('0.002'),
  };
  // Order A filled before the crash (journaled with its fill); order B was being created when the
  // process died: pending in the journal, filled on the exchange.
  journal.recordOrder({ ...base, clientId: 'ping_a_0', executedQty: d('0.002'), status: 'filled', final: true, ts: clock.now() });
  journal.recordFill({
    clientId: 'ping_a_0',
    fillKey: 'ping_a_0:0.002',
    strategy: 'ping',
    symbol: 'BTCUSDT',
    side: 'BUY',
    price: d('60000'),
    quantity: d('0.002'),
    fee: d('0'),
    feeAsset: 'BTC',
    ts: clock.now(),
  });
  journal.recordOrder({ ...base, clientId: 'ping_b_0', executedQty: d('0'), status: 'pending', final: false, ts: clock.now() });
  orders.set('ping_b_0', snap('ping_b_0', '0.002', '122', false));
  return { journal, engine, venue, portfolio };
}

describe('recovery restores positions', () => {
  it('replays journal fills and applies the fills discovered while reconciling, once', async () => {
    const s = setup();
    const report = await recoverOrders({
      journal: s.journal,
      engine: s.engine,
      venueFor: () => s.venue,
      logger: silentLogger,
      prefixes: ['ping'],
      portfolio: s.portfolio,
    });
    expect(report.fillsReplayed).toBe(1);
    expect(report.fillsFound).toBe(1);
    expect(report.resolved).toBe(1);
    const pos = s.portfolio.positions.view('ping', 'BTCUSDT')!;
    expect(pos.quantity.toFixed()).toBe('0.004');
    expect(pos.avgPrice.toFixed()).toBe('60500');
    // The discovered fill is journaled, so a second recovery replays two fills and finds none.
    expect(s.journal.fills({})).toHaveLength(2);
    const again = new Portfolio({ split: testSplit, price: () => undefined, reference: 'USDT' });
    const engine2 = new ExecutionEngine({
      venueFor: () => s.venue,
      instrument: testInstrument,
      clock: new ManualClock(0),
      logger: silentLogger,
      ids: new ClientIdGenerator(new ManualClock(0), 'u'),
      journal: new JournalExecutionAdapter(s.journal, 'live'),
    });
    engine2.on('fill', (f) => void again.applyFill(f, 'main'));
    const r2 = await recoverOrders({
      journal: s.journal,
      engine: engine2,
      venueFor: () => s.venue,
      logger: silentLogger,
      prefixes: ['ping'],
      portfolio: again,
    });
    expect([r2.fromJournal, r2.fillsReplayed, r2.fillsFound]).toEqual([0, 2, 0]);
    expect(again.positions.view('ping', 'BTCUSDT')!.quantity.toFixed()).toBe('0.004');
    s.journal.close();
  });

  it('leaves positions alone without a portfolio (paper venues start afresh)', async () => {
    const s = setup();
    s.engine.removeAllListeners('fill');
    const report = await recoverOrders({ journal: s.journal, engine: s.engine, venueFor: () => s.venue, logger: silentLogger, prefixes: ['ping'] });
    expect([report.fillsReplayed, report.fillsFound]).toEqual([0, 1]);
    expect(s.portfolio.positions.view('ping', 'BTCUSDT')).toBeUndefined();
    s.journal.close();
  });
});
