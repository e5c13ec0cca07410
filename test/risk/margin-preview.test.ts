/**
 * The call price of a new margin position comes from the exchange's dry-run preview, taken by the
 * trading core on the strategy's venue before the check, only when a `minCallDistancePct` applies
 * to the strategy. A preview that fails denies with its reason (never a guessed call price).
 * Through the real stack on the in-process simulator (sim-stack.ts).
 */
import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { MarginOpenIntent } from '../../src/core/intents.js';
import type { MarginRequest } from '../../src/core/types/margin.js';
import type { RiskLimits } from '../../src/risk/limits.js';
import { simStack } from './sim-stack.js';

const open = (): MarginOpenIntent => ({ kind: 'marginOpen', strategy: 'holder', market: 'BTCUSDT', side: 'long', collateral: d('1000'), riskCoef: d('2') });

async function stack(limits: RiskLimits) {
  const st = simStack({ balances: { USDT: '10000' }, limits });
  st.setPrice('BTCUSDT', '60000');
  await st.sync();
  const previews: MarginRequest[] = [];
  const real = st.venue.previewPosition.bind(st.venue);
  return { st, previews, real };
}

describe('margin open: the dry-run preview gives the call price', () => {
  it('a preview that fails denies the open with its reason, and nothing is opened', async () => {
    const { st, previews } = await stack({ minCallDistancePct: 1 });
    st.venue.previewPosition = async (req) => {
      previews.push(req);
      throw new Error('request timed out after 10000 ms');
    };
    await st.core.process([open()]);
    await st.core.idle();
    expect(previews).toHaveLength(1);
    expect(st.log.denials.map((x) => [x.rule, x.reason])).toEqual([['margin', 'could not preview the position: request timed out after 10000 ms']]);
    expect(st.desks.margin.list('a1', {})).toEqual([]);
    // The denial left no funds reserved.
    expect(st.risk.reservations.reserved('main', 'USDT').toFixed()).toBe('0');
  });

  it("the preview's call price decides: taken at the mid the open defaults to, near denies, far passes", async () => {
    const near = await stack({ minCallDistancePct: 50 });
    near.st.venue.previewPosition = async (req) => {
      near.previews.push(req);
      return near.real(req);
    };
    await near.st.core.process([open()]);
    await near.st.core.idle();
    expect(near.previews).toHaveLength(1);
    expect(near.previews[0]!.openPrice.toFixed()).toBe(near.st.sim.mid('BTCUSDT')!.toFixed());
    expect(near.st.log.denials).toHaveLength(1);
    expect(near.st.log.denials[0]!.reason).toMatch(
      /^the call price \d+(\.\d+)? is 4\d\.\d+% from the current price 60000 of BTCUSDT, closer than the 50% allowed$/,
    );

    const far = await stack({ minCallDistancePct: 30 });
    await far.st.core.process([open()]);
    await far.st.core.idle();
    expect(far.st.log.denials).toEqual([]);
    expect(far.st.portfolio.marginPositions()).toHaveLength(1);
  });

  it('without a minCallDistancePct no preview is taken and the check stays synchronous', async () => {
    const { st, previews } = await stack({});
    st.venue.previewPosition = async (req) => {
      previews.push(req);
      throw new Error('must not be called');
    };
    // Denied at once (risk coefficient): process returns synchronously, no promise.
    const st2 = await stack({ maxRiskCoef: d('1.5') });
    expect(st2.st.core.process([open()])).toBeUndefined();
    await st.core.process([open()]);
    await st.core.idle();
    expect(previews).toEqual([]);
    expect(st.log.denials).toEqual([]);
    expect(st.portfolio.marginPositions()).toHaveLength(1);
  });
});
