/**
 * At start, before the strategies: the margin opens an earlier run sent without taking in the answer
 * (killed mid-request) are matched to the positions each account lists (PositionOwners.reconcile), so
 * a strategy finds the position its open made instead of opening another. A list that cannot be read
 * leaves the records for the next start (said in a warning).
 */
import type { Logger } from '../core/logger.js';
import type { Venue } from '../execution/venue.js';
import type { PositionOwners } from '../risk/margin-owners.js';

export async function reconcileMarginOpens(
  owners: Pick<PositionOwners, 'unsettledAccounts' | 'reconcile'>,
  venueFor: (account: string) => Pick<Venue, 'positions'>,
  logger: Logger,
): Promise<void> {
  for (const account of owners.unsettledAccounts()) {
    try {
      owners.reconcile(account, await venueFor(account).positions({}));
    } catch (err) {
      logger.warn(
        { account, err: err instanceof Error ? err.message : String(err) },
        'margin opens sent before the stop: the positions could not be read to match them; kept for the next start',
      );
    }
  }
}
