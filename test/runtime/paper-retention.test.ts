/**
 * The paper exchange forgets long-closed orders (a bot running for days placed orders without bound,
 * and the simulator kept every one), never an open one or a recent one.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import { NotFoundError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import type { Market } from '../../src/market/market-catalog.js';
import { createPaperVenue, PAPER_RETAINED_ORDERS } from '../../src/runtime/paper.js';

const BTCUSDT: Market = {
  symbol: 'BTCUSDT',
  baseAsset: 'BTC',
  quoteAsset: 'USDT',
  quantityPrecision: 6,
  pricePrecision: 2,
  baseAssetPrecision: 8,
  quoteAssetPrecision: 8,
  qtyStep: d('0.000001'),
  priceTick: d('0.01'),
  minQty: d('0.000001'),
  minNotional: d('1'),
  makerFee: d('0.002'),
  takerFee: d('0.002'),
  feeSource: 'default',
  isSpot: true,
  isOtc: false,
  isMargin: false,
  isZeroFee: false,
  activeKnown: true,
};

function paper(retainClosedOrders?: number) {
  const p = createPaperVenue({
    clock: new ManualClock(1_700_000_000_000),
    logger: silentLogger,
    markets: [BTCUSDT],
    balances: { USDT: '100000' },
    ...(retainClosedOrders !== undefined ? { retainClosedOrders } : {}),
  });
  p.sim.replaceBookSide('BTCUSDT', 'bid', [{ price: d('100'), quantity: d('1') }]);
  p.sim.replaceBookSide('BTCUSDT', 'ask', [{ price: d('101'), quantity: d('1') }]);
  p.sim.setLastPrice('BTCUSDT', d('100.5'));
  return p;
}

describe('paper exchange memory', () => {
  it('keeps open and recent closed orders and forgets the oldest closed ones', async () => {
    const { venue, sim } = paper(20);
    const place = (id: string) => venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.1'), price: d('95'), clientId: id });
    await place('keep');
    for (let i = 0; i < 300; i++) {
      await place(`c${i}`);
      await venue.cancelOrder(`c${i}`);
    }
    expect(sim.orders('paper').length).toBeLessThanOrEqual(20 + 64 + 64);
    await expect(venue.getOrder('c0')).rejects.toBeInstanceOf(NotFoundError);
    expect((await venue.getOrder('c299')).status).toBe('CANCELED');
    expect((await venue.openOrders()).map((o) => o.clientOrderId)).toEqual(['keep']);
  });

  it('keeps PAPER_RETAINED_ORDERS by default', async () => {
    expect(PAPER_RETAINED_ORDERS).toBe(10_000);
    const { venue, sim } = paper();
    for (let i = 0; i < 150; i++) {
      await venue.createOrder({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: d('0.1'), price: d('95'), clientId: `c${i}` });
      await venue.cancelOrder(`c${i}`);
    }
    expect(sim.orders('paper')).toHaveLength(150);
  });
});
