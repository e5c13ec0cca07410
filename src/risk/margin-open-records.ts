/**
 * Write-ahead records of margin opens (PositionOwners keeps them): what an open was, recorded before
 * its request is sent, so a restart can tell which position on the exchange it made. The exchange's
 * create call takes no client id; the position is found by what it must share with the request.
 */
import { MizanError, RateLimitError, ResponseParseError } from '../core/errors.js';
import type { MarginPosition, PositionSide } from '../core/types/margin.js';

export interface OpenRecord {
  id: string;
  strategy: string;
  account: string;
  market: string;
  side: PositionSide;
  collateral: string;
  riskCoef: string;
  openPrice: string;
  /** When the request was about to be sent (the bot's clock, ms). */
  at: number;
}

/**
 * How far before a record's time a position's creation time may read and still match: the exchange
 * states its times to the second (the simulator too), and its clock is not the bot's.
 */
export const MATCH_SKEW_MS = 5_000;

/**
 * How long after a record's time its open can have been made: the request waits its turn in the
 * rate limiter, then at most its timeout (`exchange.rest.timeoutMs`, at most 600 s). A position created
 * later (opened by hand hours after a kill) is not the record's.
 */
export const MATCH_WINDOW_MS = 15 * 60_000;

const str = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** The records of a stored map; malformed entries are left out. */
export function readOpenRecords(saved: unknown): OpenRecord[] {
  if (!saved || typeof saved !== 'object') return [];
  const out: OpenRecord[] = [];
  for (const [id, v] of Object.entries(saved as Record<string, unknown>)) {
    if (!v || typeof v !== 'object') continue;
    const r = v as Record<string, unknown>;
    if (!str(r.strategy) || !str(r.account) || !str(r.market) || (r.side !== 'long' && r.side !== 'short')) continue;
    if (!str(r.collateral) || !str(r.riskCoef) || !str(r.openPrice) || typeof r.at !== 'number' || !Number.isFinite(r.at)) continue;
    out.push({
      id,
      strategy: r.strategy,
      account: r.account,
      market: r.market,
      side: r.side,
      collateral: r.collateral,
      riskCoef: r.riskCoef,
      openPrice: r.openPrice,
      at: r.at,
    });
  }
  return out;
}

/** A position's creation time in ms; undefined when the exchange gave none it can read. */
function createdMs(p: MarginPosition): number | undefined {
  const t = p.createdAt ?? p.openedAt;
  if (!t) return undefined;
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * The positions the open of `r` may have made: same market and side, no owner on record, created
 * from the record's time (less MATCH_SKEW_MS) to MATCH_WINDOW_MS after it; of several, those with the
 * record's open price when any has it. One without a readable creation time cannot be shown to be
 * that recent and is left out.
 */
export function matchOpen(r: OpenRecord, positions: readonly MarginPosition[], owned: (id: number) => boolean): MarginPosition[] {
  const near = positions.filter((p) => {
    if (p.market !== r.market || p.side !== r.side || owned(p.id)) return false;
    const t = createdMs(p);
    return t !== undefined && t >= r.at - MATCH_SKEW_MS && t <= r.at + MATCH_WINDOW_MS;
  });
  if (near.length < 2) return near;
  const samePrice = near.filter((p) => p.openPrice.eq(r.openPrice));
  return samePrice.length > 0 ? samePrice : near;
}

/**
 * Whether a failed create proves that no position was opened: a refusal of the request (a final error
 * other than an answer that could not be read) or a rate limit (refused before it ran). A timeout,
 * a network error or a 5xx says nothing of the outcome.
 */
export function nothingOpened(err: unknown): boolean {
  if (err instanceof RateLimitError) return true;
  return err instanceof MizanError && !err.retryable && !(err instanceof ResponseParseError);
}
