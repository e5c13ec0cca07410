/**
 * The strategies' `ctx.plot` points of a live or paper run, kept for the API and the dashboard
 * (which draws them over the strategy's candles): per strategy, market and declared name, the last
 * `keep` points (a ring: memory stays flat over weeks). Two calls in one millisecond keep the last.
 */
import type { PlotSpecs } from '../strategy/plots.js';

export interface PlotPoint {
  /** ms: when the strategy drew it (a candle's close). */
  time: number;
  /** null: NaN or infinite (a gap). */
  value: number | null;
}

export interface DeclaredPlots {
  specs: PlotSpecs;
  markets: readonly string[];
}

export class PlotRing {
  private readonly series = new Map<string, Map<string, Map<string, PlotPoint[]>>>();
  private readonly declared = new Map<string, DeclaredPlots>();

  constructor(
    private readonly now: () => number,
    private readonly keep = 1_000,
  ) {}

  /** The plots a strategy instance declares (its definition's `plots`) and its markets. */
  declare(strategy: string, specs: PlotSpecs | undefined, markets: readonly string[]): void {
    this.declared.set(strategy, { specs: specs ?? {}, markets });
  }

  declaredOf(strategy: string): DeclaredPlots {
    return this.declared.get(strategy) ?? { specs: {}, markets: [] };
  }

  /** The kernel's PlotSink: one series' points from now on. */
  open(strategy: string, symbol: string, name: string): (value: number) => void {
    return (value) => this.add(strategy, symbol, name, value);
  }

  /** A point of a series now. */
  add(strategy: string, symbol: string, name: string, value: number): void {
    const bySymbol = this.series.get(strategy) ?? new Map<string, Map<string, PlotPoint[]>>();
    this.series.set(strategy, bySymbol);
    const byName = bySymbol.get(symbol) ?? new Map<string, PlotPoint[]>();
    bySymbol.set(symbol, byName);
    const points = byName.get(name) ?? [];
    byName.set(name, points);
    const time = this.now();
    const v = Number.isFinite(value) ? value : null;
    const last = points[points.length - 1];
    if (last && last.time === time) last.value = v;
    else points.push({ time, value: v });
    if (points.length > this.keep) points.splice(0, points.length - this.keep);
  }

  /** The strategy's series: market → name → points (copies), oldest first. */
  of(strategy: string): { symbol: string; name: string; points: PlotPoint[] }[] {
    const out: { symbol: string; name: string; points: PlotPoint[] }[] = [];
    for (const [symbol, byName] of this.series.get(strategy) ?? [])
      for (const [name, points] of byName) out.push({ symbol, name, points: points.map((p) => ({ ...p })) });
    return out;
  }
}
