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
  /** Waits (tests pass a fake); default setTimeout. */
  sleep?(ms: number): Promise<void>;
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
  /** The strategies trading the market whose history is being fed (their intents are on past candles). */
  private feeding: ReadonlySet<string> | undefined;

  /**
   * The kernel's gate: the intents of the strategies trading the market whose history is fed, while it
   * is, are denied (cancels pass). Any other strategy's (a grid's follow-up to a fill the private
   * stream reports meanwhile) goes on.
   */
  gate(intent: Intent): Verdict | undefined {
    if (!this.feeding?.has(intent.strategy) || intent.kind === 'cancel' || intent.kind === 'cancelAll') return undefined;
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
    for (const w of need.values()) {
      this.feeding = new Set(instances.filter((i) => i.markets.includes(w.symbol)).map((i) => i.name));
      try {
        out.push(await this.series(w, d));
      } finally {
        this.feeding = undefined;
      }
    }
    return out;
  }

  private async series(w: { symbol: string; seconds: number; resolution: Resolution; n: number }, d: WarmUpDeps): Promise<WarmedSeries> {
    const base = { symbol: w.symbol, seconds: w.seconds };
    const sec = w.seconds;
    const iso = (t: number) => new Date(t * 1000).toISOString();
    const say = (why: string, fed: number): WarmedSeries => {
      d.logger.info({ symbol: w.symbol, seconds: sec }, `warm-up: ${w.symbol} ${sec}s: ${why}`);
      return { ...base, candles: fed, ...(fed === 0 ? { why } : {}) };
    };
    let fed = 0;
    let to: number | undefined; // the close (s) of the last candle fed
    // The last closed candles, then those a period boundary closed meanwhile (a boundary crossed while
    // the history is read and fed): each must reach the last closed period, or the window would hold a
    // hole before the live candles. The period that just closed may not be served yet: asked once more.
    for (let round = 0; round < 4; round++) {
      const nowSec = Math.floor(d.clock.now() / 1000);
      const lastClose = nowSec - (nowSec % sec);
      if (to === lastClose) break;
      let got: Candle[];
      try {
        got = await d.history({ symbol: w.symbol, resolution: w.resolution, from: to ?? lastClose - (w.n + 1) * sec, to: nowSec });
      } catch (err) {
        const why = `the history could not be read: ${err instanceof Error ? err.message : String(err)}`;
        const after = to === undefined ? '; its strategies start cold' : `; the window has a hole from ${iso(to)} to ${iso(lastClose)}`;
        d.logger.warn({ symbol: w.symbol, seconds: sec }, `warm-up: ${w.symbol} ${sec}s: ${why}${after}`);
        return { ...base, candles: fed, ...(fed === 0 ? { why } : {}) };
      }
      const closed = got.filter((c) => c.time + sec <= lastClose && (to === undefined || c.time >= to)).slice(to === undefined ? -w.n : 0);
      const last = closed.at(-1);
      if (!last || last.time + sec !== lastClose) {
        if (last && last.time + sec === lastClose - sec && round === 0 && to === undefined) {
          await (d.sleep ?? sleep)(2_000);
          continue;
        }
        if (to !== undefined) return say(`the candle(s) from ${iso(to)} to ${iso(lastClose)} are not served yet: the window has a hole there`, fed);
        const why = last
          ? `the history ends at ${iso(last.time + sec)}, before the last closed candle (${iso(lastClose)}): not used; its strategies start cold`
          : `the exchange has no candle in the ${w.n} periods before ${iso(lastClose)}; its strategies start cold`;
        return say(why, 0);
      }
      if (to !== undefined && closed[0]!.time !== to) return say(`the candle at ${iso(to)} is not served: the window has a hole there`, fed);
      for (const c of closed) {
        const r = d.onBar(w.symbol, Bar.fromCandle(c, sec));
        if (r) await r;
      }
      fed += closed.length;
      to = lastClose;
    }
    return say(`${fed} closed candle(s) from the exchange history, to ${iso(to!)}`, fed);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
