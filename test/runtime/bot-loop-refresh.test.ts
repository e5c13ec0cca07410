/**
 * The balance read after an order ends. Before: the funds of an order cancelled after a balance read
 * stayed in that read's `locked` until the next periodic sync (10 s), so a grid restarted from the API
 * had its sell denied by the balance rule for coins it held (e2e/api-server.test.ts met it under load).
 */
import { EventEmitter } from 'eventemitter3';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/logger.js';
import type { Timers } from '../../src/core/timers.js';
import { BotLoop, type BotLoopDeps } from '../../src/runtime/bot-loop.js';
import type { TrackedOrder } from '../../src/execution/tracked-order.js';

function setup() {
  const clock = new ManualClock(1_000);
  const pending: { fn: () => void; at: number }[] = [];
  const timers: Timers = {
    setTimeout: (fn, ms) => pending.push({ fn, at: clock.now() + ms }),
    clearTimeout: () => undefined,
    setInterval: () => undefined,
    clearInterval: () => undefined,
  };
  const fire = async () => {
    const due = pending.filter((x) => x.at <= clock.now());
    pending.splice(0, pending.length, ...pending.filter((x) => x.at > clock.now()));
    for (const t of due) t.fn();
    await new Promise((r) => setImmediate(r));
  };
  const engine = new EventEmitter<{ final: [TrackedOrder] }>();
  const reads: string[] = [];
  const deps = {
    config: {
      strategies: [
        { name: 'grid', account: 'main' },
        { name: 'other', account: 'sub' },
      ],
    },
    clock,
    logger: silentLogger,
    engine,
    portfolio: { syncBalances: () => undefined, syncMargin: () => undefined },
    risk: { reservations: { balancesSynced: () => undefined } },
    journal: { recordEquity: () => undefined },
    venueFor: (account: string) => ({
      balances: async () => {
        reads.push(account);
        return {};
      },
      positions: async () => [],
    }),
    equity: () => ({ unpriced: ['X'] }),
    accounts: ['main', 'sub'],
    intervals: { statusEveryMs: 0 },
    timers,
  } as unknown as BotLoopDeps;
  const loop = new BotLoop(deps);
  const order = (account: string, createdAt: number) => ({ clientOrderId: `o${createdAt}`, account, createdAt }) as TrackedOrder;
  return { clock, engine, reads, loop, fire, order, pending };
}

describe('BotLoop: the account is read again after an order that the last read saw ends', () => {
  it('reads that account once, 250 ms after the first of the orders that ended', async () => {
    const t = setup();
    await t.loop.syncAccount();
    expect(t.reads).toEqual(['main', 'sub']);
    t.loop.start();
    t.clock.advance(5_000);
    t.engine.emit('final', t.order('main', 900));
    t.engine.emit('final', t.order('main', 950));
    t.clock.advance(249);
    await t.fire();
    expect(t.reads).toEqual(['main', 'sub']);
    t.clock.advance(1);
    await t.fire();
    expect(t.reads).toEqual(['main', 'sub', 'main']);
    t.loop.stop();
  });

  it('does not read for an order created after the last read (its lock was never read) nor after stop()', async () => {
    const t = setup();
    await t.loop.syncAccount();
    t.loop.start();
    t.engine.emit('final', t.order('sub', 2_000));
    t.clock.advance(1_000);
    await t.fire();
    expect(t.reads).toEqual(['main', 'sub']);
    t.loop.stop();
    t.engine.emit('final', t.order('sub', 500));
    expect(t.pending).toEqual([]);
  });
});
