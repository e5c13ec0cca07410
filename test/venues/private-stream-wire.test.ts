/**
 * End to end over the wire: the ExecutionEngine on the REST venue (WallexRestClient) and the
 * PrivateStreamClient, against the simulator's wire server on 127.0.0.1, with the SQLite journal in
 * a temp dir. REST order reads are counted at the server, so "the stream drove it" is measured.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SystemClock } from '../../src/core/clock.js';
import { d, Decimal } from '../../src/core/decimal.js';
import { WallexRestClient } from '../../src/exchange/rest/client.js';
import { PrivateStreamClient } from '../../src/exchange/stream/private-client.js';
import { ClientIdGenerator } from '../../src/execution/client-id.js';
import { ExecutionEngine, type ExecutionOptions, type Timers } from '../../src/execution/engine.js';
import { PrivateStreamTracker } from '../../src/venues/private-stream.js';
import { RestVenue } from '../../src/venues/rest-venue.js';
import { JournalExecutionAdapter } from '../../src/runtime/journal-adapters.js';
import { Journal } from '../../src/store/journal.js';
import type { FillEvent } from '../../src/strategy/views.js';
import { startSim } from '../sim/wire/harness.js';
import { captureLogger } from '../exchange/rest/helpers.js';
import { waitFor as waitForCondition } from '../support/wait-for.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function until(what: string, cond: () => boolean, ms = 5000): Promise<void> {
  await waitForCondition(cond, { what, timeout: ms, interval: 10 });
}

/** Reconnect timers the test can hold back: a stream drop then lasts until `release()`. */
function holdableTimers() {
  let holding = false;
  const held: (() => void)[] = [];
  const timers: Timers = {
    setTimeout: (fn, ms) => (holding ? held.push(fn) : setTimeout(fn, ms)),
    clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  };
  return { timers, hold: () => void (holding = true), release: () => ((holding = false), held.splice(0).forEach((f) => f())) };
}

async function setup(options: Partial<ExecutionOptions>) {
  const h = await startSim();
  cleanup.push(() => h.server.close());
  const key = h.server.streamKeys.issue(h.account.accountId);
  const orderReads: string[] = [];
  h.server.http.on('request', (req) => {
    if (req.method === 'GET' && /^\/v1\/account\/orders\/[^/?]+/.test(req.url ?? '')) orderReads.push(req.url!);
  });
  const { logger, lines } = captureLogger();
  const clock = new SystemClock();
  const dir = mkdtempSync(join(tmpdir(), 'mizan-private-'));
  const journal = Journal.open(join(dir, 'journal.db'), { clock });
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanup.push(() => journal.close());
  const rest = new WallexRestClient({ baseUrl: h.server.url, apiKey: h.account.apiKey, logger });
  const venue = new RestVenue(rest);
  const engine = new ExecutionEngine({
    venueFor: () => venue,
    clock,
    logger,
    ids: new ClientIdGenerator(clock),
    journal: new JournalExecutionAdapter(journal, 'live'),
    options: { fastPollMs: 40, slowPollMs: 40, youngMs: 60_000, lookupDelayMs: 20, ...options },
  });
  const hold = holdableTimers();
  const stream = new PrivateStreamClient({ url: h.server.streamUrl, streamKey: key, logger, timers: hold.timers });
  cleanup.push(() => stream.close());
  const tracker = new PrivateStreamTracker({ engine, stream, clock, logger, graceMs: 200 });
  tracker.start();
  await stream.connect();
  let polling = false;
  /** When the latest finished poll began (wall clock): a poll begun after a moment proves it passed. */
  let lastPollBegan = 0;
  const poller = setInterval(() => {
    if (polling) return;
    polling = true;
    const began = Date.now();
    void engine.pollOnce().finally(() => {
      polling = false;
      lastPollBegan = began;
    });
  }, 10);
  /** Resolves once a poll begun at least `afterMs` from now has finished. */
  const pollAfter = (afterMs: number, what: string) => {
    const at = Date.now() + afterMs;
    return until(what, () => lastPollBegan >= at, 10_000);
  };
  cleanup.push(() => clearInterval(poller));
  const fills: FillEvent[] = [];
  engine.on('fill', (f) => fills.push(f));
  const price = h.sim.bestBid('USDTTMN')!.minus(100);
  const place = async () =>
    (await engine.submitOrder({ kind: 'order', strategy: 'ps', symbol: 'USDTTMN', side: 'BUY', type: 'LIMIT', size: { kind: 'base', quantity: d(10) }, price }))
      .clientOrderId;
  /** A public trade through the order's price: fills `q` of it (maker). */
  const trade = (q: string) => h.sim.recordTrade({ symbol: 'USDTTMN', price: price.minus(1), quantity: d(q), isBuyOrder: false, timestamp: h.clock.now() });
  return { ...h, key, orderReads, lines, journal, engine, stream, tracker, fills, place, trade, hold, pollAfter };
}

function booked(fills: FillEvent[]) {
  return { qty: fills.reduce((s, f) => s.plus(f.quantity), new Decimal(0)).toFixed(), fee: fills.reduce((s, f) => s.plus(f.fee), new Decimal(0)).toFixed() };
}

describe('order tracking by the private stream (wire server, REST venue, SQLite journal)', () => {
  it('tracks an order to FILLED from the stream while polling is slowed to the safety net', async () => {
    const t = await setup({ coveredPollMs: 60_000 });
    const id = await t.place();
    await until('the stream to report the new order', () => t.tracker.stats().orderSaved >= 1);
    const o = t.engine.orders.get(id)!;
    // A poll that started before the stream's report may still be on its way: wait for one begun after.
    await t.pollAfter(0, 'a poll begun after the stream report');
    const readsBefore = t.orderReads.length;
    t.trade('4');
    await until('the first fill', () => t.fills.length === 1);
    // Adaptive polling (40 ms) would read the order again by a poll begun 200 ms from now: wait for
    // that poll to have run (under load the poller can stall, so a fixed pause proved nothing).
    await t.pollAfter(200, 'a poll begun 200 ms after the first fill');
    t.trade('6');
    await until('the order to be filled', () => o.state === 'filled');
    expect(t.orderReads.length).toBe(readsBefore);
    const simOrder = t.sim.getOrder('test', id);
    expect(t.fills.map((f) => [f.quantity.toFixed(), f.feeAsset])).toEqual([
      ['4', 'USDT'],
      ['6', 'USDT'],
    ]);
    expect(booked(t.fills)).toEqual({ qty: '10', fee: simOrder.fee.toFixed() });
    expect(t.journal.fills().map((f) => f.quantity.toFixed())).toEqual(['4', '6']);
    const filled = t.journal
      .orderEvents(id)
      .filter((e) => e.state === 'filled')
      .map((e) => e.detail);
    expect(filled).toContainEqual({ source: 'private-stream', filled: '10' });
  });

  it('books every fill once when both the stream and polling see it', async () => {
    // Covered orders are polled every 15 ms too: both sources see every fill.
    const t = await setup({ coveredPollMs: 15 });
    const id = await t.place();
    const o = t.engine.orders.get(id)!;
    await until('the stream to report the new order', () => t.tracker.stats().orderSaved >= 1);
    for (const q of ['2', '3']) {
      const reads = t.orderReads.length;
      t.trade(q);
      await until(`the fill of ${q}`, () => t.fills.length === (q === '2' ? 1 : 2));
      // Polls read the order after the fill (the order stays open: it is polled, every 15 ms).
      await until('two polls after the fill', () => t.orderReads.length >= reads + 2);
      await t.engine.refresh(id);
      expect(o.filled.toFixed()).toBe(q === '2' ? '2' : '5');
    }
    expect(t.fills).toHaveLength(2);
    t.trade('5');
    await until('the order to be filled', () => o.state === 'filled');
    expect(t.tracker.stats().tradeDetails).toBe(3);
    const simOrder = t.sim.getOrder('test', id);
    expect(booked(t.fills)).toEqual({ qty: '10', fee: simOrder.fee.toFixed() });
    expect(t.fills).toHaveLength(3);
    const rows = t.journal.fills();
    expect(rows.map((r) => r.quantity.toFixed()).sort()).toEqual(['2', '3', '5']);
    expect(o.filledQuote.eq(simOrder.executedSum)).toBe(true);
  });

  it('falls back to adaptive polling when the stream drops, and tracks the order to its end', async () => {
    const t = await setup({ coveredPollMs: 60_000 });
    const id = await t.place();
    const o = t.engine.orders.get(id)!;
    await until('the stream to report the new order', () => t.tracker.stats().orderSaved >= 1);
    t.trade('4');
    await until('the first fill (stream)', () => t.fills.length === 1);
    t.hold.hold();
    t.server.faults.dropConnections();
    await until('the tracker to see the drop', () => !t.tracker.stats().up);
    const readsAtDrop = t.orderReads.length;
    await until('polling back at its fast pace', () => t.orderReads.length > readsAtDrop, 10_000);
    const detailsBefore = t.tracker.stats().tradeDetails;
    t.trade('6');
    await until('the order to be filled by polling', () => o.state === 'filled');
    expect(t.tracker.stats().tradeDetails).toBe(detailsBefore); // nothing came over the stream
    const simOrder = t.sim.getOrder('test', id);
    expect(booked(t.fills)).toEqual({ qty: '10', fee: simOrder.fee.toFixed() });
    expect(t.journal.fills()).toHaveLength(2);
    const filled = t.journal
      .orderEvents(id)
      .filter((e) => e.state === 'filled')
      .map((e) => e.detail);
    expect(filled).toContainEqual({ filled: '10' }); // the transition came from a poll, not the stream
    t.hold.release();
    await until('the stream to come back', () => t.tracker.stats().up);
  });

  it('never writes the stream key into a log line', async () => {
    const t = await setup({ coveredPollMs: 60_000 });
    await t.place();
    await until('the stream to report the new order', () => t.tracker.stats().orderSaved >= 1);
    t.server.faults.configure({ malformed: { count: 1, channel: t.key } });
    t.trade('1');
    await until('the malformed message to be counted', () => t.stream.stats().malformedTotal === 1);
    t.server.faults.dropConnections();
    await until('the stream to come back', () => t.tracker.stats().up && t.stream.isUp);
    expect(t.lines.length).toBeGreaterThan(3);
    expect(t.lines.some((l) => l.includes('<stream_key>'))).toBe(true);
    for (const line of t.lines) expect(line).not.toContain(t.key.slice(0, 12));
  });
});
