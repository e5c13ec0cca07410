/**
 * The margin monitor against a long position whose price walks toward its call price. The margin
 * formula is injected: the simulator's arithmetic for a long (src/sim/margin/math.ts):
 *   equity E(P) = q + Q·P − I, trigger at margin x: P_x = (I − q) / (Q·(1 − x)),
 *   call at w = 0.1, liquidation at m = 0.05; adding collateral ΔC raises q by ΔC.
 */
import { describe, expect, it } from 'vitest';
import { d, Decimal } from '../../src/core/decimal.js';
import type { MarginPosition } from '../../src/core/types/margin.js';
import { MarginMonitor, type MarginAction, type MarginFormulas } from '../../src/risk/margin-monitor.js';
import { marginPosition } from './fixtures.js';

const W = d('0.1');
const M = d('0.05');

class SimLong {
  q: Decimal;
  constructor(
    readonly Q: Decimal,
    loan: Decimal,
    readonly I = d('0'),
  ) {
    this.q = loan.neg();
  }
  at(x: Decimal): Decimal {
    return this.I.minus(this.q).div(this.Q.mul(new Decimal(1).minus(x)));
  }
  position(id: number): MarginPosition {
    return marginPosition({ id, callPrice: this.at(W), liquidityPrice: this.at(M) });
  }
}

function formulas(sim: SimLong): MarginFormulas {
  return {
    // (I − q − ΔC) / (Q(1 − w)) = target  =>  ΔC = I − q − target·Q·(1 − w)
    collateralForCallPrice: (_p, target) => sim.I.minus(sim.q).minus(target.mul(sim.Q).mul(new Decimal(1).minus(W))),
  };
}

/** Walk the price down from 60000 in 0.5 % steps; the "executor" adds collateral when asked. */
function walk(budget: string, floor: number) {
  // 1000 USDT collateral at 3×: loan 2000, Q = 0.05 BTC; call 44444.44…, liquidation 42105.26…
  const sim = new SimLong(d('0.05'), d('2000'));
  const monitor = new MarginMonitor({
    config: { warnAtPct: 10, topUpAtPct: 5, closeAtPct: 2, topUpTargetPct: 15, topUpBudget: { USDT: d(budget) } },
    formulas: formulas(sim),
    quoteOf: () => 'USDT',
  });
  const log: { action: MarginAction; price: number }[] = [];
  let liquidated = false;
  let closed = false;
  for (let px = 60000; px > floor && !closed; px *= 0.995) {
    const price = new Decimal(px.toFixed(2));
    const p = sim.position(1);
    if (price.lte(p.liquidityPrice)) {
      liquidated = true;
      break;
    }
    for (const a of monitor.evaluate([p], () => price)) {
      log.push({ action: a, price: px });
      if (a.action === 'topUp') sim.q = sim.q.plus(a.amount as Decimal);
      if (a.action === 'close') closed = true;
    }
  }
  return { log, liquidated, closed, monitor, sim };
}

describe('margin monitor', () => {
  it('warns, then tops up at the threshold, in order, and never reaches liquidation when the budget suffices', () => {
    const { log, liquidated, closed, monitor } = walk('3000', 30000);
    expect(liquidated).toBe(false);
    expect(closed).toBe(false);
    const kinds = log.map((l) => l.action.action);
    expect(kinds[0]).toBe('warn');
    expect(kinds[1]).toBe('topUp');
    expect(kinds.filter((k) => k === 'topUp').length).toBeGreaterThanOrEqual(3);
    // Each action at its threshold: the warn within 10 % of the call, top-ups within 5 %, and only
    // just crossed (0.5 % price steps move the distance by about 0.5 point).
    const firstWarn = log[0]!.action;
    expect(firstWarn.distanceToCallPct).toBeLessThanOrEqual(10);
    expect(firstWarn.distanceToCallPct).toBeGreaterThan(9.3);
    for (const l of log.filter((x) => x.action.action === 'topUp')) {
      expect(l.action.distanceToCallPct).toBeLessThanOrEqual(5);
      expect(l.action.distanceToCallPct).toBeGreaterThan(4.3);
      expect(l.action.amount!.gt(0)).toBe(true);
    }
    // A top-up moves the call price back to 15 % below the mark; each warn comes before its top-up.
    for (let i = 0; i < kinds.length; i++) if (kinds[i] === 'topUp') expect(kinds[i - 1]).toBe('warn');
    const spent = d('3000').minus(monitor.budgetLeft('USDT'));
    const total = log.filter((l) => l.action.action === 'topUp').reduce((s, l) => s.plus(l.action.amount!), d('0'));
    expect(spent.eq(total)).toBe(true);
  });

  it('with a small budget: a partial top-up, then close before the liquidation price', () => {
    const { log, liquidated, closed } = walk('100', 30000);
    expect(liquidated).toBe(false);
    expect(closed).toBe(true);
    const kinds = log.map((l) => l.action.action);
    expect(kinds.indexOf('warn')).toBeLessThan(kinds.indexOf('topUp'));
    expect(kinds.indexOf('topUp')).toBeLessThan(kinds.indexOf('close'));
    expect(kinds.filter((k) => k === 'close')).toHaveLength(1);
    const topUp = log.find((l) => l.action.action === 'topUp')!.action;
    expect(topUp.amount!.toFixed()).toBe('100');
    expect(topUp.reason).toContain('budget allows 100');
    const close = log.find((l) => l.action.action === 'close')!.action;
    expect(close.distanceToCallPct).toBeLessThanOrEqual(2);
    expect(close.distanceToLiquidationPct).toBeGreaterThan(0);
  });

  it('does not repeat an action for the same crossing; re-arms after the price moves back', () => {
    const sim = new SimLong(d('0.05'), d('2000'));
    const m = new MarginMonitor({ config: { warnAtPct: 10 }, quoteOf: () => 'USDT' });
    const p = sim.position(1); // call 44444.44…
    const at = (x: string) => m.evaluate([p], () => d(x)).map((a) => a.action);
    expect(at('50000')).toEqual([]); // 11.1 %
    expect(at('49382.72')).toEqual([]); // one cent above the 10 % line (0.9 × 49382.72 > call)
    expect(at('49382.71')).toEqual(['warn']); // one cent inside
    expect(at('48000')).toEqual([]);
    expect(at('49500')).toEqual([]); // still within 10 %: same crossing
    expect(at('50000')).toEqual([]); // back above: re-armed
    expect(at('49000')).toEqual(['warn']);
  });

  it('without budget or formula a top-up becomes a warning that says why; refund restores the budget', () => {
    const sim = new SimLong(d('0.05'), d('2000'));
    const noFormula = new MarginMonitor({ config: { topUpAtPct: 5 }, quoteOf: () => 'USDT' });
    const a = noFormula.evaluate([sim.position(1)], () => d('46000'));
    expect(a.map((x) => x.action)).toEqual(['warn']);
    expect(a[0]!.reason).toContain('no collateral formula');
    const noBudget = new MarginMonitor({ config: { topUpAtPct: 5 }, formulas: formulas(sim), quoteOf: () => 'USDT' });
    expect(noBudget.evaluate([sim.position(1)], () => d('46000'))[0]!.reason).toContain('budget is spent');
    const m = new MarginMonitor({ config: { topUpAtPct: 5, topUpBudget: { USDT: d('50') } }, formulas: formulas(sim), quoteOf: () => 'USDT' });
    m.evaluate([sim.position(1)], () => d('46000'));
    expect(m.budgetLeft('USDT').isZero()).toBe(true);
    m.refund(1, d('50'));
    expect(m.budgetLeft('USDT').toFixed()).toBe('50');
  });

  it('what a position got counts for its whole life: a restart on the same store does not renew the budget', () => {
    const sim = new SimLong(d('0.05'), d('2000'));
    const saved: Record<string, unknown> = {};
    const store = { get: (k: string) => saved[k], set: (k: string, v: Record<string, unknown>) => void (saved[k] = v) };
    const make = () => new MarginMonitor({ config: { topUpAtPct: 5, topUpBudget: { USDT: d('50') } }, formulas: formulas(sim), quoteOf: () => 'USDT', store });
    const first = make();
    expect(first.evaluate([sim.position(1)], () => d('46000')).map((a) => [a.action, a.amount?.toFixed()])).toEqual([['topUp', '50']]);
    expect(saved.marginTopUps).toEqual({ '1': { asset: 'USDT', amount: '50' } });
    // The restarted monitor fires again (its crossings are not kept) but finds the budget spent.
    const second = make();
    expect(second.budgetLeft('USDT').toFixed()).toBe('0');
    const again = second.evaluate([sim.position(1)], () => d('46000'));
    expect(again.map((a) => a.action)).toEqual(['warn']);
    expect(again[0]!.reason).toContain('budget is spent');
    // While position 1 lives its top-up stays counted; once it has ended, it is released.
    second.release((id) => id === 1);
    expect(second.budgetLeft('USDT').toFixed()).toBe('0');
    second.release(() => false);
    expect(second.budgetLeft('USDT').toFixed()).toBe('50');
    expect(saved.marginTopUps).toEqual({});
  });

  it('a short measures the distance upward', () => {
    const m = new MarginMonitor({ config: { warnAtPct: 10, closeAtPct: 2 }, quoteOf: () => 'USDT' });
    const p = marginPosition({ id: 9, side: 'short', callPrice: d('66000'), liquidityPrice: d('68000') });
    expect(m.evaluate([p], () => d('59000')).map((a) => a.action)).toEqual([]);
    expect(m.evaluate([p], () => d('60000')).map((a) => a.action)).toEqual(['warn']);
    const c = m.evaluate([p], () => d('65000'));
    expect(c.map((a) => a.action)).toEqual(['close']);
    expect(c[0]!.distanceToCallPct).toBeCloseTo(1.538, 2);
  });
});
