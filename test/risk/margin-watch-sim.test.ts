/**
 * Issue #7's margin test: a long opened through the trading core on the simulator, the price walked
 * down toward the call price step by step, the live watch acting at the configured thresholds.
 */
import { describe, expect, it } from 'vitest';
import { d, Decimal } from '../../src/core/decimal.js';
import { MarginMonitor, distancePct } from '../../src/risk/margin-monitor.js';
import { simMarginFormulas } from '../../src/risk/margin-topup.js';
import { startMarginWatch } from '../../src/kernel/margin-watch.js';
import { ACCOUNT, simStack } from './sim-stack.js';

const CFG = { warnAtPct: 5, topUpAtPct: 3, closeAtPct: 1, topUpTargetPct: 8 };

async function scenario(budget: string) {
  const st = simStack({ balances: { USDT: '10000' } });
  st.setPrice('BTCUSDT', '60000');
  await st.sync();
  await st.core.process([
    { kind: 'marginOpen', strategy: 'holder', market: 'BTCUSDT', side: 'long', collateral: d('1000'), riskCoef: d('5'), openPrice: d('60100') },
  ]);
  expect(st.log.denials).toEqual([]);
  const opened = st.portfolio.marginPositions();
  expect(opened).toHaveLength(1);
  const id = opened[0]!.id;
  const initialLiq = opened[0]!.liquidityPrice;
  expect(st.owners.owner(opened[0]!)).toBe('holder');
  const spec = st.sim.requireMarket('BTCUSDT');
  const monitor = new MarginMonitor({
    config: { ...CFG, topUpBudget: { USDT: d(budget) } },
    formulas: simMarginFormulas(() => ({ callMargin: d('0.1'), quantityPrecision: spec.stepSize, collateralPrecision: 2 })),
    quoteOf: () => 'USDT',
  });
  const watch = startMarginWatch({
    core: st.core,
    monitor,
    owners: st.owners,
    positions: () => st.portfolio.marginPositions(),
    mark: (s) => st.sim.lastPrice(s),
    closePrice: (p) => (p.side === 'long' ? st.sim.bestBid(p.market) : st.sim.bestAsk(p.market)),
  });
  const events: { action: string; price: string; toCall: number; amount?: string; callAfter?: string }[] = [];
  let price = new Decimal('60000');
  let lowestLiqSeen = new Decimal(0);
  for (let step = 0; step < 80; step++) {
    price = price.mul('0.995').toDecimalPlaces(2);
    st.setPrice('BTCUSDT', price);
    await st.sync();
    const desk = st.desks.margin.get(ACCOUNT, id);
    if (desk.state !== 'open') break;
    lowestLiqSeen = d(desk.liquidity_price);
    const actions = await watch.check();
    await st.core.idle();
    for (const a of actions) {
      const after = st.desks.margin.get(ACCOUNT, id);
      events.push({
        action: a.action,
        price: price.toFixed(),
        toCall: a.distanceToCallPct,
        ...(a.amount ? { amount: a.amount.toFixed(), callAfter: after.call_price } : {}),
      });
    }
  }
  watch.stop();
  return { st, id, events, monitor, lowestLiqSeen, finalPrice: price, initialLiq };
}

describe('margin watch on the simulator (issue #7)', () => {
  it('budget suffices: warn then top-up at their thresholds, again and again, never closed nor liquidated', async () => {
    const { st, id, events, monitor, finalPrice, initialLiq } = await scenario('5000');
    const kinds = events.map((e) => e.action);
    expect(kinds.length).toBeGreaterThanOrEqual(4);
    expect(kinds).not.toContain('close');
    // strictly alternating: each warn is followed by its top-up, from the first crossing on
    for (let i = 0; i < kinds.length; i++) expect(kinds[i]).toBe(i % 2 === 0 ? 'warn' : 'topUp');
    for (const e of events) {
      if (e.action === 'warn') {
        expect(e.toCall).toBeLessThanOrEqual(CFG.warnAtPct);
        expect(e.toCall).toBeGreaterThan(CFG.topUpAtPct);
      } else {
        expect(e.toCall).toBeLessThanOrEqual(CFG.topUpAtPct);
        expect(e.toCall).toBeGreaterThan(CFG.closeAtPct);
        // the desk's call price after the top-up is the target (8% under the mark): at most a tick
        // above it (the desk rounds a long's call up), at most 0.01 USDT of collateral / (Q·0.9) ≈ 0.14
        // below it (the top-up is rounded up to the cent)
        const target = d(e.price).mul('0.92');
        const callAfter = d(e.callAfter!);
        expect(callAfter.lte(target.plus('0.01'))).toBe(true);
        expect(callAfter.gte(target.minus('0.15'))).toBe(true);
      }
    }
    // the strategy was told every action, in the same order
    expect(st.log.alerts.map((a) => a.action)).toEqual(kinds);
    const p = st.desks.margin.get(ACCOUNT, id);
    expect(p.state).toBe('open');
    expect(d(p.call_price).lt(finalPrice)).toBe(true);
    expect(d(p.liquidity_price).lt(finalPrice)).toBe(true);
    // the price ended far below where the position would have been liquidated without top-ups
    expect(initialLiq.gt(50000)).toBe(true);
    expect(finalPrice.lt(initialLiq.mul('0.85'))).toBe(true);
    const added = events.filter((e) => e.amount).reduce((s, e) => s.plus(e.amount!), new Decimal(0));
    expect(d(p.collateral.value).toFixed()).toBe(added.plus(1000).toFixed());
    expect(monitor.budgetLeft('USDT').toFixed()).toBe(new Decimal(5000).minus(added).toFixed());
    expect(st.log.denials).toEqual([]);
  });

  it('small budget: top-up, then (budget spent) close before liquidation', async () => {
    const { st, id, events, monitor, lowestLiqSeen } = await scenario('300');
    const kinds = events.map((e) => e.action);
    expect(kinds[0]).toBe('warn');
    expect(kinds[1]).toBe('topUp');
    expect(kinds.at(-1)).toBe('close');
    expect(kinds.indexOf('close')).toBeGreaterThan(kinds.indexOf('topUp'));
    const close = events.at(-1)!;
    expect(close.toCall).toBeLessThanOrEqual(CFG.closeAtPct);
    expect(monitor.budgetLeft('USDT').toFixed()).toBe('0');
    const p = st.desks.margin.get(ACCOUNT, id);
    expect(p.state).toBe('closed');
    expect(p.close_reason).toBe('user');
    // closed above the liquidation price it had then
    expect(d(p.close_filled_price!).gt(lowestLiqSeen)).toBe(true);
    expect(distancePct('long', d(p.close_filled_price!), lowestLiqSeen).gt(0)).toBe(true);
    const topped = events.filter((e) => e.amount).reduce((s, e) => s.plus(e.amount!), new Decimal(0));
    expect(topped.toFixed()).toBe('300');
  });
});
