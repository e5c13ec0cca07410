/**
 * What the report draws over a book backtest's price chart, per market (the result's `bookChart`):
 *  - the mid price of the local book the strategies saw;
 *  - your quotes: the best price of your open buy and sell limit orders (the distance between them is
 *    your quoted spread; a side without an order has no value);
 *  - your inventory: the market's base asset held, locked included;
 *  - every fill: time, side, price, quantity, maker or taker.
 * Sampled with the equity (every simulated second), then thinned to at most `maxPoints` samples per
 * market as the equity curve is; the fills are all kept.
 */
import type { Decimal } from '../../core/decimal.js';
import type { SimOrder } from '../../sim/order-types.js';
import type { BookVenueFill } from './book-account.js';

export interface BookChartFill {
  t: number;
  side: 'BUY' | 'SELL';
  price: string;
  quantity: string;
  liquidity: 'maker' | 'taker';
}

export interface BookChartMarket {
  symbol: string;
  /** The asset the inventory counts. */
  base: string;
  /** Sample times, ms. */
  times: number[];
  mid: (number | null)[];
  /** Your best open buy and sell limit prices. */
  bid: (number | null)[];
  ask: (number | null)[];
  inventory: number[];
  fills: BookChartFill[];
}

export interface BookChartSources {
  mid(symbol: string): Decimal | undefined;
  /** The open orders of a market (limit orders count as quotes). */
  openOrders(symbol: string): readonly SimOrder[];
  /** The base asset's balance, locked included. */
  held(asset: string): Decimal | undefined;
  fills(): readonly BookVenueFill[];
}

const num = (d: Decimal | undefined): number | null => (d === undefined ? null : Number(d.toSignificantDigits(15)));

export class BookChartRecorder {
  private readonly markets: Map<string, BookChartMarket>;

  constructor(
    markets: readonly { symbol: string; base: string }[],
    private readonly sources: BookChartSources,
    private readonly fromMs: number,
  ) {
    this.markets = new Map(markets.map((m) => [m.symbol, { symbol: m.symbol, base: m.base, times: [], mid: [], bid: [], ask: [], inventory: [], fills: [] }]));
  }

  /** One sample of every market at `t` (samples before the run's `from` are warm-up: not kept). */
  sample(t: number): void {
    if (t < this.fromMs) return;
    for (const m of this.markets.values()) {
      let bid: Decimal | undefined;
      let ask: Decimal | undefined;
      for (const o of this.sources.openOrders(m.symbol)) {
        if (o.type !== 'LIMIT') continue;
        if (o.side === 'BUY') bid = bid === undefined || o.price.gt(bid) ? o.price : bid;
        else ask = ask === undefined || o.price.lt(ask) ? o.price : ask;
      }
      const held = this.sources.held(m.base);
      m.times.push(t);
      m.mid.push(num(this.sources.mid(m.symbol)));
      m.bid.push(num(bid));
      m.ask.push(num(ask));
      m.inventory.push(held === undefined ? 0 : Number(held.toSignificantDigits(15)));
    }
  }

  /** Every market's series, each thinned to at most `maxPoints` samples (the last always kept), with its fills. */
  result(maxPoints: number): BookChartMarket[] {
    for (const f of this.sources.fills()) {
      if (f.t < this.fromMs) continue;
      this.markets.get(f.symbol)?.fills.push({ t: f.t, side: f.side, price: f.price.toFixed(), quantity: f.quantity.toFixed(), liquidity: f.liquidity });
    }
    return [...this.markets.values()].map((m) => thin(m, maxPoints));
  }
}

function thin(m: BookChartMarket, max: number): BookChartMarket {
  const n = m.times.length;
  const step = Math.max(1, Math.ceil(n / Math.max(2, max)));
  if (step === 1) return m;
  const keep: number[] = [];
  for (let i = 0; i < n; i += step) keep.push(i);
  if (keep[keep.length - 1] !== n - 1) keep.push(n - 1);
  const pick = <T>(xs: T[]) => keep.map((i) => xs[i]!);
  return { ...m, times: pick(m.times), mid: pick(m.mid), bid: pick(m.bid), ask: pick(m.ask), inventory: pick(m.inventory) };
}
