/**
 * The first live candle of each series: the trade stream has only the trades since the market data
 * started (a few seconds of a minute, minutes of an hour), and it connects after the books' REST
 * read, so the candle built from them can lack the period's first trades: wrong open, high, low and
 * volume, on which a strategy would act as on a whole candle. When the period closes it is taken from
 * the exchange's candle history (`/v1/udf/history`, which has every trade of the period) instead; the
 * series' later candles wait behind it, so they stay in order. The period that just closed may not be
 * served at once, or served without the last trades (a candle without every trade the bot saw): it
 * is asked again (twice, two seconds apart). A resolution the history does not serve, or a history
 * that does not answer, leaves the candle built from the trades, and the log says so.
 */
import type { Logger } from '../core/logger.js';
import type { Timeouts } from '../core/timers.js';
import { RESOLUTIONS, resolutionSeconds, type Candle, type Resolution } from '../core/types/market.js';
import type { LiveCandle } from './candle-aggregator.js';

/** The exchange's candle history, as the REST client reads it. */
export type CandleHistory = (q: { symbol: string; resolution: Resolution; from: number; to: number }) => Promise<Candle[]>;

/** How often the period just closed is asked for, and how long apart. */
const ASKS = 3;
const ASK_AGAIN_MS = 2_000;

export class FirstCandle {
  private state: 'first' | 'holding' | 'done' = 'first';
  private held: LiveCandle[] = [];

  constructor(
    private readonly p: {
      symbol: string;
      seconds: number;
      /** When the market data started (ms): a period that began before it is partial. */
      startedAt: number;
      history: CandleHistory;
      timers: Timeouts;
      log: Logger;
      /** The candles, in order, once the first is settled (called later than `take`). */
      deliver(candles: LiveCandle[]): void;
    },
  ) {}

  /** Closed candles of the series: those to deliver now (the rest are delivered later, in order). */
  take(candles: LiveCandle[]): LiveCandle[] {
    if (this.state === 'done' || candles.length === 0) return candles;
    if (this.state === 'holding') {
      this.held.push(...candles);
      return [];
    }
    const [first, ...rest] = candles as [LiveCandle, ...LiveCandle[]];
    const { symbol, seconds, startedAt } = this.p;
    // A period that began before the market data started lacks its first trades; one that began
    // after may too (the stream connects after the books' REST read), so the first is always asked.
    const cut = first.time * 1000 < startedAt;
    const covered = cut
      ? `the trades since the start at ${iso(startedAt)} only (${Math.round((first.time * 1000 + seconds * 1000 - startedAt) / 100) / 10} s of ${seconds} s)`
      : `the trades the stream delivered (the market data started at ${iso(startedAt)})`;
    const resolution = RESOLUTIONS.find((r) => resolutionSeconds(r) === seconds);
    if (!resolution) {
      this.state = 'done';
      if (cut)
        this.p.log.info(
          { symbol, seconds },
          `first live candle: ${symbol} ${seconds}s at ${iso(first.time * 1000)} is built from ${covered}: the exchange's history does not serve ${seconds} s candles`,
        );
      return candles;
    }
    this.state = 'holding';
    this.held = rest;
    void this.settle(first, resolution, covered);
    return [];
  }

  private async settle(partial: LiveCandle, resolution: Resolution, covered: string): Promise<void> {
    const { symbol, seconds } = this.p;
    let candle = partial;
    let why = 'it was not served';
    for (let ask = 1; ask <= ASKS; ask++) {
      try {
        const got = (await this.p.history({ symbol, resolution, from: partial.time, to: partial.time + seconds })).find((c) => c.time === partial.time);
        // A history candle without every trade the bot saw in the period is not caught up yet.
        if (got && !holds(got, partial)) why = "the history's candle lacks trades the bot saw (its high, low or volume)";
        else if (got) {
          candle = {
            ...partial,
            open: got.open,
            high: got.high,
            low: got.low,
            close: got.close,
            volume: got.volume,
            empty: got.volume.isZero() && partial.empty,
          };
          break;
        }
      } catch (err) {
        why = `the history could not be read: ${err instanceof Error ? err.message : String(err)}`;
        break;
      }
      if (ask < ASKS) await new Promise<void>((resolve) => this.p.timers.setTimeout(resolve, ASK_AGAIN_MS));
    }
    if (candle === partial)
      this.p.log.warn({ symbol, seconds }, `first live candle: ${symbol} ${seconds}s at ${iso(partial.time * 1000)} is built from ${covered}: ${why}`);
    else
      this.p.log.info(
        { symbol, seconds },
        `first live candle: ${symbol} ${seconds}s at ${iso(partial.time * 1000)} from the exchange's history (the market data started in its period)`,
      );
    this.state = 'done';
    const held = this.held;
    this.held = [];
    this.p.deliver([candle, ...held]);
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Whether a history candle holds the trades the bot saw in its period (those span at most its range and volume). */
const holds = (got: Candle, seen: LiveCandle) => got.high.gte(seen.high) && got.low.lte(seen.low) && got.volume.gte(seen.volume);
