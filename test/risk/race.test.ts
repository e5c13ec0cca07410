/**
 * Many strategies send intents against one balance concurrently (interleaved at every await), through
 * the real ExecutionEngine and a small in-memory venue that enforces the balance like the exchange
 * (402 when an order does not fit). The risk engine must never let the bot over-commit, and every
 * reservation must be released when its order ends.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d, Decimal } from '../../src/core/decimal.js';
import { InsufficientBalanceError, NotFoundError } from '../../src/core/errors.js';
import type { SpotOrderIntent } from '../../src/core/intents.js';
import { silentLogger } from '../../src/core/logger.js';
import type { NewSpotOrder, SpotOrder } from '../../src/core/types/order.js';
import { ClientIdGenerator } from '../../src/execution/client-id.js';
import { ExecutionEngine } from '../../src/execution/engine.js';
import type { Venue } from '../../src/execution/venue.js';
import { RiskEngine } from '../../src/risk/engine.js';
import { btcBook, BTCUSDT } from './fixtures.js';
import { testInstrument } from '../support/instruments.js';

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class TinyVenue {
  readonly kind = 'test';
  usdt = { value: d('5000'), locked: d('0') };
  btc = d('0');
  orders = new Map<string, SpotOrder>();
  rejected402 = 0;
  minFree = d('5000');
  constructor(private readonly rnd: () => number) {}

  private check(): void {
    const free = this.usdt.value.minus(this.usdt.locked);
    if (free.lt(this.minFree)) this.minFree = free;
  }

  async createOrder(o: NewSpotOrder): Promise<SpotOrder> {
    await Promise.resolve();
    const cost = o.quantity.mul(o.price as Decimal);
    if (this.usdt.value.minus(this.usdt.locked).lt(cost)) {
      this.rejected402++;
      throw new InsufficientBalanceError(`insufficient USDT for ${o.clientId}`, { status: 402 });
    }
    const fill = this.rnd() < 0.4;
    const snap: SpotOrder = {
      symbol: o.symbol,
      type: o.type,
      side: o.side,
      clientOrderId: o.clientId,
      price: o.price as Decimal,
      origQty: o.quantity,
      executedQty: fill ? o.quantity : d('0'),
      executedSum: fill ? cost : d('0'),
      status: fill ? 'FILLED' : 'NEW',
      active: !fill,
      fills: [],
    };
    if (fill) {
      this.usdt.value = this.usdt.value.minus(cost);
      this.btc = this.btc.plus(o.quantity);
    } else this.usdt.locked = this.usdt.locked.plus(cost);
    this.check();
    this.orders.set(o.clientId, snap);
    return { ...snap };
  }

  async getOrder(id: string): Promise<SpotOrder> {
    const s = this.orders.get(id);
    if (!s) throw new NotFoundError(`no order ${id}`, { status: 404 });
    return { ...s };
  }

  async cancelOrder(id: string): Promise<SpotOrder> {
    await Promise.resolve();
    const s = this.orders.get(id);
    if (!s) throw new NotFoundError(`no order ${id}`, { status: 404 });
    if (s.active) {
      s.active = false;
      s.status = 'CANCELED';
      this.usdt.locked = this.usdt.locked.minus(s.origQty.mul(s.price));
    }
    return { ...s };
  }

  unused = async (): Promise<never> => {
    throw new Error('not used by this test');
  };
}

describe('race: many strategies, one balance', () => {
  it('never over-commits, and every reservation is released when its order ends', async () => {
    const rnd = prng(7);
    const clock = new ManualClock(Date.UTC(2025, 0, 6));
    const venue = new TinyVenue(rnd);
    const book = btcBook();
    const risk = new RiskEngine({
      clock,
      limits: { orderRate: { limit: 100_000, windowMs: 1000, reserveForCancels: 0 } },
      ports: {
        market: (s) => (s === 'BTCUSDT' ? BTCUSDT : undefined),
        book: () => book,
        balance: (_acc, asset) => (asset === 'USDT' ? venue.usdt : asset === 'BTC' ? { value: venue.btc, locked: d('0') } : undefined),
      },
    });
    const v: Venue = {
      kind: venue.kind,
      createOrder: (o) => venue.createOrder(o),
      getOrder: (id) => venue.getOrder(id),
      cancelOrder: (id) => venue.cancelOrder(id),
      openOrders: venue.unused,
      balances: venue.unused,
      instantOrder: venue.unused,
      previewPosition: venue.unused,
      openPosition: venue.unused,
      addCollateral: venue.unused,
      closePosition: venue.unused,
      setBrackets: venue.unused,
      positions: venue.unused,
    };
    const exec = new ExecutionEngine({
      venueFor: () => v,
      instrument: testInstrument,
      clock,
      logger: silentLogger,
      ids: new ClientIdGenerator(clock, 't'),
      reservations: risk,
      sleep: async () => {},
    });

    let passed = 0;
    let denied = 0;
    let maxReserved = d('0');
    const strategy = async (name: string) => {
      for (let i = 0; i < 20; i++) {
        // Interleave: yield a random number of microtasks, sometimes a macrotask.
        const hops = Math.floor(rnd() * 4);
        for (let h = 0; h < hops; h++) await Promise.resolve();
        if (rnd() < 0.2) await new Promise((r) => setImmediate(r));
        const qty = (0.001 + Math.floor(rnd() * 20) * 0.001).toFixed(3);
        const intent: SpotOrderIntent = {
          kind: 'order',
          strategy: name,
          symbol: 'BTCUSDT',
          side: 'BUY',
          type: 'LIMIT',
          size: { kind: 'base', quantity: d(qty) },
          price: d('59000'),
        };
        const verdict = risk.check(intent);
        const reserved = risk.reservations.reserved('main', 'USDT');
        if (reserved.gt(maxReserved)) maxReserved = reserved;
        // Everything committed fits in what the account holds.
        expect(reserved.lte(venue.usdt.value)).toBe(true);
        if (!verdict.ok) {
          denied++;
          // Cancel something of ours to free funds.
          const mine = exec.liveOrders({ strategy: name });
          if (mine[0] && rnd() < 0.7) await exec.cancel(mine[0].clientOrderId);
          continue;
        }
        passed++;
        await exec.submitOrder(verdict.intent as SpotOrderIntent, { reservationId: verdict.reservationId! });
      }
    };
    await Promise.all(Array.from({ length: 24 }, (_, i) => strategy(`s${i}`)));
    expect(passed).toBeGreaterThan(20);
    expect(denied).toBeGreaterThan(20);
    expect(venue.rejected402).toBe(0);
    expect(venue.minFree.gte(0)).toBe(true);
    expect(maxReserved.gt(0)).toBe(true);
    // Orders still open hold their reservations; once they end, nothing is reserved.
    const live = exec.liveOrders();
    expect(risk.reservations.size).toBe(live.length);
    await Promise.all(live.map((o) => exec.cancel(o.clientOrderId)));
    expect(exec.liveOrders()).toEqual([]);
    expect(risk.reservations.size).toBe(0);
    expect(risk.reservations.reserved('main', 'USDT').isZero()).toBe(true);
    expect(venue.usdt.locked.isZero()).toBe(true);
  });
});
