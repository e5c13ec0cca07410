import { describe, expect, it } from 'vitest';
import { d, Decimal } from '../../src/core/decimal.js';
import type { MarginOpenIntent } from '../../src/core/intents.js';
import { RiskEngine } from '../../src/risk/engine.js';
import { World, marginPosition } from './fixtures.js';

const open = (over: Partial<MarginOpenIntent> = {}): MarginOpenIntent => ({
  kind: 'marginOpen',
  strategy: 's1',
  market: 'BTCUSDT',
  side: 'long',
  collateral: d('100'),
  riskCoef: d('3'),
  ...over,
});

function world() {
  const w = new World();
  w.setBalance('USDT', '10000');
  return w;
}

describe('margin rule', () => {
  it('defaults the open price to the mid and reserves collateral plus the estimated open fee', () => {
    const e = world().engine();
    const v = e.check(open());
    expect(v.ok).toBe(true);
    expect((v.intent as MarginOpenIntent).openPrice?.toFixed()).toBe('60000');
    // 100 + 100 × 3 × 0.002
    expect(e.reservations.reserved('main', 'USDT').toFixed()).toBe('100.6');
  });

  it('risk coefficient: exactly the limit passes, above is denied', () => {
    const e = world().engine({ limits: { maxRiskCoef: d('3') } });
    expect(e.check(open()).ok).toBe(true);
    const v = e.check(open({ riskCoef: d('3.01') }));
    expect(v).toMatchObject({ ok: false, rule: 'margin' });
    expect(!v.ok && v.reason).toContain('risk coefficient 3.01 is above the limit 3');
  });

  it('total loan per asset counts the open positions', () => {
    const w = world();
    w.margin = [marginPosition({ id: 1, loan: { currency: 'USDT', value: d('800') } })];
    const e = w.engine({ limits: { maxTotalLoan: { USDT: d('1000') } } });
    expect(e.check(open()).ok).toBe(true); // 800 + 100 × 2 = 1000
    const v = e.check(open({ collateral: d('100.01') }));
    expect(!v.ok && v.reason).toContain('total USDT loan would be 1000.02');
    // a short borrows the base asset: collateral × riskCoef / price
    const e2 = world().engine({ limits: { maxTotalLoan: { BTC: d('0.005') } } });
    expect(e2.check(open({ side: 'short', collateral: d('100'), riskCoef: d('3'), openPrice: d('60000') })).ok).toBe(true);
    expect(e2.check(open({ side: 'short', collateral: d('100'), riskCoef: d('3'), openPrice: d('59999') })).ok).toBe(false);
  });

  it('call distance from the dry-run preview: exactly the minimum passes, one tick closer is denied', () => {
    const e = world().engine({ limits: { minCallDistancePct: 10 } });
    expect(e.check(open(), { marginPreview: { callPrice: d('54000') } }).ok).toBe(true);
    const v = e.check(open(), { marginPreview: { callPrice: d('54000.01') } });
    expect(v).toMatchObject({ ok: false, rule: 'margin' });
    expect(!v.ok && v.reason).toContain('closer than the 10% allowed');
    // a short's call price is above the price
    expect(e.check(open({ side: 'short' }), { marginPreview: { callPrice: d('66000') } }).ok).toBe(true);
    expect(e.check(open({ side: 'short' }), { marginPreview: { callPrice: d('65999.99') } }).ok).toBe(false);
  });

  it('without a preview the injected formula gives the call price; with neither it denies', () => {
    const w = world();
    // Long call price at margin w = 0.1: (loan) / (Q × (1 − w)), Q = C·k / P.
    const formula = (i: MarginOpenIntent, price: Decimal) => {
      const q = i.collateral.mul(i.riskCoef).div(price);
      return i.collateral.mul(i.riskCoef.minus(1)).div(q.mul(0.9));
    };
    const e = new RiskEngine({
      ports: w.ports({ marginCallPrice: formula }),
      clock: w.clock,
      limits: { minCallDistancePct: 20 },
    });
    // k = 3: call = 60000 × 2/3 / 0.9 = 44444.44…, 25.9% away: passes; k = 5: 53333.33…, 11.1%: denied.
    expect(e.check(open()).ok).toBe(true);
    expect(e.check(open({ riskCoef: d('5') }))).toMatchObject({ ok: false, rule: 'margin' });
    const bare = world().engine({ limits: { minCallDistancePct: 20 } });
    const v = bare.check(open());
    expect(!v.ok && v.reason).toContain('neither a dry-run preview nor a formula');
  });

  it('a denied margin open holds no reservation', () => {
    const e = world().engine({ limits: { maxRiskCoef: d('2') } });
    expect(e.check(open()).ok).toBe(false);
    expect(e.reservations.size).toBe(0);
  });
});
