/**
 * The metrics a book backtest adds to a candle backtest's (the result's `book` section):
 *  - fill ratio, per market: the share of orders placed that got at least one fill, and of the
 *    quantity ordered that filled;
 *  - queue time: from an order going live at the exchange to each of its maker fills (ms);
 *  - adverse selection: the mid price's move after each fill, at each horizon, in basis points of
 *    the fill price, signed for the order (positive: the market moved your way — a buy's mid rose;
 *    negative: you were picked off). A fill whose horizon falls after the run ends has no reading;
 *  - `unhealthy` (added by the run from UnhealthyBooks, book-unhealthy.ts): the stretches each book
 *    was unhealthy.
 * The mid is the one the strategies saw (the engine's local book), read at the simulated time
 * `fill time + horizon` by a timer of the run's clock.
 */
import type { Decimal } from '../../core/decimal.js';
import type { BookVenue, BookVenueFill } from './book-venue.js';
import { formatUnhealthy, type UnhealthyBook } from './book-unhealthy.js';
import type { VirtualTime } from './virtual-time.js';

/** The horizons of the adverse-selection reading, ms. */
const ADVERSE_HORIZONS_MS = [1_000, 10_000] as const;

export interface BookMetrics {
  fills: number;
  makerFills: number;
  takerFills: number;
  markets: Record<string, { orders: number; filledOrders: number; fillRatioPct: number | null; quantityFillRatioPct: number | null }>;
  /** Maker fills only: from the order going live to the fill. */
  queueTimeMs: { mean: number | null; median: number | null };
  /** Per horizon (ms as the key): the mean signed mid move after a fill, bps, and how many fills it averages. */
  adverseSelectionBps: Record<string, { mean: number | null; fills: number }>;
  /** Per market: the stretches its book was unhealthy (book-unhealthy.ts). */
  unhealthy: Record<string, UnhealthyBook>;
}

/** What BookStats measures (the fills); `unhealthy` comes from UnhealthyBooks. */
export type BookFillMetrics = Omit<BookMetrics, 'unhealthy'>;

const round = (v: number, digits = 4) => Number(v.toFixed(digits));

export class BookStats {
  private fills = 0;
  private maker = 0;
  private readonly queueMs: number[] = [];
  private readonly moves = new Map<number, number[]>(ADVERSE_HORIZONS_MS.map((h) => [h, []]));
  private ended = false;

  constructor(
    private readonly venue: BookVenue,
    time: VirtualTime,
    mid: (symbol: string) => Decimal | undefined,
  ) {
    venue.onBookFill((f: BookVenueFill) => {
      this.fills++;
      if (f.liquidity === 'maker') {
        this.maker++;
        this.queueMs.push(f.t - f.liveAt);
      }
      const price = f.price.toNumber();
      for (const h of ADVERSE_HORIZONS_MS) {
        time.setTimeout(
          () => {
            if (this.ended) return;
            const m = mid(f.symbol)?.toNumber();
            if (m === undefined || !(price > 0)) return;
            const move = ((m - price) / price) * 10_000;
            this.moves.get(h)!.push(f.side === 'BUY' ? move : -move);
          },
          Math.max(0, f.t + h - time.clock.now()),
        );
      }
    });
  }

  /** The recording ended: later readings would see the last book, frozen; none is taken. */
  end(): void {
    this.ended = true;
  }

  result(): BookFillMetrics {
    const markets: BookMetrics['markets'] = {};
    const totals = this.venue.orderTotals();
    for (const s of Object.keys(totals).sort()) {
      const t = totals[s]!;
      markets[s] = {
        orders: t.orders,
        filledOrders: t.filledOrders,
        fillRatioPct: t.orders > 0 ? round((t.filledOrders / t.orders) * 100) : null,
        quantityFillRatioPct: t.quantity.gt(0) ? round(t.filled.div(t.quantity).mul(100).toNumber()) : null,
      };
    }
    const q = [...this.queueMs].sort((a, b) => a - b);
    const adverse: BookMetrics['adverseSelectionBps'] = {};
    for (const [h, list] of this.moves) {
      adverse[String(h)] = { mean: list.length > 0 ? round(list.reduce((a, b) => a + b, 0) / list.length) : null, fills: list.length };
    }
    return {
      fills: this.fills,
      makerFills: this.maker,
      takerFills: this.fills - this.maker,
      markets,
      queueTimeMs: {
        mean: q.length > 0 ? round(q.reduce((a, b) => a + b, 0) / q.length, 1) : null,
        median: q.length > 0 ? (q.length % 2 ? q[(q.length - 1) / 2]! : (q[q.length / 2 - 1]! + q[q.length / 2]!) / 2) : null,
      },
      adverseSelectionBps: adverse,
    };
  }
}

/** The book metrics as lines of the terminal summary. */
export function formatBookMetrics(b: BookMetrics): string[] {
  const lines = [`book fills ${b.fills} (maker ${b.makerFills}, taker ${b.takerFills})`];
  for (const [s, m] of Object.entries(b.markets)) {
    lines.push(
      `  ${s}: ${m.filledOrders} of ${m.orders} orders filled (${m.fillRatioPct ?? 'n/a'} %), ${m.quantityFillRatioPct ?? 'n/a'} % of the quantity ordered`,
    );
  }
  lines.push(`  queue time (maker fills): median ${b.queueTimeMs.median ?? 'n/a'} ms, mean ${b.queueTimeMs.mean ?? 'n/a'} ms`);
  const adverse = Object.entries(b.adverseSelectionBps)
    .map(([h, a]) => `${Number(h) / 1000} s ${a.mean ?? 'n/a'} bps (${a.fills} fills)`)
    .join(', ');
  lines.push(`  mid move after a fill, your way (+) or against you (−): ${adverse}`);
  lines.push(...formatUnhealthy(b.unhealthy));
  return lines;
}
