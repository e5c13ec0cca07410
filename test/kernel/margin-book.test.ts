/**
 * The kernel's margin book (src/kernel/margin-book.ts): a position of the bot that leaves the
 * account's active list is read back and booked once (a trade with the exchange's costs, its final
 * journal row); a restart books what ended while the bot was down and never what its journal holds
 * as booked; a cost the exchange does not give is named, not silently 0.
 */
import { describe, expect, it } from 'vitest';
import { d, type Decimal } from '../../src/core/decimal.js';
import type { Logger } from '../../src/core/logger.js';
import type { MarginPosition } from '../../src/core/types/margin.js';
import type { MarginOrder } from '../../src/core/types/margin-extra.js';
import type { Venue } from '../../src/execution/venue.js';
import { MarginBook, type MarginJournal } from '../../src/kernel/margin-book.js';
import { TradeBook } from '../../src/portfolio/trade-book.js';
import { PositionOwners } from '../../src/risk/margin-owners.js';

const usdt = (v: string) => ({ currency: 'USDT', value: d(v) });

function position(id: number, state: string, profit = '0'): MarginPosition {
  return {
    id,
    market: 'BTCUSDT',
    side: 'long',
    state,
    callPrice: d(0),
    liquidityPrice: d(0),
    isCalled: false,
    openPrice: d('60000'),
    openFilledPrice: d('60000'),
    openedAt: '2026-01-01T00:00:00Z',
    ...(state === 'closed' ? { closeFilledPrice: d('61000'), closeReason: 'user', closedAt: '2026-01-01T01:00:00Z' } : {}),
    collateral: usdt('100'),
    interest: usdt('0.1'),
    loan: usdt('100'),
    profit: usdt(profit),
    riskCoef: d(2),
  };
}

const order = (id: number, purpose: 'open' | 'close', fee?: string, quantity = '0.0033'): MarginOrder => ({
  id: `${id}-${purpose}`,
  positionId: id,
  market: 'BTCUSDT',
  side: purpose === 'open' ? 'buy' : 'sell',
  purpose,
  quantity: d(quantity),
  state: 'filled',
  ...(fee ? { fee: usdt(fee) } : {}),
});

interface Setup {
  book: MarginBook;
  trades: TradeBook;
  rows: Map<number, { state: string; strategy?: string; n: number }>;
  logs: { level: string; msg: string }[];
  /** What the exchange answers for a position now. */
  exchange: Map<number, MarginPosition>;
  reads: number[];
}

function setup(
  o: { journal?: { id: number; state: string; strategy?: string }[]; orders?: (id: number) => MarginOrder[]; owners?: PositionOwners } = {},
): Setup {
  const rows = new Map<number, { state: string; strategy?: string; n: number }>();
  for (const r of o.journal ?? []) rows.set(r.id, { state: r.state, ...(r.strategy ? { strategy: r.strategy } : {}), n: 0 });
  const journal: MarginJournal = {
    upsert: (p, strategy) => void rows.set(p.id, { state: p.state, ...(strategy ? { strategy } : {}), n: (rows.get(p.id)?.n ?? 0) + 1 }),
    rows: () => [...rows].map(([id, r]) => ({ id, state: r.state, market: 'BTCUSDT', ...(r.strategy ? { strategy: r.strategy } : {}) })),
  };
  const exchange = new Map<number, MarginPosition>();
  const reads: number[] = [];
  const venue = {
    position: async (id: number) => {
      reads.push(id);
      const p = exchange.get(id);
      if (!p) throw new Error('not found');
      return p;
    },
    marginOrders: async (id: number) => (o.orders ?? ((i: number) => [order(i, 'open', '0.4'), order(i, 'close', '0.41')]))(id),
  } as unknown as Venue;
  const logs: { level: string; msg: string }[] = [];
  const logger = {
    info: (_o: unknown, msg: string) => logs.push({ level: 'info', msg }),
    warn: (_o: unknown, msg: string) => logs.push({ level: 'warn', msg }),
    debug: (_o: unknown, msg: string) => logs.push({ level: 'debug', msg }),
  } as unknown as Logger;
  const trades = new TradeBook(
    () => ({ base: 'BTC', quote: 'USDT' }),
    () => [],
    { reference: 'USDT' },
  );
  const owners = o.owners ?? new PositionOwners({ fallback: () => 'mt' });
  const book = new MarginBook({ trades, owners, venueFor: () => venue, logger, journal, restore: true });
  return { book, trades, rows, logs, exchange, reads };
}

const pnlOf = (s: Setup) => s.trades.trades.map((t) => [t.strategy, t.pnl, t.fees, t.exit]);

describe('MarginBook', () => {
  it('journals a position when it opens, books it once when it leaves the active list', async () => {
    const s = setup();
    s.book.synced([position(1, 'open', '3')], 'main');
    expect(s.rows.get(1)).toEqual({ state: 'open', strategy: 'mt', n: 1 });
    s.book.synced([position(1, 'open', '4')], 'main'); // only the profit moved: no new row write
    expect(s.rows.get(1)!.n).toBe(1);
    // Open, it is worth its profit less the opening fee it paid (read from its opening order).
    await new Promise((r) => setImmediate(r));
    expect(s.book.unrealized([position(1, 'open', '4'), position(9, 'open', '1')])).toEqual([
      { strategy: 'mt', symbol: 'BTCUSDT', pnl: d('3.6'), fees: d('0.4'), trades: 1 },
    ]);

    s.exchange.set(1, position(1, 'closed', '5'));
    s.book.synced([], 'main');
    s.book.synced([], 'main'); // a second sync while the first read-back is under way
    await s.book.idle();
    // pnl = profit − opening fee; fees = opening + closing fee + interest (0.4 + 0.41 + 0.1).
    expect(pnlOf(s)).toEqual([['mt', '4.6', '0.91', 'signal']]);
    expect(s.trades.trades[0]!.quantity).toBe('0.0033');
    expect(s.rows.get(1)).toMatchObject({ state: 'closed', strategy: 'mt' });
    expect(s.reads).toEqual([1]);
    expect(s.book.trades.map((t) => [t.positionId, t.unknown])).toEqual([[1, []]]);
    expect(s.book.totals()).toEqual([{ strategy: 'mt', symbol: 'BTCUSDT', pnl: d('4.6'), fees: d('0.91'), trades: 1 }]);

    // Listed closed later (a list of every position), or gone again: never booked twice.
    s.book.synced([s.exchange.get(1)!], 'main');
    s.book.synced([], 'main');
    await s.book.idle();
    expect(s.trades.trades).toHaveLength(1);
    expect(s.reads).toEqual([1]);
  });

  it('a restart books what ended while the bot was down, never what the journal holds as booked', async () => {
    const s = setup({
      journal: [
        { id: 1, state: 'closed', strategy: 'mt' },
        { id: 2, state: 'open', strategy: 'other' },
      ],
    });
    s.exchange.set(1, position(1, 'closed', '9'));
    s.exchange.set(2, position(2, 'closed', '-2'));
    s.book.synced([], 'main');
    await s.book.idle();
    // #2 under the strategy its row names (the owner record may be gone by now); #1 not read at all.
    expect(pnlOf(s)).toEqual([['other', '-2.4', '0.91', 'signal']]);
    expect(s.reads).toEqual([2]);
    expect(s.rows.get(2)).toMatchObject({ state: 'closed', strategy: 'other' });

    // The next restart: both rows are final.
    const again = setup({ journal: [...s.rows].map(([id, r]) => ({ id, ...r })) });
    again.exchange.set(1, position(1, 'closed', '9'));
    again.exchange.set(2, position(2, 'closed', '-2'));
    again.book.synced([], 'main');
    await again.book.idle();
    expect(again.trades.trades).toEqual([]);
    expect(again.reads).toEqual([]);
  });

  it('a journal without rows: the owner record names the positions the bot opened', async () => {
    const owners = new PositionOwners();
    owners.set(7, 'mt');
    const s = setup({ owners });
    s.exchange.set(7, position(7, 'closed', '1'));
    s.book.synced([], 'main');
    await s.book.idle();
    expect(pnlOf(s)).toEqual([['mt', '0.6', '0.91', 'signal']]);
  });

  it('a fee the exchange does not give is named and counted as 0, not silently', async () => {
    const s = setup({ orders: (id) => [order(id, 'open'), order(id, 'close', '0.41')] });
    s.book.synced([position(3, 'open')], 'main');
    s.exchange.set(3, position(3, 'closed', '5'));
    s.book.synced([], 'main');
    await s.book.idle();
    expect(pnlOf(s)).toEqual([['mt', '5', '0.51', 'signal']]);
    expect(s.book.trades[0]!.unknown).toEqual(['opening fee']);
    expect(s.logs.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([
      'margin position #3 booked without its opening fee: the exchange did not give it (counted as 0; an unknown opening fee is not in the pnl)',
    ]);
  });

  it('an orders read that fails leaves every fee unknown, and says so', async () => {
    const s = setup({
      orders: () => {
        throw new Error('HTTP 500');
      },
    });
    s.book.synced([position(4, 'open')], 'main');
    s.exchange.set(4, position(4, 'closed', '5'));
    s.book.synced([], 'main');
    await s.book.idle();
    expect(s.book.trades[0]!.unknown).toEqual(['opening fee', 'closing fee', 'quantity']);
    expect(s.logs.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([
      'margin position #4: its orders could not be read',
      'margin position #4 booked without its opening fee, closing fee, quantity: the exchange did not give them (counted as 0; an unknown opening fee is not in the pnl)',
    ]);
  });

  it('a read-back that fails is tried again at the next sync', async () => {
    const s = setup();
    s.book.synced([position(5, 'open')], 'main');
    s.book.synced([], 'main'); // the exchange does not answer for #5 yet
    await s.book.idle();
    expect(s.trades.trades).toEqual([]);
    s.exchange.set(5, position(5, 'closed', '1'));
    s.book.synced([], 'main');
    await s.book.idle();
    expect(s.trades.trades).toHaveLength(1);
  });

  it('a cancelled opening is journaled, not a trade; a position no strategy owns is journaled, not booked', async () => {
    const s = setup({ owners: new PositionOwners({ fallback: (p) => (p.id === 6 ? 'mt' : undefined) }) });
    s.book.synced([position(6, 'pending'), position(8, 'open')], 'main');
    s.exchange.set(6, position(6, 'canceled'));
    s.exchange.set(8, position(8, 'closed', '1'));
    s.book.synced([], 'main');
    await s.book.idle();
    expect(s.trades.trades).toEqual([]);
    expect(s.rows.get(6)).toMatchObject({ state: 'canceled', strategy: 'mt' });
    expect(s.rows.get(8)).toEqual({ state: 'closed', n: 2 });
  });

  it('exact costs from the mode (paper, backtests) book at once, without reading the exchange', () => {
    const trades = new TradeBook(
      () => ({ base: 'BTC', quote: 'USDT' }),
      () => [],
      {},
    );
    const costs = (): { openFee: Decimal; closeFee: Decimal; interest: Decimal; baseQty: Decimal } => ({
      openFee: d('0.4'),
      closeFee: d('0.41'),
      interest: d(0),
      baseQty: d('0.0033'),
    });
    const book = new MarginBook({
      trades,
      owners: new PositionOwners(),
      venueFor: () => ({}) as Venue,
      logger: { info: () => undefined, warn: () => undefined } as unknown as Logger,
      costs,
      unowned: 'unknown',
    });
    book.synced([position(1, 'closed', '2')], 'main');
    expect(trades.trades.map((t) => [t.strategy, t.pnl, t.fees])).toEqual([['unknown', '1.6', '0.81']]);
  });
});
