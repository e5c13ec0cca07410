/**
 * Issue #35 item 3: the margin markets' risk-coefficient bounds (`/margin-trade/v1/public/markets`)
 * reach the market catalog (loaded by the REST client from the simulator over HTTP) and the risk
 * module denies a `riskCoef` out of them, naming the bounds, before the exchange would refuse it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { MarginOpenIntent } from '../../src/core/intents.js';
import { MarketCatalog } from '../../src/market/market-catalog.js';
import { marketView } from '../../src/runtime/views.js';
import { startFullSim } from '../sim/wire/contract.js';
import { World } from '../risk/fixtures.js';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

const open = (riskCoef: string): MarginOpenIntent => ({
  kind: 'marginOpen',
  strategy: 's1',
  market: 'BTCUSDT',
  side: 'long',
  collateral: d('100'),
  riskCoef: d(riskCoef),
  openPrice: d('60000'),
});

describe('risk-coefficient bounds of the margin markets', () => {
  it('the catalog loads them through the client; a market without margin keeps none', async () => {
    const h = await startFullSim();
    stop = h.stop;
    const cat = new MarketCatalog({ source: h.client, options: { refreshMs: 0 } });
    await cat.start();
    const btc = cat.get('BTCUSDT');
    expect([btc.riskCoef?.min.toFixed(), btc.riskCoef?.max.toFixed(), btc.riskCoef?.step?.toFixed(), btc.marginMaxAgeSec]).toEqual([
      '2',
      '10',
      '0.5',
      21 * 86400,
    ]);
    const view = marketView(btc, { makerFee: d(0), takerFee: d(0) });
    expect(view.riskCoef?.max.toFixed()).toBe('10');
  });

  it('risk denies a riskCoef out of the bounds with the bounds in the reason; one inside passes', () => {
    const w = new World();
    w.setBalance('USDT', '1000000');
    const btc = w.markets.get('BTCUSDT')!;
    // Without bounds (a market the margin list does not name), only riskCoef >= 1 is checked.
    expect(w.engine().check(open('12')).ok).toBe(true);
    w.markets.set('BTCUSDT', { ...btc, riskCoef: { min: d(2), max: d(10), step: d('0.5') } });
    const e = w.engine();
    for (const [k, ok] of [
      ['12', false],
      ['1.5', false],
      ['2.25', false],
      ['2', true],
      ['9.5', true],
      ['10', true],
    ] as const) {
      const v = e.check(open(k));
      expect({ k, ok: v.ok }).toEqual({ k, ok });
      if (!v.ok) {
        expect(v.rule).toBe('marketLimits');
        expect(v.reason).toBe(`riskCoef ${k} is outside the exchange's bounds for BTCUSDT: 2 to 10 in steps of 0.5`);
      }
    }
  });
});
