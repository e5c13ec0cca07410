/**
 * When the books of a book backtest were unhealthy (the result's `book.unhealthy`): per market, each
 * stretch from the engine's book turning unhealthy (the cold start until the first snapshot, a
 * recorded gap, a crossed or refused side…) to its being whole again, with the reasons seen during
 * it, and how many recorded depth frames of that market left it unhealthy. Read from the market-data
 * engine's own health, the one the strategies and the risk module saw.
 */
import type { Clock } from '../../core/clock.js';
import type { BookHealth } from '../../market/book-health.js';
import type { MarketDataEngine } from '../../market/engine.js';

/** Stretches listed per market at most (the count and the total cover them all). */
const LISTED = 100;

export interface UnhealthyStretch {
  /** Epoch ms: the book turned unhealthy, and was healthy again (or the run ended). */
  from: number;
  to: number;
  /** Every reason the book had during the stretch (stream_down, initializing, crossed, …). */
  reasons: string[];
}

export interface UnhealthyBook {
  stretches: number;
  totalMs: number;
  /** Recorded depth frames of the market after which its book was still unhealthy. */
  depthFramesWhileUnhealthy: number;
  /** The first stretches, in time order. */
  list: UnhealthyStretch[];
}

interface Open {
  from: number;
  reasons: Set<string>;
}

export class UnhealthyBooks {
  private readonly open = new Map<string, Open>();
  private readonly done = new Map<string, UnhealthyBook>();

  /** `markets` must be tracked by the engine already (after `engine.start`: `initializing` at first). */
  constructor(
    engine: Pick<MarketDataEngine, 'health' | 'on'>,
    markets: readonly string[],
    private readonly clock: Clock,
  ) {
    for (const s of markets) {
      this.done.set(s, { stretches: 0, totalMs: 0, depthFramesWhileUnhealthy: 0, list: [] });
      this.update(s, engine.health(s));
    }
    engine.on('health', (s, h) => this.update(s, h));
  }

  /** A recorded depth frame of `symbol`, after the engine applied it (listen after `engine.start`). */
  depthFrame(symbol: string): void {
    const b = this.done.get(symbol);
    if (b && this.open.has(symbol)) b.depthFramesWhileUnhealthy++;
  }

  /** The run ended at `t`: stretches still open end there. */
  end(t: number): void {
    for (const s of [...this.open.keys()]) this.close(s, t);
  }

  result(): Record<string, UnhealthyBook> {
    return Object.fromEntries([...this.done.keys()].sort().map((s) => [s, this.done.get(s)!]));
  }

  private update(symbol: string, h: BookHealth): void {
    if (!this.done.has(symbol)) return;
    const o = this.open.get(symbol);
    if (h.healthy) {
      if (o) this.close(symbol, this.clock.now());
    } else if (o) for (const r of h.reasons) o.reasons.add(r);
    else this.open.set(symbol, { from: this.clock.now(), reasons: new Set(h.reasons) });
  }

  private close(symbol: string, t: number): void {
    const o = this.open.get(symbol)!;
    this.open.delete(symbol);
    const b = this.done.get(symbol)!;
    b.stretches++;
    b.totalMs += t - o.from;
    if (b.list.length < LISTED) b.list.push({ from: o.from, to: t, reasons: [...o.reasons].sort() });
  }
}

/** The unhealthy stretches as lines of the terminal summary. */
export function formatUnhealthy(u: Record<string, UnhealthyBook>): string[] {
  return Object.entries(u).map(
    ([s, b]) =>
      `  ${s}: book unhealthy ${b.stretches} time(s), ${(b.totalMs / 1000).toFixed(3)} s in all, ${b.depthFramesWhileUnhealthy} depth frame(s) left it so`,
  );
}
