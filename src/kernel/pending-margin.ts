/**
 * A margin position whose opening order has not filled (`pending`) is an open order in all but
 * name: a halt and a stop that cancels orders cancel the ones this bot opened (the owner record's
 * opener, never a fallback owner: a position the user opened by hand is left alone).
 */
import type { Logger } from '../core/logger.js';
import type { Venue } from '../execution/venue.js';
import type { PositionOwners } from '../risk/margin-owners.js';

export interface PendingMarginDeps {
  accounts: readonly string[];
  venueFor(account: string): Venue;
  owners: PositionOwners;
  logger: Logger;
}

/** Cancel the pending positions this bot opened, on every account it trades; returns how many were cancelled. */
export async function cancelPendingMargin(d: PendingMarginDeps): Promise<number> {
  let n = 0;
  if (!d.owners.anyOpened) return n;
  for (const account of d.accounts) {
    const venue = d.venueFor(account);
    const pending = (await venue.positions({ active: true })).filter((pos) => pos.state === 'pending' && d.owners.opener(pos.id) !== undefined);
    for (const pos of pending) {
      // The exchange's docs show the close call on open positions only; the simulator cancels a
      // pending one through it (and refunds its fee). What the exchange answers is checked, never assumed.
      const after = await venue.closePosition(pos.id, pos.openPrice);
      const fields = { account, positionId: pos.id, market: pos.market, strategy: d.owners.opener(pos.id), state: after.state };
      if (after.state === 'pending' || after.state === 'open') {
        d.logger.warn(fields, 'pending margin opening: the exchange did not cancel it');
        continue;
      }
      d.logger.info(fields, 'pending margin opening cancelled');
      n++;
    }
  }
  return n;
}
