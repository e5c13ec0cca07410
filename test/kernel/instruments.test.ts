/**
 * Fee assets come from the kernel's instruments, never from a symbol's suffix: `SHIBIRT` is
 * SHIB/IRT (the market catalog's word), which the old suffix lists split as SHI/BIRT or could not
 * split at all.
 */
import { describe, expect, it } from 'vitest';
import { d, Decimal } from '../../src/core/decimal.js';
import type { SpotOrder } from '../../src/core/types/order.js';
import type { InstantOrder } from '../../src/core/types/order.js';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/logger.js';
import { ClientIdGenerator } from '../../src/execution/client-id.js';
import { ExecutionEngine } from '../../src/execution/engine.js';
import type { Venue } from '../../src/execution/venue.js';
import { instantFills } from '../../src/kernel/intent-executor.js';
import type { FillEvent } from '../../src/core/views.js';

const SHIB = { base: 'SHIB', quote: 'IRT' };

/** A venue whose create answers a filled order listing no fills (so no fee asset is named). */
function venue(): Venue {
  const answer = (o: { symbol: string; side: 'BUY' | 'SELL'; quantity: Decimal; clientId: string }): SpotOrder => ({
    symbol: o.symbol,
    type: 'MARKET',
    side: o.side,
    clientOrderId: o.clientId,
    price: d('0.5'),
    origQty: o.quantity,
    executedQty: o.quantity,
    executedSum: o.quantity.mul('0.5'),
    fee: d('1'),
    status: 'FILLED',
    active: false,
    fills: [],
    transactTime: 0,
  });
  return { kind: 'test', createOrder: async (o: Parameters<typeof answer>[0]) => answer(o) } as unknown as Venue;
}

async function fillOf(side: 'BUY' | 'SELL', instrument?: (s: string) => typeof SHIB | undefined) {
  const clock = new ManualClock(0);
  const engine = new ExecutionEngine({
    venueFor: () => venue(),
    clock,
    logger: silentLogger,
    ids: new ClientIdGenerator(clock, 't'),
    ...(instrument ? { instrument } : {}),
  });
  const fills: FillEvent[] = [];
  engine.on('fill', (f) => fills.push(f));
  const o = await engine.submitOrder({ kind: 'order', strategy: 's', symbol: 'SHIBIRT', side, type: 'MARKET', size: { kind: 'base', quantity: d('100') } });
  return { o, fills };
}

describe("fee assets from the kernel's instruments", () => {
  it("an answer naming no fee asset books it in the order's received asset (buy: base, sell: quote)", async () => {
    const buy = await fillOf('BUY', () => SHIB);
    expect(buy.fills.map((f) => [f.feeAsset, f.fee.toFixed()])).toEqual([['SHIB', '1']]);
    const sell = await fillOf('SELL', () => SHIB);
    expect(sell.fills.map((f) => f.feeAsset)).toEqual(['IRT']);
  });

  it('a market with no known instrument and an answer naming no fee asset books nothing (never guessed)', async () => {
    const r = await fillOf('BUY', () => undefined);
    expect(r.fills).toEqual([]);
    expect(r.o.filled.toFixed()).toBe('0');
  });

  it("an instant order's fill without a named fee asset takes the received asset given", () => {
    const o = {
      symbol: 'SHIBIRT',
      side: 'SELL',
      clientOrderId: 'i1',
      price: d('0.5'),
      origQty: d('10'),
      executedQty: d('10'),
      executedSum: d('5'),
      status: 'FILLED',
      active: false,
      transactTime: 0,
      fills: [{ symbol: 'SHIBIRT', price: d('0.5'), quantity: d('10'), sum: d('5'), fee: d('0.02'), isBuyer: false, timestamp: 1 }],
    } as unknown as InstantOrder;
    expect(instantFills(o, 's', 5, 'IRT').map((f) => f.feeAsset)).toEqual(['IRT']);
    const none = { ...o, fills: [] } as unknown as InstantOrder;
    expect(instantFills(none, 's', 5, 'IRT').map((f) => [f.feeAsset, f.quantity.toFixed()])).toEqual([['IRT', '10']]);
  });
});
