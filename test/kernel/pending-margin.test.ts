/**
 * The pending margin positions a halt or a stop cancels: only those this bot opened, and a close
 * the exchange answers without cancelling is reported, not counted.
 */
import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { Logger } from '../../src/core/logger.js';
import type { MarginPosition } from '../../src/core/types/margin.js';
import type { Venue } from '../../src/execution/venue.js';
import { cancelPendingMargin } from '../../src/kernel/pending-margin.js';
import { PositionOwners } from '../../src/risk/margin-owners.js';

const pos = (id: number, state: string) => ({ id, market: 'BTCUSDT', state, openPrice: d('60000') }) as unknown as MarginPosition;

function setup(answer: string) {
  const closed: number[] = [];
  const venue = {
    positions: async () => [pos(1, 'pending'), pos(2, 'pending'), pos(3, 'open')],
    closePosition: async (id: number) => {
      closed.push(id);
      return pos(id, answer);
    },
  } as unknown as Venue;
  const logs: { level: string; msg: string }[] = [];
  const logger = {
    info: (_o: unknown, msg: string) => logs.push({ level: 'info', msg }),
    warn: (_o: unknown, msg: string) => logs.push({ level: 'warn', msg }),
  } as unknown as Logger;
  const owners = new PositionOwners();
  owners.set(1, 'mt');
  owners.set(3, 'mt');
  return { closed, logs, deps: { accounts: ['main'], venueFor: () => venue, owners, logger } };
}

describe('cancelPendingMargin', () => {
  it("cancels only the pending positions this bot opened (2 is someone else's, 3 is open)", async () => {
    const s = setup('canceled');
    expect(await cancelPendingMargin(s.deps)).toBe(1);
    expect(s.closed).toEqual([1]);
    expect(s.logs).toEqual([{ level: 'info', msg: 'pending margin opening cancelled' }]);
  });

  it('reports a close the exchange answered without cancelling, and does not count it', async () => {
    const s = setup('pending');
    expect(await cancelPendingMargin(s.deps)).toBe(0);
    expect(s.logs).toEqual([{ level: 'warn', msg: 'pending margin opening: the exchange did not cancel it' }]);
  });

  it('reads nothing when the bot never opened a position', async () => {
    const s = setup('canceled');
    const none = { ...s.deps, owners: new PositionOwners(), venueFor: () => ({}) as Venue };
    expect(await cancelPendingMargin(none)).toBe(0);
  });
});
