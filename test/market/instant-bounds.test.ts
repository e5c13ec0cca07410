/**
 * The instant desk's bounds (`GET /v1/otc/markets`) reach the market catalog (loaded by the REST
 * client from the simulator over HTTP) and the market views, and the risk module checks an instant
 * order against them, not against the spot market's limits (an audit finding: a 7 USDT instant buy
 * was denied by the spot minimum 10 USDT, a 20,000 USDT one passed to the exchange's 422).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { InstantOrderIntent } from '../../src/core/intents.js';
import { MarketCatalog } from '../../src/market/market-catalog.js';
import { marketView } from '../../src/runtime/views.js';
import { startFullSim } from '../sim/wire/contract.js';
import { World } from '../risk/fixtures.js';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

const buy = (base: string): InstantOrderIntent => ({
  kind: 'instant',
  strategy: 's1',
  symbol: 'BTCUSDT',
  side: 'BUY',
  size: { kind: 'base', quantity: d(base) },
});

describe('the instant desk’s bounds', () => {
  it('the catalog loads them through the client, and the market view carries them', async () => {
    const h = await startFullSim();
    stop = h.stop;
    const cat = new MarketCatalog({ source: h.client, options: { refreshMs: 0 } });
    await cat.start();
    const btc = cat.get('BTCUSDT');
    expect([btc.instant?.minNotional.toFixed(), btc.instant?.maxNotional.toFixed(), btc.instant?.minQty?.toFixed()]).toEqual(['5', '10000', '0.000001']);
    expect(btc.minNotional.toFixed()).toBe('10');
    const view = marketView(btc, { makerFee: d(0), takerFee: d(0) });
    expect(view.instant?.maxNotional.toFixed()).toBe('10000');
  });

  it('risk checks an instant order against them, naming the bound, the value and the market', () => {
    const w = new World();
    w.setBalance('USDT', '1000000');
    const btc = w.markets.get('BTCUSDT')!;
    const run = (qs: string[]) => {
      const e = w.engine();
      return qs.map((q) => e.check(buy(q))).map((v) => (v.ok ? 'ok' : `${v.rule}: ${v.reason}`));
    };
    // Without the desk's bounds (the list not read), the spot limits, as before (minQty 0.0002, maxQty 5).
    expect(run(['0.0001', '5.1'])).toEqual([
      'marketLimits: quantity 0.0001 is below the minimum 0.0002 of BTCUSDT',
      'marketLimits: quantity 5.1 is above the maximum 5 of BTCUSDT',
    ]);
    w.markets.set('BTCUSDT', { ...btc, instant: { minNotional: d(5), maxNotional: d(10_000) } });
    expect(run(['0.0001', '0.16', '0.2'])).toEqual([
      'ok', // 6.001 USDT: below the spot market's minimums, within the desk's
      'ok',
      "marketLimits: instant order total 12002 USDT (0.2 × 60010) is above the instant desk's maximum 10000 USDT of BTCUSDT",
    ]);
    w.markets.set('BTCUSDT', { ...btc, instant: { minNotional: d(13), maxNotional: d(10_000), minQty: d('0.0002') } });
    expect(run(['0.0001', '0.0002', '0.0003'])).toEqual([
      "marketLimits: quantity 0.0001 is below the instant desk's minimum 0.0002 of BTCUSDT",
      "marketLimits: instant order total 12.002 USDT (0.0002 × 60010) is below the instant desk's minimum 13 USDT of BTCUSDT",
      'ok',
    ]);
  });
});
