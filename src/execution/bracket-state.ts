/**
 * A bracket's persisted state and the store that keeps it: `BracketRecord` (what survives a
 * restart), the `BracketStore` port the BracketManager saves through, and the in-memory store of
 * runs without a journal. Its own module because the state is a contract between the manager
 * (src/execution/brackets.ts) and whoever persists it (the journal-backed store of
 * src/runtime/bracket-store.ts): a store needs these types, not the manager's logic.
 */
import type { Side } from '../core/types/market.js';
import { Decimal } from '../core/decimal.js';
import { isFinal, type TrackedOrder } from './tracked-order.js';

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
  /**
   * A leg was cancelled by the bot's own stop (its cancel of the open orders): the bracket is kept
   * and its legs are placed again at the next start, once the market's price is known.
   */
  suspended?: boolean;
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

/** sl: the stop (or a market exit of a stop already crossed); tp: the take profit; x: an exit the strategy asked for. */
const TAG = /^bracket-(sl|tp|x):(.+)$/;
/** How the `why` of an exit the strategy asked for starts (exit()). */
export const STRATEGY_EXIT = 'exit asked by';

/** The bracket an order's tag makes it a child of. */
export function bracketOf(tag: string | undefined): { leg: 'sl' | 'tp' | 'x'; entry: string } | undefined {
  if (!tag || !tag.startsWith('bracket-')) return undefined;
  const m = TAG.exec(tag);
  return m ? { leg: m[1] as 'sl' | 'tp' | 'x', entry: m[2]! } : undefined;
}

/** What the resting legs (stop, target) of a strategy's brackets in a market hold (base), and which legs they are. */
export function restingLegs(
  records: Iterable<BracketRecord>,
  orders: ReadonlyMap<string, TrackedOrder>,
  strategy: string,
  symbol: string,
): { quantity: Decimal; legs: string[] } {
  let quantity = new Decimal(0);
  const legs = new Set<string>();
  for (const r of records) {
    if (r.strategy !== strategy || r.symbol !== symbol) continue;
    for (const leg of ['stop', 'target'] as const) {
      const o = r[leg] ? orders.get(r[leg]) : undefined;
      if (!o || isFinal(o.state)) continue;
      quantity = quantity.plus(o.quantity.minus(o.filled));
      legs.add(leg === 'stop' ? 'stop loss' : 'take profit');
    }
  }
  return { quantity, legs: [...legs] };
}
