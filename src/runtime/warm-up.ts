/**
 * Live and paper strategies warm up on the exchange's candle history before the market data starts,
 * as a backtest's strategies warm up on the candles before `from`: each market and resolution of a
 * strategy that declares a warm-up (`warmup(params)`: closed candles it needs) and trades at a
 * resolution `/v1/udf/history` serves gets its last closed candles, fed through the one candle path
 * (TradingCore.onBar: the strategies' windows, higher timeframes and onCandle), with every intent
 * they return denied (rule `warmup`), as in a backtest's warm-up. History that does not reach the
 * last closed period (a gap, a simulator seeded with older data) is not used: a window with a hole
 * before the live candles would be worse than none. A failed request is a warning; the strategy
 * then starts cold (the status line counts its candles).
 */
import type { Clock } from '../core/clock.js';
import type { Intent, Verdict } from '../core/intents.js';
import type { Logger } from '../core/logger.js';
import { RESOLUTIONS, resolutionSeconds, type Candle, type Resolution } from '../core/types/market.js';
import type { StrategyInstance } from '../kernel/trading-core-ports.js';
import { Bar } from '../strategy/bar.js';

interface WarmUpDeps {
  clock: Clock;
  logger: Logger;
  history(q: { symbol: string; resolution: Resolution; from: number; to: number }): Promise<Candle[]>;
  onBar(symbol: string, bar: Bar): void | Promise<void>;
}

/** What one market and resolution got. */
export interface WarmedSeries {
  symbol: string;
  seconds: number;
  /** Closed candles fed. */
  candles: number;
  /** Why none were fed, when none were. */
  why?: string;
}

export class WarmUp {
  private active = false;

  /** The kernel's gate: every intent is denied while the history is fed. */
  gate(intent: Intent): Verdict | undefined {
    if (!this.active || intent.kind === 'cancel' || intent.kind === 'cancelAll') return undefined;
    return { ok: false, intent, rule: 'warmup', reason: 'warming up on the exchange candle history: no intent acts on a past candle' };
  }

  /** Feed each strategy's warm-up from the history, oldest first; the series fed. */
  async run(instances: readonly StrategyInstance[], d: WarmUpDeps): Promise<WarmedSeries[]> {
    const need = new Map<string, { symbol: string; seconds: number; resolution: Resolution; n: number }>();
    for (const inst of instances) {
      let n: number | undefined;
      try {
        n = inst.definition.warmup?.(inst.params);
      } catch {
        n = undefined; // a warmup() that throws declares nothing (`mizan check` reports it)
      }
      const resolution = RESOLUTIONS.find((r) => resolutionSeconds(r) === inst.resolutionSec);
      if (n === undefined || !Number.isFinite(n) || n < 1 || !resolution) continue;
      for (const symbol of inst.markets) {
        const k = `${symbol}:${inst.resolutionSec}`;
        const had = need.get(k);
        need.set(k, { symbol, seconds: inst.resolutionSec, resolution, n: Math.max(Math.ceil(n), had?.n ?? 0) });
      }
    }
    const out: WarmedSeries[] = [];
    this.active = true;
    try {
      for (const w of need.values()) out.push(await this.series(w, d));
    } finally {
      this.active = false;
    }
    return out;
  }

  private async series(w: { symbol: string; seconds: number; resolution: Resolution; n: number }, d: WarmUpDeps): Promise<WarmedSeries> {
    const nowSec = Math.floor(d.clock.now() / 1000);
    const lastClose = nowSec - (nowSec % w.seconds); // the last period boundary: its candle closed
    const base = { symbol: w.symbol, seconds: w.seconds };
    let got: Candle[];
    try {
      got = await d.history({ symbol: w.symbol, resolution: w.resolution, from: lastClose - (w.n + 1) * w.seconds, to: nowSec });
    } catch (err) {
      const why = `the history could not be read: ${err instanceof Error ? err.message : String(err)}`;
      d.logger.warn({ symbol: w.symbol, seconds: w.seconds }, `warm-up: ${w.symbol} ${w.seconds}s: ${why}; its strategies start cold`);
      return { ...base, candles: 0, why };
    }
    const closed = got.filter((c) => c.time + w.seconds <= lastClose).slice(-w.n);
    const last = closed.at(-1);
    // The period that just closed may not be served yet (within moments of its close): one candle
    // short is taken; more is a hole before the live candles.
    if (!last || last.time + w.seconds < lastClose - w.seconds) {
      const why = last
        ? `the history ends at ${new Date((last.time + w.seconds) * 1000).toISOString()}, before the last closed candle: not used`
        : `the exchange has no candle in the ${w.n} periods before ${new Date(lastClose * 1000).toISOString()}`;
      d.logger.info({ symbol: w.symbol, seconds: w.seconds }, `warm-up: ${w.symbol} ${w.seconds}s: ${why}; its strategies start cold`);
      return { ...base, candles: 0, why };
    }
    for (const c of closed) {
      const r = d.onBar(w.symbol, Bar.fromCandle(c, w.seconds));
      if (r) await r;
    }
    d.logger.info(
      { symbol: w.symbol, seconds: w.seconds, candles: closed.length },
      `warm-up: ${w.symbol} ${w.seconds}s: ${closed.length} closed candle(s) from the exchange history, to ${new Date((last.time + w.seconds) * 1000).toISOString()}`,
    );
    return { ...base, candles: closed.length };
  }
}
