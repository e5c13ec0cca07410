/**
 * Late trades (a trade whose candle period had already closed when it arrived: after a dropped
 * connection, or on a busy machine) are left out of the live candles. They are counted per market
 * and logged at most once a minute per market, with how many came since the last line: one line per
 * trade and resolution flooded the log (2,019 lines in 5 s after dropped connections).
 *
 * The first late trade of a market is logged at once; later ones are counted, and the count is
 * logged when a minute has passed since the market's last line (by the next late trade, or by
 * `flush`, which the engine's housekeeping tick calls).
 */
import type { Logger } from '../core/logger.js';

const LATE_TRADE_LOG_EVERY_MS = 60_000;

interface MarketLate {
  total: number;
  /** Late trades not logged yet. */
  pending: number;
  /** Resolutions the pending trades were late for. */
  resolutions: Set<number>;
  /** Newest pending trade and the period start it was older than (for the line). */
  lastTradeMs: number;
  lastLogAt: number | undefined;
}

export class LateTrades {
  private readonly markets = new Map<string, MarketLate>();
  private all = 0;

  constructor(
    private readonly logger: Logger,
    private readonly everyMs = LATE_TRADE_LOG_EVERY_MS,
  ) {}

  /** A trade of `symbol` at `tradeMs` arrived after its period closed at the resolutions given. */
  record(symbol: string, tradeMs: number, resolutions: readonly number[], nowMs: number): void {
    let m = this.markets.get(symbol);
    if (!m) this.markets.set(symbol, (m = { total: 0, pending: 0, resolutions: new Set(), lastTradeMs: tradeMs, lastLogAt: undefined }));
    m.total++;
    m.pending++;
    this.all++;
    for (const r of resolutions) m.resolutions.add(r);
    m.lastTradeMs = tradeMs;
    this.logDue(symbol, m, nowMs);
  }

  /** Log the counts of every market whose last line is at least a minute old. */
  flush(nowMs: number): void {
    for (const [symbol, m] of this.markets) this.logDue(symbol, m, nowMs);
  }

  /** Late trades of one market, or of all, since the start. */
  count(symbol?: string): number {
    return symbol === undefined ? this.all : (this.markets.get(symbol)?.total ?? 0);
  }

  private logDue(symbol: string, m: MarketLate, nowMs: number): void {
    if (m.pending === 0 || (m.lastLogAt !== undefined && nowMs - m.lastLogAt < this.everyMs)) return;
    this.logger.info(
      {
        symbol,
        late: m.pending,
        total: m.total,
        resolutions: [...m.resolutions].sort((a, b) => a - b),
        lastTradeTime: new Date(m.lastTradeMs).toISOString(),
        ...(m.lastLogAt !== undefined ? { sinceMs: nowMs - m.lastLogAt } : {}),
      },
      `late trades left out of candles (their period had closed): ${m.pending} on ${symbol}${m.lastLogAt !== undefined ? ` in the last ${Math.round((nowMs - m.lastLogAt) / 1000)} s` : ''}`,
    );
    m.pending = 0;
    m.resolutions.clear();
    m.lastLogAt = nowMs;
  }
}
