/**
 * A bracket's persisted state and the store that keeps it: `BracketRecord` (what survives a
 * restart), the `BracketStore` port the BracketManager saves through, and the in-memory store of
 * runs without a journal. Its own module because the state is a contract between the manager
 * (src/execution/brackets.ts) and whoever persists it (the journal-backed store of
 * src/runtime/bracket-store.ts): a store needs these types, not the manager's logic.
 */
import type { Side } from '../core/types/market.js';

/** The persisted state of one bracket (amounts and prices as decimal strings). */
export interface BracketRecord {
  /** Client id of the entry order. */
  entry: string;
  strategy: string;
  account: string;
  symbol: string;
  /** The side of the exits (the entry's opposite). */
  exitSide: Side;
  stopLoss?: string;
  takeProfit?: string;
  /** What the entry's fills brought in that the exits may close (base). */
  held: string;
  /** What the exits closed so far. */
  exited: string;
  /** Client ids of the live children, once known. */
  stop?: string;
  target?: string;
  exit?: string;
  /** `open`: the legs protect; `exiting`: a market exit is under way (the stop is cancelled first). */
  phase: 'open' | 'exiting';
  /** Why the bracket is exiting (take profit reached, stop already crossed). */
  why?: string;
  /** A market exit was not filled once: the next failure ends the bracket (no churn). */
  exitFailed?: boolean;
}

export interface BracketStore {
  load(): BracketRecord[];
  save(r: BracketRecord): void;
  remove(entry: string): void;
  /** Journal a bracket decision on the entry (optional). */
  note?(entry: string, detail: Record<string, unknown>): void;
}

/** A store for runs without a journal (backtests). */
export function memoryBracketStore(): BracketStore & { records: Map<string, BracketRecord> } {
  const records = new Map<string, BracketRecord>();
  return {
    records,
    load: () => [...records.values()].map((r) => ({ ...r })),
    save: (r) => void records.set(r.entry, { ...r }),
    remove: (e) => void records.delete(e),
  };
}
