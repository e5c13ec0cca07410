/**
 * Health of one local book. A book is healthy when it has no stale reason. Reasons:
 * - `initializing`: a side has never been received (neither from REST nor from the stream);
 * - `crossed`: best bid at or above best ask, and not a transient: the other side's next update left
 *   it crossed, or it stayed crossed for `crossedGraceMs` (the sides arrive as separate snapshots, so
 *   one side moving through the other's older snapshot is not reported), or a REST snapshot was crossed;
 * - `unsorted` / `malformed`: the last message for a side was refused (the previous side is kept);
 * - `side_too_old`: a side was not updated for longer than `maxSideAgeMs`;
 * - `stream_down`: a stream connection is down, or came back and the side was not refreshed yet;
 * - `channel_stale`: the stream client reported the side's channel stale.
 * Side-level reasons (`unsorted`, `malformed`, `stream_down`, `channel_stale`) clear when that side is
 * replaced by a good snapshot (stream or REST) once the cause is gone.
 */
import type { BookSide } from './ports.js';

export type StaleReason = 'initializing' | 'crossed' | 'unsorted' | 'malformed' | 'side_too_old' | 'stream_down' | 'channel_stale';

export type SideReason = 'unsorted' | 'malformed' | 'stream_down' | 'channel_stale';

export interface BookHealth {
  symbol: string;
  healthy: boolean;
  /** Sorted, no duplicates; empty when healthy. */
  reasons: StaleReason[];
  /** Side-level reasons per side. */
  sideReasons: Record<BookSide, SideReason[]>;
  /** Age of each side at the time of the query (ms); undefined if never received. */
  bidAgeMs: number | undefined;
  askAgeMs: number | undefined;
  /** Time of the last update of either side (ms), or undefined. */
  lastUpdateAt: number | undefined;
  /** Successful REST resyncs, failed attempts, whether one is running, when the last one succeeded. */
  resyncs: number;
  resyncFailures: number;
  resyncing: boolean;
  lastResyncAt: number | undefined;
  /** Side messages refused by the integrity checks. */
  rejectedSides: number;
  /** When `healthy`/`reasons` last changed (ms). */
  changedAt: number;
}

const ORDER: readonly StaleReason[] = ['initializing', 'stream_down', 'channel_stale', 'crossed', 'unsorted', 'malformed', 'side_too_old'];

/** Canonical order of reasons, so two health values compare by a string key. */
export function sortReasons(reasons: Iterable<StaleReason>): StaleReason[] {
  const set = new Set(reasons);
  return ORDER.filter((r) => set.has(r));
}
