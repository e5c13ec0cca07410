/**
 * Brackets (src/execution/brackets.ts) over the real execution engine and the simulated exchange
 * (in process, manual clock): the children an entry's fills create, the emulated OCO in both
 * directions, partial fills, a restart from the store, a child cancelled by someone else, and a
 * bracket the bot's own stop suspends and the next start places again.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d, type Decimal } from '../../src/core/decimal.js';
import type { SpotOrderIntent } from '../../src/core/intents.js';
import { silentLogger } from '../../src/core/logger.js';
import { marketView } from '../../src/backtest/views.js';
import { BracketManager, memoryBracketStore, type BracketStore } from '../../src/execution/brackets.js';
import { ClientIdGenerator } from '../../src/execution/client-id.js';
import { ExecutionEngine } from '../../src/execution/engine.js';
import { SimVenue } from '../../src/venues/sim-venue.js';
import { SimulatedExchange } from '../../src/sim/exchange.js';
import { MarketPrices } from '../../src/kernel/market-prices.js';
import type { FillEvent, OrderUpdate } from '../../src/strategy/views.js';

const lv = (price: string, quantity = '5') => [{ price: d(price), quantity: d(quantity) }];

function setup(opts: { sim?: SimulatedExchange; clock?: ManualClock; store?: BracketStore } = {}) {
  const clock = opts.clock ?? new ManualClock(1_700_000_000_000);
  const sim = opts.sim ?? new SimulatedExchange({ clock, seed: 7 });
  if (!opts.sim) {
    sim.replaceBook('BTCUSDT', lv('99.9'), lv('100'));
    sim.setLastPrice('BTCUSDT', d('100'));
    sim.createAccount({ id: 'acc', balances: { USDT: '100000', BTC: '0' } });
  }
  const venue = new SimVenue({ sim, account: 'acc', kind: 'paper' });
  const engine = new ExecutionEngine({ venueFor: () => venue, clock, logger: silentLogger, ids: new ClientIdGenerator(clock, 'bt'), sleep: async () => {} });
  engine.listen(venue);
  const store = opts.store ?? memoryBracketStore();
  const spec = sim.market('BTCUSDT')!;
  // The kernel's part, as kernel.ts wires it: the last prices, and fills to the brackets once booked.
  const prices = new MarketPrices(() => undefined);
  const brackets = new BracketManager({
    engine,
    store,
    market: (s) => (s === 'BTCUSDT' ? marketView(spec, { makerFee: d('0.002'), takerFee: d('0.002') }) : undefined),
    last: (s) => prices.last(s),
    logger: silentLogger,
  });
  engine.on('fill', (f) => {
    prices.onTrade(f.symbol, f.price, f.timestamp);
    brackets.onFill(f);
  });
  sim.on('trade', (t) => {
    prices.onTrade(t.symbol, t.price, t.timestamp);
    brackets.onPrice(t.symbol, t.price);
  });
  const updates: OrderUpdate[] = [];
  const fills: FillEvent[] = [];
  engine.on('order', (u) => updates.push(u));
  engine.on('fill', (f) => fills.push(f));
  return { clock, sim, venue, engine, store, brackets, updates, fills };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

function entry(type: 'MARKET' | 'LIMIT', quantity: string, b: { stopLoss?: string; takeProfit?: string }, price?: string): SpotOrderIntent {
  return {
    kind: 'order',
    strategy: 'bt',
    symbol: 'BTCUSDT',
    side: 'BUY',
    type,
    size: { kind: 'base', quantity: d(quantity) },
    ...(price ? { price: d(price) } : {}),
    brackets: { ...(b.stopLoss ? { stopLoss: d(b.stopLoss) } : {}), ...(b.takeProfit ? { takeProfit: d(b.takeProfit) } : {}) },
  };
}

/** A public trade at `price` with the book moved there first (what the replay does). */
function marketAt(sim: SimulatedExchange, clock: ManualClock, price: string, quantity = '0.001', moveBook = true) {
  clock.advance(1000);
  const p = d(price);
  if (moveBook) sim.replaceBook('BTCUSDT', lv(p.minus('0.1').toFixed()), lv(price));
  sim.recordTrade({ symbol: 'BTCUSDT', price: p, quantity: d(quantity), isBuyOrder: false, timestamp: clock.now() });
}

const open = (s: SimulatedExchange) =>
  s
    .openOrders('acc', 'BTCUSDT')
    .map((o) => `${o.type} ${o.side} ${o.origQty.toFixed()}${o.stopPrice ? ` @stop ${o.stopPrice.toFixed()}` : ` @${o.price.toFixed()}`}`);
const net = (q: Decimal) => q.minus(q.mul('0.002')).toFixed(); // the taker fee of a buy is taken in BTC

describe('brackets', () => {
  it('places the stop on the exchange once the entry fills, and a take profit reached cancels the stop and exits at market', async () => {
    const t = setup();
    const e = await t.engine.submitOrder(entry('MARKET', '1', { stopLoss: '95', takeProfit: '105' }));
    await flush();
    expect(e.state).toBe('filled');
    expect(open(t.sim)).toEqual([`STOP_MARKET SELL ${net(d('1'))} @stop 95`]);
    // The strategy sees the stop as its order, tagged with the entry it protects.
    const live = t.engine.liveOrders({ strategy: 'bt' });
    expect(live.map((o) => o.tag)).toEqual([`bracket-sl:${e.clientOrderId}`]);
    expect(t.brackets.triggers('BTCUSDT')).toEqual([105]);

    marketAt(t.sim, t.clock, '104.99');
    await flush();
    expect(open(t.sim)).toHaveLength(1);
    marketAt(t.sim, t.clock, '105');
    await flush();
    expect(open(t.sim)).toEqual([]);
    const stop = t.sim.orders('acc').find((o) => o.type === 'STOP_MARKET')!;
    const exit = t.sim.orders('acc').find((o) => o.type === 'MARKET' && o.side === 'SELL')!;
    expect([stop.status, stop.executedQty.toFixed()]).toEqual(['CANCELED', '0']);
    expect([exit.status, exit.executedQty.toFixed()]).toEqual(['FILLED', net(d('1'))]);
    expect(t.sim.balances('acc').BTC!.value.toFixed()).toBe('0');
    expect(t.brackets.list()).toEqual([]);
    // The exit reached the strategy's callbacks as its fill.
    expect(t.fills.filter((f) => f.tag === `bracket-tp:${e.clientOrderId}`).map((f) => f.quantity.toFixed())).toEqual([net(d('1'))]);
  });

  it('a stop that fills ends the bracket: the take profit is no longer watched', async () => {
    const t = setup();
    await t.engine.submitOrder(entry('MARKET', '1', { stopLoss: '95', takeProfit: '105' }));
    await flush();
    marketAt(t.sim, t.clock, '95');
    await flush();
    const stop = t.sim.orders('acc').find((o) => o.type === 'STOP_MARKET')!;
    expect([stop.status, stop.executedQty.toFixed()]).toEqual(['FILLED', net(d('1'))]);
    expect(t.brackets.list()).toEqual([]);
    const before = t.sim.orders('acc').length;
    marketAt(t.sim, t.clock, '106');
    await flush();
    expect(t.sim.orders('acc').length).toBe(before);
    expect(t.sim.balances('acc').BTC!.value.toFixed()).toBe('0');
  });

  it('sizes the stop to what a partly filled entry bought and replaces it as the entry fills further', async () => {
    const t = setup();
    const e = await t.engine.submitOrder(entry('LIMIT', '2', { stopLoss: '90', takeProfit: '110' }, '99'));
    await flush();
    expect(open(t.sim)).toEqual(['LIMIT BUY 2 @99']);
    marketAt(t.sim, t.clock, '98.5', '0.5', false); // prints through the buy: 0.5 fills
    await flush();
    expect(open(t.sim).sort()).toEqual(['LIMIT BUY 2 @99', `STOP_MARKET SELL ${net(d('0.5'))} @stop 90`]);
    marketAt(t.sim, t.clock, '98.5', '5', false); // the rest fills
    await flush();
    expect(e.state).toBe('filled');
    expect(open(t.sim)).toEqual([`STOP_MARKET SELL ${net(d('2'))} @stop 90`]);
    const stops = t.sim.orders('acc').filter((o) => o.type === 'STOP_MARKET');
    expect(stops.map((o) => o.status)).toEqual(['CANCELED', 'NEW']);
  });

  it('places a take profit alone as a limit, and a stop alone as a stop-market', async () => {
    const t = setup();
    await t.engine.submitOrder(entry('MARKET', '1', { takeProfit: '104.567' }));
    await t.engine.submitOrder(entry('MARKET', '1', { stopLoss: '96' }));
    await flush();
    // Prices are rounded to the market's tick, away from a worse exit (a sell's target up).
    expect(open(t.sim).sort()).toEqual([`LIMIT SELL ${net(d('1'))} @104.57`, `STOP_MARKET SELL ${net(d('1'))} @stop 96`]);
    expect(t.brackets.triggers('BTCUSDT')).toEqual([]);
  });

  it('carries on after a restart: a new manager over the same store and the recovered stop cancels it at the take profit', async () => {
    const first = setup();
    const e = await first.engine.submitOrder(entry('MARKET', '1', { stopLoss: '95', takeProfit: '105' }));
    await flush();
    const stopId = first.engine.liveOrders()[0]!.clientOrderId;
    first.engine.stop();
    // A new process: the engine adopts the journal's open orders, the manager loads its store.
    const t = setup({ sim: first.sim, clock: first.clock, store: first.store });
    t.engine.adopt([{ ...first.engine.orders.get(stopId)! }]);
    expect(t.brackets.list().map((r) => r.entry)).toEqual([e.clientOrderId]);
    t.brackets.resume();
    await flush();
    expect(open(t.sim)).toHaveLength(1); // nothing placed twice
    marketAt(t.sim, t.clock, '105.5');
    await flush();
    expect(open(t.sim)).toEqual([]);
    expect(t.sim.getOrder('acc', stopId).status).toBe('CANCELED');
    expect(t.sim.balances('acc').BTC!.value.toFixed()).toBe('0');
  });

  it('places the missing stop after a restart that happened between the entry fill and the stop', async () => {
    const first = setup();
    first.brackets.reset();
    const store = memoryBracketStore();
    store.save({
      entry: 'bt_x',
      strategy: 'bt',
      account: 'main',
      symbol: 'BTCUSDT',
      exitSide: 'SELL',
      stopLoss: '95',
      takeProfit: '105',
      held: '0.998',
      exited: '0',
      phase: 'open',
    });
    first.sim.placeOrder('acc', { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: d('1'), clientId: 'bt_x' });
    const t = setup({ sim: first.sim, clock: first.clock, store });
    t.brackets.resume();
    await flush();
    expect(open(t.sim)).toEqual(['STOP_MARKET SELL 0.998 @stop 95']);
  });

  it('ends the bracket when its stop is cancelled by someone else (and does not place it again)', async () => {
    const t = setup();
    await t.engine.submitOrder(entry('MARKET', '1', { stopLoss: '95', takeProfit: '105' }));
    await flush();
    const stopId = t.engine.liveOrders()[0]!.clientOrderId;
    await t.engine.cancel(stopId);
    await flush();
    expect(open(t.sim)).toEqual([]);
    expect(t.brackets.list()).toEqual([]);
    marketAt(t.sim, t.clock, '106');
    await flush();
    expect(open(t.sim)).toEqual([]);
    expect(t.sim.orders('acc').filter((o) => o.side === 'SELL' && o.type === 'MARKET')).toEqual([]);
  });

  it("keeps a bracket whose stop the bot's own stop cancels, and places the stop again at the market's first price after the restart", async () => {
    const first = setup();
    const e = await first.engine.submitOrder(entry('MARKET', '1', { stopLoss: '95', takeProfit: '105' }));
    await flush();
    first.brackets.stopping();
    await first.engine.cancelAll('BTCUSDT');
    await flush();
    expect(open(first.sim)).toEqual([]);
    expect(first.brackets.suspended().map((r) => [r.entry, r.held])).toEqual([[e.clientOrderId, '0.998']]);
    // Nothing moves while the bot stops: no take profit exit, no stop placed again.
    marketAt(first.sim, first.clock, '106');
    await flush();
    expect(open(first.sim)).toEqual([]);
    expect(first.sim.orders('acc').filter((o) => o.side === 'SELL')).toHaveLength(1);
    first.engine.stop();
    // The next start: the last price recovery noted is not enough, the market's first trade is.
    const t = setup({ sim: first.sim, clock: first.clock, store: first.store });
    t.brackets.resume();
    await flush();
    expect(open(t.sim)).toEqual([]);
    marketAt(t.sim, t.clock, '100');
    await flush();
    expect(open(t.sim)).toEqual(['STOP_MARKET SELL 0.998 @stop 95']);
    expect(t.brackets.suspended()).toEqual([]);
    marketAt(t.sim, t.clock, '100.5');
    await flush();
    expect(open(t.sim)).toHaveLength(1); // placed once
    marketAt(t.sim, t.clock, '105.5');
    await flush();
    expect(open(t.sim)).toEqual([]);
    expect(t.sim.balances('acc').BTC!.value.toFixed()).toBe('0');
    expect(t.brackets.list()).toEqual([]);
  });

  it("keeps a bracket whose stop the bot's stop cancelled when the cancel's answer was lost: the restart reads the stop cancelled (review)", async () => {
    const first = setup();
    await first.engine.submitOrder(entry('MARKET', '1', { stopLoss: '95', takeProfit: '105' }));
    await flush();
    const stop = { ...first.engine.liveOrders()[0]! };
    first.brackets.stopping();
    // The cancel reaches the exchange; its answer never reaches the bot (killed mid-request).
    first.engine.stop();
    first.sim.cancelOrder('acc', stop.clientOrderId);
    const t = setup({ sim: first.sim, clock: first.clock, store: first.store });
    // Recovery: the journal's open stop, read back from the exchange as cancelled.
    t.engine.adopt([{ ...stop }]);
    await t.engine.refresh(stop.clientOrderId);
    await flush();
    t.brackets.resume();
    expect(t.brackets.list()).toHaveLength(1);
    marketAt(t.sim, t.clock, '100');
    await flush();
    expect(open(t.sim)).toEqual(['STOP_MARKET SELL 0.998 @stop 95']);
  });

  it('a bracket whose stop the stop could not cancel is no longer suspended once its stop is seen resting (review)', async () => {
    const first = setup();
    await first.engine.submitOrder(entry('MARKET', '1', { stopLoss: '95', takeProfit: '105' }));
    await flush();
    const stop = { ...first.engine.liveOrders()[0]! };
    first.brackets.stopping();
    first.engine.stop(); // killed before its cancel was sent: the stop still rests
    const t = setup({ sim: first.sim, clock: first.clock, store: first.store });
    t.engine.adopt([stop]);
    t.brackets.resume();
    marketAt(t.sim, t.clock, '100');
    await flush();
    expect(t.brackets.suspended()).toEqual([]);
    expect(open(t.sim)).toEqual(['STOP_MARKET SELL 0.998 @stop 95']); // not placed twice
    // The strategy cancels it now: that ends the bracket, as any cancel in a running bot does.
    await t.engine.cancel(stop.clientOrderId);
    await flush();
    expect(t.brackets.list()).toEqual([]);
  });

  it('exits at market at the restart of a suspended bracket whose take profit the market reached meanwhile', async () => {
    const first = setup();
    await first.engine.submitOrder(entry('MARKET', '1', { stopLoss: '95', takeProfit: '105' }));
    await flush();
    first.brackets.stopping();
    await first.engine.cancelAll('BTCUSDT');
    await flush();
    first.engine.stop();
    const t = setup({ sim: first.sim, clock: first.clock, store: first.store });
    t.brackets.resume();
    marketAt(t.sim, t.clock, '106');
    await flush();
    await flush();
    expect(t.sim.orders('acc').map((o) => `${o.type} ${o.side} ${o.status}`)).toEqual(['MARKET BUY FILLED', 'STOP_MARKET SELL CANCELED', 'MARKET SELL FILLED']);
    expect(t.brackets.list()).toEqual([]);
  });

  it('ends at the start a suspended bracket with nothing left to close', async () => {
    const first = setup();
    await first.engine.submitOrder(entry('MARKET', '1', { stopLoss: '95', takeProfit: '105' }));
    await flush();
    first.brackets.stopping();
    await first.engine.cancelAll('BTCUSDT');
    await flush();
    // The coins went another way while the bot was down (the journal's fills say so).
    const r = first.store.load()[0]!;
    first.store.save({ ...r, exited: r.held });
    first.engine.stop();
    const t = setup({ sim: first.sim, clock: first.clock, store: first.store });
    expect(t.brackets.suspended()).toHaveLength(1);
    t.brackets.resume();
    expect(t.brackets.list()).toEqual([]);
    marketAt(t.sim, t.clock, '100');
    await flush();
    expect(open(t.sim)).toEqual([]);
  });

  it('ends a suspended bracket with a warning when the coins were sold by hand while the bot was down (the exchange refuses the stop)', async () => {
    const first = setup();
    await first.engine.submitOrder(entry('MARKET', '1', { stopLoss: '95', takeProfit: '105' }));
    await flush();
    first.brackets.stopping();
    await first.engine.cancelAll('BTCUSDT');
    await flush();
    first.engine.stop();
    first.sim.placeOrder('acc', { symbol: 'BTCUSDT', side: 'SELL', type: 'MARKET', quantity: d('0.998'), clientId: 'hand' });
    const t = setup({ sim: first.sim, clock: first.clock, store: first.store });
    t.brackets.resume();
    marketAt(t.sim, t.clock, '100');
    await flush();
    await flush();
    expect(t.updates.filter((u) => u.order.tag?.startsWith('bracket-')).map((u) => `${u.order.type} ${u.order.state}`)).toEqual(['STOP_MARKET rejected']);
    expect(t.brackets.list()).toEqual([]);
    marketAt(t.sim, t.clock, '100.5');
    await flush();
    expect(t.updates.filter((u) => u.order.tag?.startsWith('bracket-'))).toHaveLength(1); // no retry loop
  });

  it('exits at once when the price is already past the stop when the entry fills', async () => {
    const t = setup();
    marketAt(t.sim, t.clock, '100');
    await t.engine.submitOrder(entry('MARKET', '1', { stopLoss: '101', takeProfit: '110' }));
    await flush();
    expect(open(t.sim)).toEqual([]);
    expect(
      t.sim
        .orders('acc')
        .filter((o) => o.side === 'SELL')
        .map((o) => `${o.type} ${o.status}`),
    ).toEqual(['MARKET FILLED']);
    expect(t.brackets.list()).toEqual([]);
  });
});

describe('brackets: exits the exchange refuses', () => {
  it('ends the bracket (no retry loop) when the market exit after a crossed stop is refused', async () => {
    const t = setup();
    marketAt(t.sim, t.clock, '100');
    // 0.0998 BTC at the bid 99.9 is under the market's 10 USDT minimum: the exit is refused.
    await t.engine.submitOrder(entry('MARKET', '0.1', { stopLoss: '101', takeProfit: '110' }));
    await flush();
    await flush();
    expect(t.brackets.list()).toEqual([]);
    expect(t.updates.filter((u) => u.order.tag?.startsWith('bracket-')).map((u) => `${u.order.type} ${u.order.state}`)).toEqual(['MARKET rejected']);
  });
});

describe('brackets: the builders', () => {
  it('refuse a limit entry whose stop or target lies on the wrong side of its price, naming the field and values', async () => {
    const { limit, qty } = await import('../../src/strategy/builders.js');
    expect(() => limit('BUY', 'BTCUSDT', qty('1'), '100', { brackets: { stopLoss: '101' } })).toThrow(
      'brackets.stopLoss: 101 must be below the BUY entry price 100',
    );
    expect(() => limit('BUY', 'BTCUSDT', qty('1'), '100', { brackets: { takeProfit: '99' } })).toThrow(
      'brackets.takeProfit: 99 must be above the BUY entry price 100',
    );
    expect(() => limit('SELL', 'BTCUSDT', qty('1'), '100', { brackets: { stopLoss: '99' } })).toThrow(
      'brackets.stopLoss: 99 must be above the SELL entry price 100',
    );
    expect(limit('BUY', 'BTCUSDT', qty('1'), '100', { brackets: { stopLoss: '95', takeProfit: '105' } }).brackets?.stopLoss?.toFixed()).toBe('95');
  });
});

describe('brackets: the journal', () => {
  it("keeps an entry's brackets and a stop's trigger in the order row, so a recovered order still carries them", async () => {
    const { Journal } = await import('../../src/store/journal.js');
    const { JournalExecutionAdapter, trackedFromRow } = await import('../../src/runtime/journal-adapters.js');
    const { journalBracketStore } = await import('../../src/runtime/bracket-store.js');
    const journal = Journal.open(':memory:');
    try {
      const adapter = new JournalExecutionAdapter(journal, 'paper');
      const t = setup();
      const e = await t.engine.submitOrder(entry('LIMIT', '1', { stopLoss: '90', takeProfit: '110' }, '99'));
      adapter.upsertOrder(e);
      const back = trackedFromRow(journal.order(e.clientOrderId)!);
      expect([back.brackets?.stopLoss?.toFixed(), back.brackets?.takeProfit?.toFixed()]).toEqual(['90', '110']);
      const stop = { ...e, clientOrderId: 'bt_stop', type: 'STOP_MARKET', side: 'SELL' as const, stopPrice: d('90') };
      delete stop.brackets;
      adapter.upsertOrder(stop);
      const s = trackedFromRow(journal.order('bt_stop')!);
      expect([s.stopPrice?.toFixed(), s.brackets]).toEqual(['90', undefined]);
      // The brackets' own state: one key per entry in the journal, notes on the entry's events.
      const store = journalBracketStore(journal);
      store.save({
        entry: e.clientOrderId,
        strategy: 'bt',
        account: 'main',
        symbol: 'BTCUSDT',
        exitSide: 'SELL',
        stopLoss: '90',
        held: '1',
        exited: '0',
        phase: 'open',
      });
      store.note!(e.clientOrderId, { bracket: 'placing stop loss' });
      expect(store.load().map((r) => r.entry)).toEqual([e.clientOrderId]);
      expect(journal.orderEvents(e.clientOrderId).map((x) => (x.detail as { bracket?: string }).bracket)).toContain('placing stop loss');
      store.remove(e.clientOrderId);
      expect(store.load()).toEqual([]);
    } finally {
      journal.close();
    }
  });
});
