/**
 * The kernel's one equity feed: the account's equity in the reference asset into the protections
 * that watch it (drawdown, daily loss). Live and paper sample it after each candle close (the
 * kernel's onBar) and on the bot loop's period (`sample`); a backtest's walk values the account
 * with plain numbers and hands them to `record`.
 */
import type { Clock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import type { Logger } from '../core/logger.js';
import type { EquitySnapshot } from '../portfolio/portfolio.js';

export interface EquityFeedDeps {
  clock: Clock;
  logger: Logger;
  reference: string;
  /** The account valued at the kernel's mark prices. */
  equity(ts: number): EquitySnapshot;
  /** The protections' equity input; undefined when none watches it (nothing is fed). */
  onEquity?(ts: number, equity: Decimal): void;
}

export class EquityFeed {
  /** Equity samples not fed to the protections because an asset had no price (sample). */
  unpricedSamples = 0;
  private readonly unpricedWarned = new Set<string>();
  /** Assets no market of the bot converts, named once (sample). */
  private readonly unvaluedWarned = new Set<string>();

  constructor(private readonly d: EquityFeedDeps) {}

  /** The bot's equity now (every account it trades), without feeding it anywhere (the status line, the start). */
  value(): EquitySnapshot {
    return this.d.equity(this.d.clock.now());
  }

  /** Whether `record` feeds anything (a backtest skips making the number otherwise). */
  get watched(): boolean {
    return this.d.onEquity !== undefined;
  }

  /**
   * The one equity feed of live and paper (after each candle close, and the bot loop's periodic
   * sample): the account valued at the kernel's mark prices, into the protections. The one rule: a
   * sample with an asset that has no price (a book emptied for a resync before any trade was seen)
   * would look like a loss, so it never reaches them: it is skipped, counted (`unpricedSamples`)
   * and logged once per asset. An asset no market of the bot converts (ETH held by a bot trading
   * BTCUSDT) is not a missing price: it is left out of the equity, named once, and the samples go
   * on (before, every sample was skipped and the drawdown and daily-loss protections never acted).
   * Returns the snapshot either way (the bot loop journals priced ones).
   */
  sample(): EquitySnapshot {
    const e = this.d.equity(this.d.clock.now());
    const unvalued = e.unvalued.filter((a) => !this.unvaluedWarned.has(a));
    if (unvalued.length > 0) {
      for (const a of unvalued) this.unvaluedWarned.add(a);
      this.d.logger.warn(
        { unvalued },
        `${unvalued.join(', ')} cannot be valued in ${this.d.reference} by any market of the bot: left out of the equity, the pnl and the protections (as a backtest leaves it out)`,
      );
    }
    if (e.unpriced.length > 0) {
      this.unpricedSamples++;
      const fresh = e.unpriced.filter((a) => !this.unpricedWarned.has(a));
      if (fresh.length > 0) {
        for (const a of fresh) this.unpricedWarned.add(a);
        this.d.logger.warn(
          { unpriced: e.unpriced, skipped: this.unpricedSamples },
          `equity sample skipped: no price for ${e.unpriced.join(', ')} (the protections see only fully priced samples)`,
        );
      }
      return e;
    }
    this.record(e.time, e.equity);
    return e;
  }

  /**
   * The account's equity in the reference asset at `ts`: into the protections that watch it
   * (drawdown, daily loss). Numbers are taken as they come (a backtest samples plain numbers).
   */
  record(ts: number, equity: Decimal | number): void {
    this.d.onEquity?.(ts, typeof equity === 'number' ? new Decimal(equity) : equity);
  }
}
