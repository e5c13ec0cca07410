import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { OrderRateBudget } from '../../src/risk/order-rate.js';
import { World, limit } from './fixtures.js';

describe('OrderRateBudget', () => {
  it('new orders use limit − reserveForCancels, cancels the whole window, and the window slides', () => {
    const clock = new ManualClock(0);
    const b = new OrderRateBudget({ limit: 20, windowMs: 10_000, reserveForCancels: 4 }, clock);
    expect(b.available('new')).toBe(16);
    b.take(16);
    expect(b.available('new')).toBe(0);
    expect(b.available('cancel')).toBe(4);
    b.take(4);
    expect(b.available('cancel')).toBe(0);
    clock.advance(9_999);
    expect(b.available('cancel')).toBe(0);
    expect(b.msUntilSlot()).toBe(1);
    clock.advance(1);
    expect(b.available('new')).toBe(16);
  });

  it('rejects a bad configuration with the field and value', () => {
    const clock = new ManualClock(0);
    expect(() => new OrderRateBudget({ limit: 5, windowMs: 1000, reserveForCancels: 5 }, clock)).toThrow(/reserveForCancels .* got 5/);
    expect(() => new OrderRateBudget({ limit: 0, windowMs: 1000 }, clock)).toThrow(/orderRate.limit .* got 0/);
  });
});

describe('order rate rule', () => {
  it('a burst of new orders never blocks a cancel', () => {
    const w = new World();
    w.setBalance('USDT', '1000000');
    const e = w.engine();
    let passed = 0;
    for (let i = 0; i < 30; i++) if (e.check(limit('BUY', '0.001', '60000', `s${i % 3}`)).ok) passed++;
    expect(passed).toBe(16);
    const denied = e.check(limit('BUY', '0.001', '60000'));
    expect(denied).toMatchObject({ ok: false, rule: 'orderRate' });
    expect(!denied.ok && denied.reason).toContain('16 new orders (4 of 20 slots kept for cancels)');
    // The denial says when a slot frees (the strategy's onDenied reads it to try again then).
    expect(!denied.ok && denied.retryAfterMs).toBe(10_000);
    const told: { retryAfterMs?: number }[] = [];
    e.on('denied', (d) => told.push(d));
    w.clock.advance(4_000);
    e.check(limit('BUY', '0.001', '60000'));
    expect(told).toMatchObject([{ rule: 'orderRate', retryAfterMs: 6_000 }]);
    for (let i = 0; i < 4; i++) expect(e.check({ kind: 'cancel', strategy: 's1', clientOrderId: `c${i}` }).ok).toBe(true);
    expect(e.check({ kind: 'cancel', strategy: 's1', clientOrderId: 'c5' })).toMatchObject({ ok: false, rule: 'orderRate' });
    w.clock.advance(10_000);
    expect(e.check(limit('BUY', '0.001', '60000')).ok).toBe(true);
  });

  it("a denied order takes no slot; a strategy budget is stricter than the bot's", () => {
    const w = new World();
    w.setBalance('USDT', '1000000');
    const e = w.engine({ strategies: { slow: { orderRate: { limit: 2, windowMs: 60_000 } } } });
    expect(e.check(limit('BUY', '0.0001', '60000')).ok).toBe(false); // denied by marketLimits
    expect(e.orderRate.used()).toBe(0);
    expect(e.check(limit('BUY', '0.001', '60000', 'slow')).ok).toBe(true);
    expect(e.check(limit('BUY', '0.001', '60000', 'slow')).ok).toBe(true);
    const v = e.check(limit('BUY', '0.001', '60000', 'slow'));
    expect(!v.ok && v.reason).toContain('strategy slow sent 2');
    expect(e.check(limit('BUY', '0.001', '60000', 'fast')).ok).toBe(true);
  });

  it('a cancel-all counts a slot per open order of its strategy in its market, none when there is nothing to cancel', () => {
    const w = new World();
    w.orders = [
      ...Array.from({ length: 5 }, () => ({ symbol: 'BTCUSDT', strategy: 's1' })),
      ...Array.from({ length: 3 }, () => ({ symbol: 'BTCUSDT', strategy: 's2' })),
      { symbol: 'ETHUSDT', strategy: 's1' },
    ];
    const e = w.engine();
    expect(e.check({ kind: 'cancelAll', strategy: 's1', symbol: 'BTCUSDT' }).ok).toBe(true);
    expect(e.orderRate.used()).toBe(5);
    // A strategy with no order in the market sends no request: no slot, and it passes even when the window is full.
    w.orders = [];
    for (let i = 0; i < 15; i++) e.orderRate.take(1);
    expect(e.check({ kind: 'cancelAll', strategy: 's3', symbol: 'BTCUSDT' }).ok).toBe(true);
    expect(e.orderRate.used()).toBe(20);
  });
});

describe('the order-rate window across a restart (issue 16.9)', () => {
  it('is kept in the journal and read back by the next engine on that file: only times still in the window count', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { Journal } = await import('../../src/store/journal.js');
    const { journalRiskSink } = await import('../../src/risk/sinks.js');
    const dir = mkdtempSync(join(tmpdir(), 'mizan-rate-'));
    try {
      const file = join(dir, 'j.sqlite');
      const w = new World();
      w.setBalance('USDT', '1000000');
      let journal = Journal.open(file, { clock: w.clock });
      let e = w.engine({ sink: journalRiskSink(journal, journal), limits: { orderRate: { limit: 4, windowMs: 10_000, reserveForCancels: 0 } } });
      for (let i = 0; i < 3; i++) {
        expect(e.check(limit('BUY', '0.001', '60000')).ok).toBe(true);
        w.clock.advance(1_000);
      }
      journal.close();
      // Restart at 6 s: the three sends (at 0, 1 and 2 s) are still in the 10 s window.
      w.clock.advance(3_000);
      journal = Journal.open(file, { clock: w.clock });
      e = w.engine({ sink: journalRiskSink(journal, journal), limits: { orderRate: { limit: 4, windowMs: 10_000, reserveForCancels: 0 } } });
      expect(e.orderRate.used()).toBe(3);
      expect(e.check(limit('BUY', '0.001', '60000')).ok).toBe(true);
      expect(e.check(limit('BUY', '0.001', '60000'))).toMatchObject({ ok: false, rule: 'orderRate' });
      // At 11.001 s the sends at 0 and 1 s have left the window: 2 s and 6 s remain.
      w.clock.advance(5_001);
      expect(e.orderRate.used()).toBe(2);
      journal.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ignores times from the future and malformed entries', () => {
    const clock = new ManualClock(100_000);
    const b = new OrderRateBudget({ limit: 5, windowMs: 10_000 }, clock, { load: () => [95_000, 200_000, Number.NaN, 1], save: () => {} });
    expect(b.used()).toBe(2);
    expect(b.msUntilSlot()).toBe(5_000);
  });
});

describe('order rate denial, through the kernel', () => {
  it("reaches the strategy's onDenied with the wait until the next slot", async () => {
    const { simStack } = await import('./sim-stack.js');
    const st = simStack({ balances: { USDT: '1000000' }, limits: { orderRate: { limit: 3, windowMs: 10_000, reserveForCancels: 1 } } });
    st.setPrice('BTCUSDT', '60000');
    await st.sync();
    for (let i = 0; i < 3; i++) {
      await st.core.process([limit('BUY', '0.001', String(50_000 - i), 'holder')]);
      st.clock.advance(1_000);
    }
    await st.core.idle();
    expect(st.log.denials).toMatchObject([{ rule: 'orderRate', retryAfterMs: 8_000 }]);
  });
});
