/**
 * When a run's account started empty: a paper exchange lives in its process, so each paper run
 * trades a fresh account, while a live account outlives the process. Offline readers (`mizan journal
 * pnl`) book a journal's fills run by run from these marks: a position does not carry over into an
 * account that never held it. Kept in the kv table under the reserved `__fresh_accounts` namespace
 * (no schema change), one key per start.
 */
import type { Journal } from './journal.js';
import type { JournalQueries } from './queries.js';

const NS = '__fresh_accounts';

/** Record that the run starting at `ts` (before its first order) trades a fresh account. */
export function recordFreshAccount(journal: Journal, ts: number): void {
  journal.kvSet(NS, String(ts), { startedTs: ts }, ts);
}

/** The starts of fresh accounts a journal recorded, in time order (ms). */
export function journalFreshAccounts(journal: JournalQueries): number[] {
  const out: number[] = [];
  for (const v of Object.values(journal.kvAll(NS))) {
    const t = (v as { startedTs?: unknown } | null)?.startedTs;
    if (typeof t === 'number' && Number.isSafeInteger(t)) out.push(t);
  }
  return out.sort((a, b) => a - b);
}
