/**
 * The strategies' plot series of a backtest (`ctx.plot`): one series per strategy instance, market
 * and declared name, a point per call at the simulated time (a candle's close), from `from` on (the
 * warm-up is not drawn). Two calls in one moment keep the last value. Thinned as they come: of a
 * run of `expected` candles at most about `maxPoints` points per series are kept (every k-th, the
 * last one always), so a million-candle run does not hold a million points per series.
 */
import type { StrategyInstance } from '../kernel/trading-core.js';
import { paneOf } from '../strategy/plots.js';

export interface PlotSeries {
  strategy: string;
  symbol: string;
  name: string;
  /** `price` (over the candles) or the name of its own pane. */
  pane: string;
  color: string | null;
  levels: number[];
  /** Times (ms, the candle's close) and values; null where the value was NaN or infinite (a gap). */
  times: number[];
  values: (number | null)[];
}

interface Open {
  strategy: string;
  symbol: string;
  name: string;
  times: number[];
  values: number[];
  /** Points (distinct times) to pass over before the next one kept: every `step`-th is kept, the first included. */
  skip: number;
  /** The latest point when it was not kept (NaN time: none). */
  lastT: number;
  lastV: number;
}

export class PlotBook {
  /** By strategy, market and name (nested maps: no key string built per point). */
  private readonly series = new Map<string, Map<string, Map<string, Open>>>();

  /** Keep every `step`-th point. */
  private readonly step: number;

  constructor(
    private readonly now: () => number,
    private readonly fromMs: number,
    /** Candle closes the run has from `from` on (of its longest market). */
    expected: number,
    private readonly maxPoints = 5000,
  ) {
    this.step = Math.max(1, Math.ceil(expected / maxPoints));
  }

  /** The series drawn last, most recent first (a strategy draws the same few every candle: no map lookups). */
  private readonly recent: Open[] = [];

  private find(strategy: string, symbol: string, name: string): Open {
    const recent = this.recent;
    for (let i = 0; i < recent.length; i++) {
      const s = recent[i]!;
      if (s.name === name && s.symbol === symbol && s.strategy === strategy) return s;
    }
    let bySymbol = this.series.get(strategy);
    if (!bySymbol) this.series.set(strategy, (bySymbol = new Map()));
    let byName = bySymbol.get(symbol);
    if (!byName) bySymbol.set(symbol, (byName = new Map()));
    let s = byName.get(name);
    if (!s) byName.set(name, (s = { strategy, symbol, name, times: [], values: [], skip: 0, lastT: NaN, lastV: NaN }));
    if (recent.length >= 8) recent.pop();
    recent.unshift(s);
    return s;
  }

  /** A point of a series now (at the clock's time). */
  add(strategy: string, symbol: string, name: string, value: number): void {
    const t = this.now();
    if (t < this.fromMs) return;
    this.point(this.find(strategy, symbol, name), t, value);
  }

  /** One series' points from now on: `ctx.plot` looks its series up once and then hands each value here. */
  open(strategy: string, symbol: string, name: string): (value: number) => void {
    const now = this.now;
    const fromMs = this.fromMs;
    const step = this.step;
    let s: Open | undefined; // made at the first point at or after `from` (the warm-up is not drawn)
    // `point`, inline: this runs for every candle of every series drawn, and most points are only
    // remembered as the latest (the thinning keeps every step-th); no call takes the time across.
    return (value) => {
      const t = now();
      if (t < fromMs) return;
      s ??= this.find(strategy, symbol, name);
      if (s.lastT === t) {
        s.lastV = value;
        return;
      }
      if (s.skip > 0) {
        const k = s.times.length;
        if (k > 0 && s.times[k - 1] === t) {
          s.values[k - 1] = value;
          return;
        }
        s.skip--;
        s.lastT = t;
        s.lastV = value;
        return;
      }
      this.keep(s, t, value, step);
    };
  }

  /** A point at a time not drawn yet, when the thinning keeps it (the rest of `point`). */
  private keep(s: Open, t: number, value: number, step: number): void {
    const k = s.times.length;
    if (k > 0 && s.times[k - 1] === t) {
      s.values[k - 1] = value;
      return;
    }
    s.skip = step - 1;
    s.times.push(t);
    s.values.push(value);
    s.lastT = NaN;
  }

  private point(s: Open, t: number, value: number): void {
    const k = s.times.length;
    if (k > 0 && s.times[k - 1] === t) {
      s.values[k - 1] = value;
      return;
    }
    if (s.lastT === t) {
      s.lastV = value;
      return;
    }
    if (s.skip === 0) {
      s.skip = this.step - 1;
      s.times.push(t);
      s.values.push(value);
      s.lastT = NaN;
    } else {
      s.skip--;
      s.lastT = t;
      s.lastV = value;
    }
  }

  /** The series in a fixed order (instance order, then market, then declaration order). */
  result(instances: readonly StrategyInstance[]): PlotSeries[] {
    const maxPoints = this.maxPoints;
    const out: PlotSeries[] = [];
    for (const inst of instances) {
      const specs = inst.definition.plots ?? {};
      for (const symbol of inst.markets) {
        for (const name of Object.keys(specs)) {
          const s = this.series.get(inst.name)?.get(symbol)?.get(name);
          if (!s) continue;
          if (!Number.isNaN(s.lastT)) {
            s.times.push(s.lastT);
            s.values.push(s.lastV);
            s.lastT = NaN;
          }
          const spec = specs[name];
          const step = Math.max(1, Math.ceil(s.times.length / Math.max(2, maxPoints)));
          const times: number[] = [];
          const values: (number | null)[] = [];
          const push = (i: number) => {
            times.push(s.times[i]!);
            const v = s.values[i]!;
            values.push(Number.isFinite(v) ? v : null);
          };
          for (let i = 0; i < s.times.length; i += step) push(i);
          if (times[times.length - 1] !== s.times[s.times.length - 1]) push(s.times.length - 1);
          out.push({ strategy: inst.name, symbol, name, pane: paneOf(spec), color: spec?.color ?? null, levels: [...(spec?.levels ?? [])], times, values });
        }
      }
    }
    return out;
  }
}
