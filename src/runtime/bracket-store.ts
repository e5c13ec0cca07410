/**
 * The brackets' state kept in the journal (key-value namespace `__brackets`, one key per entry
 * order), and their decisions journaled as events of the entry order.
 */
import type { BracketRecord, BracketStore } from '../execution/brackets.js';
import type { Journal } from '../store/journal.js';

const BRACKETS_NS = '__brackets';

export function journalBracketStore(journal: Journal): BracketStore {
  return {
    load: () => Object.values(journal.kvAll(BRACKETS_NS)) as BracketRecord[],
    save: (r) => journal.kvSet(BRACKETS_NS, r.entry, r),
    remove: (entry) => void journal.kvDelete(BRACKETS_NS, entry),
    note: (entry, detail) => {
      const row = journal.order(entry);
      if (row) journal.recordOrderEvent(entry, row.status, detail);
    },
  };
}
